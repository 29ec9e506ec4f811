#include "formats/trace/rank_summary_tables.hpp"

#include <algorithm>
#include <cstdio>

#include "libcommon/human_units.hpp"

namespace vtools::vtrace {

namespace {

std::string share(std::uint64_t part, std::uint64_t whole) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", whole ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0);
  return buf;
}

/// "1 rank", "2 ranks", "1,500 NCCL kernels".
std::string counted(std::uint64_t n, const std::string& noun) {
  return format_count(n) + " " + noun + (n == 1 ? "" : "s");
}

std::string duration(std::uint64_t ns) { return format_duration_ns(static_cast<double>(ns)); }

std::string rank_label(const RankTimes& r) { return r.host.empty() ? std::to_string(r.rank) : std::to_string(r.rank) + " (" + r.host + ")"; }

}  // namespace

RankTables rank_summary_tables(const RankSummary& s) {
  using Align = Table::Align;
  RankTables t;
  // Counts as every other vtools table prints them (format_count: 200,000); ranks, streams and sequence numbers are
  // names, not amounts, and stay plain.
  t.headline = counted(s.ranks.size(), "rank") + (s.rank_source == "process" ? " (processes in id order)" : "") +
               ", " + (s.collectives.empty() ? "no collectives" : counted(s.collectives.size(), "collective")) +
               " matched (" + counted(s.nccl_kernels, "NCCL kernel") + ", " + format_count(s.unmatched) +
               " unmatched)";
  // Skew is a statistic over matched collectives: with none there is nothing to show, not a skew of 0 ns.
  if (s.collectives.empty())
    t.headline += ": no arrival skew to show";
  else
    t.headline += "; arrival skew median " + format_duration_ns(s.skew_median_ns) + ", p95 " +
                  format_duration_ns(s.skew_p95_ns) + ", max " + format_duration_ns(s.skew_max_ns);
  t.ranks.headers = {"rank", "launches", "span", "busy", "compute", "collective", "overlap", "idle", "idle share",
                     "collectives", "waited"};
  t.ranks.align = {Align::kLeft};
  t.ranks.align.resize(t.ranks.headers.size(), Align::kRight);
  for (const RankTimes& r : s.ranks)
    t.ranks.add_row({rank_label(r), format_count(r.launches), duration(r.span_ns), duration(r.busy_ns),
                     duration(r.compute_ns), duration(r.collective_ns), duration(r.overlap_ns), duration(r.idle_ns),
                     share(r.idle_ns, r.span_ns), format_count(r.collectives), duration(r.wait_ns)});

  t.stragglers.headers = {"straggler", "last in", "share", "others waited", "mean skew when last"};
  t.stragglers.align = {Align::kLeft, Align::kRight, Align::kRight, Align::kRight, Align::kRight};
  for (std::int64_t rank : s.stragglers) {
    const RankTimes& r = *std::find_if(s.ranks.begin(), s.ranks.end(), [&](const RankTimes& x) { return x.rank == rank; });
    t.stragglers.add_row({rank_label(r), format_count(r.last_count), share(r.last_count, r.collectives),
                          duration(r.last_skew_ns),
                          r.last_count ? duration(r.last_skew_ns / r.last_count) : std::string("-")});
  }

  std::vector<const Collective*> worst;
  for (const Collective& c : s.collectives) worst.push_back(&c);
  std::stable_sort(worst.begin(), worst.end(), [](const Collective* a, const Collective* b) { return a->skew_ns > b->skew_ns; });
  if (worst.size() > kRankCollectiveRows) worst.resize(kRankCollectiveRows);
  t.collectives.headers = {"collective", "stream", "#", "ranks", "skew", "first", "last", "others waited"};
  t.collectives.align = {Align::kLeft, Align::kRight, Align::kRight, Align::kRight, Align::kRight, Align::kRight,
                         Align::kRight, Align::kRight};
  for (const Collective* c : worst)
    t.collectives.add_row({c->operation, std::to_string(c->stream), std::to_string(c->sequence),
                           format_count(c->ranks.size()), duration(c->skew_ns), std::to_string(c->first_rank),
                           std::to_string(c->last_rank), duration(c->wait_ns)});
  return t;
}

}  // namespace vtools::vtrace
