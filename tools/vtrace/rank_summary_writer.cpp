#include "tools/vtrace/rank_summary_writer.hpp"

#include <algorithm>
#include <cstdio>

#include "libcommon/human_units.hpp"
#include "libcommon/table.hpp"

namespace vtools::vtrace {

namespace {

constexpr std::size_t kCollectiveRows = 20;

std::string share(std::uint64_t part, std::uint64_t whole) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", whole ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0);
  return buf;
}

std::string duration(std::uint64_t ns) { return format_duration_ns(static_cast<double>(ns)); }

std::string rank_label(const RankTimes& r) { return r.host.empty() ? std::to_string(r.rank) : std::to_string(r.rank) + " (" + r.host + ")"; }

}  // namespace

OrderedJson rank_summary_to_json(const RankSummary& s) {
  OrderedJson j;
  j["summary_of"] = "vtools.trace ranks";
  j["rank_source"] = s.rank_source;
  j["nccl_kernels"] = s.nccl_kernels;
  j["collectives_matched"] = s.collectives.size();
  j["unmatched"] = s.unmatched;
  j["skew_median_ns"] = s.skew_median_ns;
  j["skew_p95_ns"] = s.skew_p95_ns;
  j["skew_max_ns"] = s.skew_max_ns;
  j["ranks"] = OrderedJson::array();
  for (const RankTimes& r : s.ranks) {
    OrderedJson x;
    x["rank"] = r.rank;
    x["host"] = r.host;
    x["launches"] = r.launches;
    x["span_ns"] = r.span_ns;
    x["busy_ns"] = r.busy_ns;
    x["compute_ns"] = r.compute_ns;
    x["collective_ns"] = r.collective_ns;
    x["overlap_ns"] = r.overlap_ns;
    x["idle_ns"] = r.idle_ns;
    x["collectives"] = r.collectives;
    x["wait_ns"] = r.wait_ns;
    x["last_count"] = r.last_count;
    x["last_skew_ns"] = r.last_skew_ns;
    j["ranks"].push_back(std::move(x));
  }
  j["stragglers"] = s.stragglers;
  j["collectives"] = OrderedJson::array();
  for (const Collective& c : s.collectives) {
    OrderedJson x;
    x["operation"] = c.operation;
    x["kernel"] = c.kernel;
    x["stream"] = c.stream;
    x["sequence"] = c.sequence;
    x["ranks"] = c.ranks;
    x["start_ns"] = c.start_ns;
    x["end_ns"] = c.end_ns;
    x["skew_ns"] = c.skew_ns;
    x["first_rank"] = c.first_rank;
    x["last_rank"] = c.last_rank;
    x["wait_ns"] = c.wait_ns;
    j["collectives"].push_back(std::move(x));
  }
  j["notes"] = s.notes;
  return j;
}

void write_rank_summary_tables(const RankSummary& s, bool markdown, std::ostream& out) {
  using Align = Table::Align;
  out << s.ranks.size() << " ranks" << (s.rank_source == "process" ? " (processes in id order)" : "") << ", "
      << s.collectives.size() << " collectives matched (" << s.nccl_kernels << " NCCL kernels, " << s.unmatched
      << " unmatched); arrival skew median " << format_duration_ns(s.skew_median_ns) << ", p95 "
      << format_duration_ns(s.skew_p95_ns) << ", max " << format_duration_ns(s.skew_max_ns) << "\n\n";
  Table ranks;
  ranks.headers = {"rank", "launches", "span", "busy", "compute", "collective", "overlap", "idle", "idle share",
                   "collectives", "waited"};
  ranks.align = {Align::kLeft};
  ranks.align.resize(ranks.headers.size(), Align::kRight);
  for (const RankTimes& r : s.ranks)
    ranks.add_row({rank_label(r), std::to_string(r.launches), duration(r.span_ns), duration(r.busy_ns),
                   duration(r.compute_ns), duration(r.collective_ns), duration(r.overlap_ns), duration(r.idle_ns),
                   share(r.idle_ns, r.span_ns), std::to_string(r.collectives), duration(r.wait_ns)});
  write_table(ranks, markdown, out);

  out << "\n";
  Table stragglers;
  stragglers.headers = {"straggler", "last in", "share", "others waited", "mean skew when last"};
  stragglers.align = {Align::kLeft, Align::kRight, Align::kRight, Align::kRight, Align::kRight};
  for (std::int64_t rank : s.stragglers) {
    const RankTimes& r = *std::find_if(s.ranks.begin(), s.ranks.end(), [&](const RankTimes& x) { return x.rank == rank; });
    stragglers.add_row({rank_label(r), std::to_string(r.last_count), share(r.last_count, r.collectives),
                        duration(r.last_skew_ns),
                        r.last_count ? duration(r.last_skew_ns / r.last_count) : std::string("-")});
  }
  write_table(stragglers, markdown, out);

  if (!s.collectives.empty()) {
    std::vector<const Collective*> worst;
    for (const Collective& c : s.collectives) worst.push_back(&c);
    std::stable_sort(worst.begin(), worst.end(), [](const Collective* a, const Collective* b) { return a->skew_ns > b->skew_ns; });
    if (worst.size() > kCollectiveRows) worst.resize(kCollectiveRows);
    out << "\n";
    Table collectives;
    collectives.headers = {"collective", "stream", "#", "ranks", "skew", "first", "last", "others waited"};
    collectives.align = {Align::kLeft, Align::kRight, Align::kRight, Align::kRight, Align::kRight, Align::kRight,
                         Align::kRight, Align::kRight};
    for (const Collective* c : worst)
      collectives.add_row({c->operation, std::to_string(c->stream), std::to_string(c->sequence),
                           std::to_string(c->ranks.size()), duration(c->skew_ns), std::to_string(c->first_rank),
                           std::to_string(c->last_rank), duration(c->wait_ns)});
    write_table(collectives, markdown, out);
  }
  for (const std::string& n : s.notes) out << "\nnote: " << n;
  if (!s.notes.empty()) out << "\n";
}

}  // namespace vtools::vtrace
