// Who a traced process is in a distributed job: its rank, local rank and world size as the launcher told it
// (torchrun, Open MPI, MPICH/PMI, Slurm environment variables), and what `vtrace run -o` patterns (%h host, %r rank,
// %p pid) expand to. Pure logic over variables handed in; the injection library records the variables, the parent
// decides here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace vtools::vtrace {

/// The launcher variables the injection library records from each traced process's environment, in the order
/// detect_rank tries their launchers (innermost first: torchrun under Slurm sets both, and its RANK is the one the
/// program uses; mpirun inside a Slurm allocation leaves the batch step's SLURM_PROCID in every task).
inline constexpr const char* kRankVariables[] = {
    "RANK",          "LOCAL_RANK",      "WORLD_SIZE",                                       // torchrun
    "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_SIZE",       // Open MPI
    "PMI_RANK",      "PMI_SIZE",        "MPI_LOCALRANKID",                                  // MPICH/PMI (Hydra)
    "SLURM_PROCID",  "SLURM_LOCALID",   "SLURM_NTASKS",                                     // Slurm (srun)
};

/// A process's place in its job; -1 where the launcher did not say.
struct RankInfo {
  std::int64_t rank = -1;
  std::int64_t local_rank = -1;
  std::int64_t world_size = -1;
  std::string launcher;  ///< "torchrun", "openmpi", "pmi", "slurm", or "" when no launcher set a rank
  /// Why a launcher's variables were not used ("RANK='x' is not a whole number"), "" when none was refused.
  std::string problem;
};

using Variables = std::vector<std::pair<std::string, std::string>>;

/// The rank from the first launcher (kRankVariables order) whose rank variable is set. A launcher whose values are
/// not whole numbers, or whose rank is not below its world size, is skipped and said in `problem`.
RankInfo detect_rank(const Variables& variables);

/// The kRankVariables that are set in this process's environment (for the parent's own %r).
Variables rank_variables_from_environment();

/// Values for an output pattern.
struct PatternValues {
  std::string host;  ///< %h: the host name up to its first '.'
  std::string rank;  ///< %r: the rank, or "norank"
  std::int64_t pid = 0;  ///< %p
};

/// True when `pattern` holds a % directive (then it is a pattern, not a plain file name).
bool is_output_pattern(std::string_view pattern);

/// `pattern` with %h, %r, %p and %% replaced. Throws Error(kUsage) naming the pattern for any other '%x' or a
/// '%' at the end.
std::string expand_output_pattern(std::string_view pattern, const PatternValues& values);

}  // namespace vtools::vtrace
