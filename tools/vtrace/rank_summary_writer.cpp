#include "tools/vtrace/rank_summary_writer.hpp"

#include "formats/trace/rank_summary_tables.hpp"
#include "libcommon/table.hpp"

namespace vtools::vtrace {

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
  const RankTables t = rank_summary_tables(s);
  out << t.headline << "\n\n";
  write_table(t.ranks, markdown, out);
  out << "\n";
  write_table(t.stragglers, markdown, out);
  if (!t.collectives.rows.empty()) {
    out << "\n";
    write_table(t.collectives, markdown, out);
  }
  for (const std::string& n : s.notes) out << "\nnote: " << n;
  if (!s.notes.empty()) out << "\n";
}

}  // namespace vtools::vtrace
