// vtrace summary --ranks: a distributed job's trace by rank. NCCL kernels are matched across ranks (the n-th kernel
// of one collective operation on a rank's n-th NCCL stream is the same collective on every rank: NCCL launches each
// collective on every rank of the communicator in the same order); per collective the arrival skew (last rank's
// start minus the first's), which rank came last and how long the others waited; per rank its kernel, collective
// and idle time; stragglers as HTA's straggler analysis ranks them. Writers are in rank_summary_writer.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "formats/trace/trace_model.hpp"

namespace vtools::vtrace {

/// The collective a NCCL kernel runs ("AllReduce" for ncclDevKernel_AllReduce_Sum_f32_RING_LL(...) or
/// ncclKernel_AllReduce_RING_LL_Sum_float(...)), "" for a kernel that is not NCCL's.
std::string nccl_operation(const std::string& kernel_name);

/// One rank's GPU time. Unions of kernel intervals, so overlapping streams are not counted twice.
struct RankTimes {
  std::int64_t rank = 0;
  std::string host;
  std::uint64_t launches = 0;
  std::uint64_t span_ns = 0;        ///< first kernel start to last kernel end
  std::uint64_t busy_ns = 0;        ///< some kernel ran
  std::uint64_t compute_ns = 0;     ///< a kernel other than NCCL's ran
  std::uint64_t collective_ns = 0;  ///< a NCCL kernel ran (including time it waited inside for other ranks)
  std::uint64_t overlap_ns = 0;     ///< both at once (communication hidden behind compute)
  std::uint64_t idle_ns = 0;        ///< span - busy
  std::uint64_t collectives = 0;    ///< matched collectives it took part in
  std::uint64_t wait_ns = 0;        ///< summed over them: the last rank's arrival minus its own
  std::uint64_t last_count = 0;     ///< collectives where it arrived last (skew > 0)
  std::uint64_t last_skew_ns = 0;   ///< summed skew of those collectives: the time the others waited for it
};

/// One collective, matched across the ranks that ran it.
struct Collective {
  std::string operation;        ///< "AllReduce", ...
  std::string kernel;           ///< the first rank's kernel name
  std::uint32_t stream = 0;     ///< the NCCL stream's ordinal on each rank (0: the first used)
  std::uint64_t sequence = 0;   ///< 0-based among this operation's kernels on that stream
  std::vector<std::int64_t> ranks;       ///< participants, ascending
  std::vector<std::uint64_t> start_ns;   ///< per participant
  std::vector<std::uint64_t> end_ns;     ///< per participant
  std::uint64_t skew_ns = 0;             ///< last start - first start
  std::int64_t first_rank = 0, last_rank = 0;
  std::uint64_t wait_ns = 0;             ///< summed over participants: last start - its start
};

struct RankSummary {
  /// "launcher" (processes' rank variables) or "process" (none recorded: processes numbered 0.. in id order).
  std::string rank_source;
  std::vector<RankTimes> ranks;          ///< ascending
  std::vector<Collective> collectives;   ///< by first start
  std::vector<std::int64_t> stragglers;  ///< ranks, most often last first, then by last_skew_ns
  std::uint64_t nccl_kernels = 0;
  std::uint64_t unmatched = 0;  ///< NCCL kernels with no partner on some rank (a rank's trace cut short, ...)
  double skew_median_ns = 0, skew_p95_ns = 0, skew_max_ns = 0;  ///< over collectives; 0 when none
  std::vector<std::string> notes;
};

/// Throws Error(kDataError) when the trace has no kernels of any rank, or no kernel times (Trace::has_kernel_times).
RankSummary summarize_ranks(const Trace& trace);

}  // namespace vtools::vtrace
