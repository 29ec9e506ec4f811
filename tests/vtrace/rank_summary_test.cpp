// vtrace summary --ranks on hand-made traces: collectives matched across ranks, skew, waits, stragglers, idle time.
#include "formats/trace/rank_summary.hpp"

#include <doctest/doctest.h>

#include <algorithm>

#include "formats/trace/rank_summary_tables.hpp"
#include "libcommon/error.hpp"

using namespace vtools::vtrace;

namespace {

const char* const kAllReduce = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)";

void add_kernel(Trace& t, std::int64_t pid, std::uint32_t stream, const std::string& name, std::uint64_t start,
                std::uint64_t end) {
  Kernel k;
  k.name = name;
  k.process_id = pid;
  k.device_id = static_cast<std::uint32_t>(pid);
  k.stream_id = stream;
  k.start_ns = start;
  k.end_ns = end;
  t.kernels.push_back(k);
}

/// Two ranks (pids 10 and 11); each step: a 100 ns gemm, then an all-reduce. Rank 1 arrives `late` ns after rank 0
/// at every all-reduce; the all-reduce ends for both 50 ns after rank 1 arrives.
Trace two_ranks(std::uint64_t late, int steps) {
  Trace t;
  for (std::int64_t r = 0; r < 2; ++r) {
    Process p;
    p.id = p.pid = 10 + r;
    p.rank = r;
    p.world_size = 2;
    p.host = "node" + std::to_string(r);
    t.processes.push_back(p);
  }
  for (int s = 0; s < steps; ++s) {
    const std::uint64_t base = 10'000 * static_cast<std::uint64_t>(s + 1);
    add_kernel(t, 10, 7, "gemm", base, base + 100);
    add_kernel(t, 10, 9, kAllReduce, base + 100, base + 100 + late + 50);
    add_kernel(t, 11, 3, "gemm", base + late, base + late + 100);
    add_kernel(t, 11, 5, kAllReduce, base + 100 + late, base + 100 + late + 50);
  }
  std::stable_sort(t.kernels.begin(), t.kernels.end(), [](const Kernel& a, const Kernel& b) { return a.start_ns < b.start_ns; });
  return t;
}

}  // namespace

TEST_CASE("rank_summary: NCCL operation names") {
  CHECK(nccl_operation(kAllReduce) == "AllReduce");
  CHECK(nccl_operation("ncclKernel_AllGather_RING_LL_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)") == "AllGather");
  CHECK(nccl_operation("ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)") == "SendRecv");
  CHECK(nccl_operation("ncclDevKernel_Generic") == "Generic");
  CHECK(nccl_operation("gemm") == "");
  CHECK(nccl_operation("my_ncclKernel_x") == "");
}

TEST_CASE("rank_summary: the late rank is the straggler, the skew is its lateness, the other waits it") {
  const RankSummary s = summarize_ranks(two_ranks(3000, 4));
  CHECK(s.rank_source == "launcher");
  REQUIRE(s.collectives.size() == 4);
  CHECK(s.unmatched == 0);
  CHECK(s.nccl_kernels == 8);
  for (const Collective& c : s.collectives) {
    CHECK(c.operation == "AllReduce");
    CHECK(c.ranks == std::vector<std::int64_t>{0, 1});
    CHECK(c.skew_ns == 3000);
    CHECK(c.first_rank == 0);
    CHECK(c.last_rank == 1);
    CHECK(c.wait_ns == 3000);
  }
  CHECK(s.collectives[2].sequence == 2);
  CHECK(s.skew_median_ns == 3000);
  CHECK(s.skew_max_ns == 3000);
  CHECK(s.stragglers == std::vector<std::int64_t>{1, 0});
  REQUIRE(s.ranks.size() == 2);
  const RankTimes &r0 = s.ranks[0], &r1 = s.ranks[1];
  CHECK(r0.host == "node0");
  CHECK(r0.wait_ns == 4 * 3000);
  CHECK(r1.wait_ns == 0);
  CHECK(r1.last_count == 4);
  CHECK(r1.last_skew_ns == 4 * 3000);
  CHECK(r0.last_count == 0);
  CHECK(r0.collective_ns == 4 * 3050);
  CHECK(r0.compute_ns == 4 * 100);
  CHECK(r0.overlap_ns == 0);
  // Invariants: busy = compute + collective - overlap; span = busy + idle.
  for (const RankTimes& r : s.ranks) {
    CHECK(r.busy_ns == r.compute_ns + r.collective_ns - r.overlap_ns);
    CHECK(r.span_ns == r.busy_ns + r.idle_ns);
    CHECK(r.collectives == 4);
  }
  CHECK(r1.span_ns == 30'000 + 150);
  CHECK(r1.idle_ns == r1.span_ns - 4 * 150);
}

// A one-rank trace printed "1 ranks, 0 collectives matched ...; arrival skew median 0.00 ns, p95 0.00 ns, max
// 0.00 ns": statistics of no collectives shown as zeros.
TEST_CASE("rank_summary: the headline says '1 rank' and, with no collective matched, no skew statistics") {
  Trace t = two_ranks(1000, 2);
  std::erase_if(t.kernels, [](const Kernel& k) { return k.process_id == 11; });
  t.processes.pop_back();
  const RankSummary one = summarize_ranks(t);
  CHECK(rank_summary_tables(one).headline ==
        "1 rank, no collectives matched (2 NCCL kernels, 2 unmatched): no arrival skew to show");
  CHECK(rank_summary_tables(summarize_ranks(two_ranks(1000, 1))).headline ==
        "2 ranks, 1 collective matched (2 NCCL kernels, 0 unmatched); arrival skew median 1.00 us, p95 1.00 us, "
        "max 1.00 us");
}

TEST_CASE("rank_summary: a collective only one rank ran is unmatched, the rest still match in order") {
  Trace t = two_ranks(1000, 2);
  add_kernel(t, 10, 9, kAllReduce, 90'000, 90'100);  // rank 0 ran a third all-reduce, rank 1 did not
  const RankSummary s = summarize_ranks(t);
  CHECK(s.collectives.size() == 2);
  CHECK(s.unmatched == 1);
  REQUIRE(s.notes.size() == 1);
  CHECK(s.notes[0].find("1 NCCL kernels have no partner") == 0);
}

TEST_CASE("rank_summary: collectives of two streams (two communicators) are matched per stream") {
  Trace t = two_ranks(1000, 1);
  // A second communicator's all-reduce on another stream of each rank; rank 0 is the late one there.
  add_kernel(t, 10, 20, kAllReduce, 50'000, 50'100);
  add_kernel(t, 11, 21, kAllReduce, 49'000, 50'100);
  const RankSummary s = summarize_ranks(t);
  REQUIRE(s.collectives.size() == 2);
  CHECK(s.collectives[1].stream == 1);
  CHECK(s.collectives[1].last_rank == 0);
  CHECK(s.collectives[1].skew_ns == 1000);
  CHECK(s.collectives[0].last_rank == 1);
}

TEST_CASE("rank_summary: without launcher ranks, processes are numbered in id order") {
  Trace t = two_ranks(500, 1);
  for (Process& p : t.processes) p.rank = -1;
  const RankSummary s = summarize_ranks(t);
  CHECK(s.rank_source == "process");
  CHECK(s.collectives.size() == 1);
  CHECK(s.collectives[0].last_rank == 1);
  REQUIRE(s.notes.size() == 1);
  CHECK(s.notes[0].find("no process recorded a launcher rank") == 0);
}

TEST_CASE("rank_summary: two processes with kernels under one rank are named in a note") {
  Trace t = two_ranks(500, 1);
  t.processes[1].rank = 0;  // both processes claim rank 0
  const RankSummary s = summarize_ranks(t);
  CHECK(std::count(s.notes.begin(), s.notes.end(),
                   "rank 0 is claimed by 2 processes with kernels (10, 11): their kernels are counted as one rank's") == 1);
}

TEST_CASE("rank_summary: a trace without kernels is refused") {
  CHECK_THROWS_WITH_AS(summarize_ranks(Trace{}), "no kernel of any rank in this trace: nothing to summarize",
                       vtools::Error);
}

TEST_CASE("rank_summary: an access-mode trace is refused unless its kernels carry times (Trace::has_kernel_times)") {
  Trace t = two_ranks(30, 2);
  t.run.mode = "accesses";
  CHECK(t.has_kernel_times());  // an early access trace that recorded CUPTI times: summarized as any other
  CHECK(summarize_ranks(t).ranks.size() == 2);
  for (Kernel& k : t.kernels) k.start_ns = k.end_ns = 0;
  CHECK_FALSE(t.has_kernel_times());
  CHECK_THROWS_AS(summarize_ranks(t), vtools::Error);
  t.run.mode = "launches";
  CHECK(t.has_kernel_times());  // a launch trace's zero times are its own (synthetic) times, not a missing clock
}

// vrender's trace page shows these tables too: 200000 launches there sat beside 200,000 everywhere else.
TEST_CASE("rank_summary: the tables print counts with thousands separators, as the rest of vtrace and vrender") {
  RankSummary summary;
  summary.ranks.push_back({});
  summary.ranks[0].rank = 0;
  summary.ranks[0].launches = 200000;
  summary.ranks[0].collectives = 12000;
  summary.ranks[0].last_count = 1500;
  summary.nccl_kernels = 24000;
  summary.stragglers = {0};
  const RankTables tables = rank_summary_tables(summary);
  CHECK(tables.ranks.rows.at(0).at(1) == "200,000");
  CHECK(tables.ranks.rows.at(0).at(9) == "12,000");
  CHECK(tables.stragglers.rows.at(0).at(1) == "1,500");
  CHECK(tables.headline.find("(24,000 NCCL kernels, ") != std::string::npos);
}
