#include "formats/trace/rank_summary.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "libcommon/error.hpp"
#include "formats/trace/time_intervals.hpp"
#include "libcommon/stats.hpp"

namespace vtools::vtrace {

namespace {

using Interval = TimeInterval;

/// process id -> rank: the launcher's where recorded; else, when no process has one, the processes that launched
/// kernels numbered 0.. in id order.
std::map<std::int64_t, std::int64_t> rank_of_process(const Trace& t, RankSummary& s) {
  std::map<std::int64_t, std::int64_t> ranks;
  for (const Process& p : t.processes)
    if (p.rank >= 0) ranks[p.id] = p.rank;
  if (!ranks.empty()) {
    s.rank_source = "launcher";
    // Two processes with kernels under one rank (a rank's helper process that inherited RANK and used CUDA, or two
    // jobs' traces merged): their kernels are counted as that rank's, which the reader should know.
    std::uint64_t left_out = 0;
    std::map<std::int64_t, std::set<std::int64_t>> with_kernels;  // rank -> process ids that launched kernels
    for (const Kernel& k : t.kernels) {
      if (auto it = ranks.find(k.process_id); it != ranks.end())
        with_kernels[it->second].insert(k.process_id);
      else
        ++left_out;
    }
    if (left_out > 0)
      s.notes.push_back(std::to_string(left_out) + " kernel launches of processes without a rank are left out");
    for (const auto& [rank, ids] : with_kernels) {
      if (ids.size() < 2) continue;
      std::string list;
      for (std::int64_t id : ids) list += (list.empty() ? "" : ", ") + std::to_string(id);
      s.notes.push_back("rank " + std::to_string(rank) + " is claimed by " + std::to_string(ids.size()) +
                        " processes with kernels (" + list + "): their kernels are counted as one rank's");
    }
    return ranks;
  }
  s.rank_source = "process";
  std::set<std::int64_t> ids;
  for (const Kernel& k : t.kernels) ids.insert(k.process_id);
  std::int64_t next = 0;
  for (std::int64_t id : ids) ranks[id] = next++;
  if (ids.size() > 1)
    s.notes.push_back("no process recorded a launcher rank (RANK, OMPI_COMM_WORLD_RANK, PMI_RANK, SLURM_PROCID): "
                      "ranks are the " + std::to_string(ids.size()) + " processes with kernels in process id order");
  return ranks;
}

}  // namespace

std::string nccl_operation(const std::string& name) {
  for (std::string_view prefix : {"ncclDevKernel_", "ncclKernel_"}) {
    if (name.rfind(prefix, 0) != 0) continue;
    const std::size_t from = prefix.size();
    const std::size_t to = name.find_first_of("_(<", from);
    return name.substr(from, to == std::string::npos ? std::string::npos : to - from);
  }
  return "";
}

RankSummary summarize_ranks(const Trace& t) {
  if (!t.has_kernel_times())  // every rank would show 0 ns and no skew
    throw Error(ExitCode::kDataError,
                "an access-mode trace (--accesses) has no kernel times (access mode records no timestamps): "
                "summary --ranks reads launch-mode traces; vtrace check and summary give this one's findings and "
                "accesses, each with its process");
  RankSummary s;
  const std::map<std::int64_t, std::int64_t> rank_of = rank_of_process(t, s);
  std::map<std::int64_t, std::string> hosts;
  for (const Process& p : t.processes)
    if (auto it = rank_of.find(p.id); it != rank_of.end() && !p.host.empty()) hosts[it->second] = p.host;

  struct PerRank {
    std::vector<Interval> all, compute, nccl;
    std::uint64_t launches = 0, first = UINT64_MAX, last = 0;
    /// NCCL kernels by (stream ordinal, operation), in start order; stream ordinals by first NCCL kernel.
    std::map<std::pair<std::uint64_t, std::uint32_t>, std::uint32_t> streams;  // (device, stream) -> ordinal
    std::map<std::pair<std::uint32_t, std::string>, std::vector<const Kernel*>> sequences;
  };
  std::map<std::int64_t, PerRank> per;
  for (const Kernel& k : t.kernels) {  // in start order (the trace's order)
    auto r = rank_of.find(k.process_id);
    if (r == rank_of.end()) continue;
    PerRank& p = per[r->second];
    ++p.launches;
    p.first = std::min(p.first, k.start_ns);
    p.last = std::max(p.last, k.end_ns);
    p.all.emplace_back(k.start_ns, k.end_ns);
    const std::string op = nccl_operation(k.name);
    if (op.empty()) {
      p.compute.emplace_back(k.start_ns, k.end_ns);
      continue;
    }
    ++s.nccl_kernels;
    p.nccl.emplace_back(k.start_ns, k.end_ns);
    const auto key = std::make_pair(static_cast<std::uint64_t>(k.device_id), k.stream_id);
    const auto ordinal = p.streams.try_emplace(key, static_cast<std::uint32_t>(p.streams.size())).first->second;
    p.sequences[{ordinal, op}].push_back(&k);
  }
  if (per.empty()) throw Error(ExitCode::kDataError, "no kernel of any rank in this trace: nothing to summarize");

  // Collectives: the n-th kernel of a (stream ordinal, operation) on every rank that has that sequence.
  std::set<std::pair<std::uint32_t, std::string>> keys;
  for (const auto& [rank, p] : per)
    for (const auto& [key, kernels] : p.sequences) keys.insert(key);
  for (const auto& key : keys) {
    std::vector<std::pair<std::int64_t, const std::vector<const Kernel*>*>> parts;
    for (const auto& [rank, p] : per)
      if (auto it = p.sequences.find(key); it != p.sequences.end()) parts.emplace_back(rank, &it->second);
    std::size_t n = SIZE_MAX;
    for (const auto& [rank, kernels] : parts) n = std::min(n, kernels->size());
    if (parts.size() < 2) n = 0;  // one rank alone: nothing to match it with
    for (const auto& [rank, kernels] : parts) s.unmatched += kernels->size() - n;
    for (std::size_t i = 0; i < n; ++i) {
      Collective c;
      c.operation = key.second;
      c.stream = key.first;
      c.sequence = i;
      c.kernel = (*parts.front().second)[i]->name;
      std::uint64_t first = UINT64_MAX, last = 0;
      for (const auto& [rank, kernels] : parts) {
        const Kernel* k = (*kernels)[i];
        c.ranks.push_back(rank);
        c.start_ns.push_back(k->start_ns);
        c.end_ns.push_back(k->end_ns);
        if (k->start_ns < first) first = k->start_ns, c.first_rank = rank;
        if (k->start_ns > last || c.ranks.size() == 1) last = k->start_ns, c.last_rank = rank;
      }
      c.skew_ns = last - first;
      for (std::size_t j = 0; j < c.ranks.size(); ++j) c.wait_ns += last - c.start_ns[j];
      s.collectives.push_back(std::move(c));
    }
  }
  std::stable_sort(s.collectives.begin(), s.collectives.end(), [](const Collective& a, const Collective& b) {
    return *std::min_element(a.start_ns.begin(), a.start_ns.end()) <
           *std::min_element(b.start_ns.begin(), b.start_ns.end());
  });
  if (s.unmatched > 0)
    s.notes.push_back(std::to_string(s.unmatched) + " NCCL kernels have no partner on some rank (a rank's trace "
                      "cut short, a communicator of one rank, or ranks that ran different collectives)");

  for (auto& [rank, p] : per) {
    RankTimes r;
    r.rank = rank;
    if (auto h = hosts.find(rank); h != hosts.end()) r.host = h->second;
    r.launches = p.launches;
    r.span_ns = p.last - p.first;
    r.busy_ns = union_ns(p.all);
    r.compute_ns = union_ns(p.compute);
    r.collective_ns = union_ns(p.nccl);
    r.overlap_ns = r.compute_ns + r.collective_ns - r.busy_ns;
    r.idle_ns = r.span_ns - r.busy_ns;
    s.ranks.push_back(r);
  }
  auto times_of = [&](std::int64_t rank) -> RankTimes& {
    return *std::find_if(s.ranks.begin(), s.ranks.end(), [&](const RankTimes& r) { return r.rank == rank; });
  };
  std::vector<double> skews;
  for (const Collective& c : s.collectives) {
    skews.push_back(static_cast<double>(c.skew_ns));
    const std::uint64_t last = c.start_ns[static_cast<std::size_t>(
        std::find(c.ranks.begin(), c.ranks.end(), c.last_rank) - c.ranks.begin())];
    for (std::size_t j = 0; j < c.ranks.size(); ++j) {
      RankTimes& r = times_of(c.ranks[j]);
      ++r.collectives;
      r.wait_ns += last - c.start_ns[j];
    }
    if (c.skew_ns > 0) {
      RankTimes& r = times_of(c.last_rank);
      ++r.last_count;
      r.last_skew_ns += c.skew_ns;
    }
  }
  if (!skews.empty()) {
    std::sort(skews.begin(), skews.end());
    s.skew_median_ns = stats::percentile_sorted(skews, 50);
    s.skew_p95_ns = stats::percentile_sorted(skews, 95);
    s.skew_max_ns = skews.back();
  }
  std::vector<const RankTimes*> order;
  for (const RankTimes& r : s.ranks) order.push_back(&r);
  std::stable_sort(order.begin(), order.end(), [](const RankTimes* a, const RankTimes* b) {
    if (a->last_count != b->last_count) return a->last_count > b->last_count;
    return a->last_skew_ns > b->last_skew_ns;
  });
  for (const RankTimes* r : order) s.stragglers.push_back(r->rank);
  return s;
}

}  // namespace vtools::vtrace
