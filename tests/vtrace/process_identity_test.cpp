// Rank detection from each launcher's variables, and the -o patterns of vtrace run.
#include "tools/vtrace/process_identity.hpp"

#include <doctest/doctest.h>

#include "libcommon/error.hpp"

using namespace vtools::vtrace;

TEST_CASE("process_identity: torchrun's RANK, LOCAL_RANK and WORLD_SIZE") {
  const RankInfo r = detect_rank({{"RANK", "3"}, {"LOCAL_RANK", "1"}, {"WORLD_SIZE", "4"}});
  CHECK(r.rank == 3);
  CHECK(r.local_rank == 1);
  CHECK(r.world_size == 4);
  CHECK(r.launcher == "torchrun");
  CHECK(r.problem.empty());
}

TEST_CASE("process_identity: Open MPI's OMPI_COMM_WORLD variables") {
  const RankInfo r = detect_rank(
      {{"OMPI_COMM_WORLD_RANK", "5"}, {"OMPI_COMM_WORLD_LOCAL_RANK", "1"}, {"OMPI_COMM_WORLD_SIZE", "8"}});
  CHECK(r.rank == 5);
  CHECK(r.local_rank == 1);
  CHECK(r.world_size == 8);
  CHECK(r.launcher == "openmpi");
}

TEST_CASE("process_identity: Slurm's SLURM_PROCID, SLURM_LOCALID and SLURM_NTASKS") {
  const RankInfo r = detect_rank({{"SLURM_PROCID", "7"}, {"SLURM_LOCALID", "3"}, {"SLURM_NTASKS", "16"}});
  CHECK(r.rank == 7);
  CHECK(r.local_rank == 3);
  CHECK(r.world_size == 16);
  CHECK(r.launcher == "slurm");
}

TEST_CASE("process_identity: MPICH's PMI_RANK and PMI_SIZE, local rank from MPI_LOCALRANKID when set") {
  RankInfo r = detect_rank({{"PMI_RANK", "2"}, {"PMI_SIZE", "4"}});
  CHECK(r.rank == 2);
  CHECK(r.local_rank == -1);
  CHECK(r.world_size == 4);
  CHECK(r.launcher == "pmi");
  r = detect_rank({{"PMI_RANK", "2"}, {"PMI_SIZE", "4"}, {"MPI_LOCALRANKID", "0"}});
  CHECK(r.local_rank == 0);
}

TEST_CASE("process_identity: the innermost launcher wins (torchrun under Slurm, mpirun inside an allocation)") {
  RankInfo r = detect_rank({{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "1"}, {"RANK", "3"}, {"WORLD_SIZE", "8"}});
  CHECK(r.launcher == "torchrun");
  CHECK(r.rank == 3);
  r = detect_rank({{"SLURM_PROCID", "0"}, {"OMPI_COMM_WORLD_RANK", "6"}, {"OMPI_COMM_WORLD_SIZE", "8"}});
  CHECK(r.launcher == "openmpi");
  CHECK(r.rank == 6);
}

TEST_CASE("process_identity: no launcher variables: no rank") {
  const RankInfo r = detect_rank({{"HOME", "/root"}});
  CHECK(r.rank == -1);
  CHECK(r.local_rank == -1);
  CHECK(r.world_size == -1);
  CHECK(r.launcher.empty());
  CHECK(r.problem.empty());
}

TEST_CASE("process_identity: bad values skip their launcher and say why; the next launcher is used") {
  RankInfo r = detect_rank({{"RANK", "x1"}, {"WORLD_SIZE", "2"}});
  CHECK(r.rank == -1);
  CHECK(r.problem == "RANK='x1' is not a whole number (torchrun): ignored");
  r = detect_rank({{"RANK", "2"}, {"WORLD_SIZE", "2"}, {"SLURM_PROCID", "1"}, {"SLURM_NTASKS", "2"}});
  CHECK(r.launcher == "slurm");
  CHECK(r.rank == 1);
  CHECK(r.problem == "RANK=2 is not below WORLD_SIZE=2 (torchrun): ignored");
  r = detect_rank({{"RANK", "-1"}});
  CHECK(r.rank == -1);
  CHECK(r.problem == "RANK='-1' is not a whole number (torchrun): ignored");
}

TEST_CASE("process_identity: output patterns expand host, rank, pid and %%") {
  const PatternValues v{"node7.cluster.example", "3", 4242};
  CHECK(expand_output_pattern("trace.%h.%r.json", v) == "trace.node7.3.json");
  CHECK(expand_output_pattern("t-%p-%%.json", v) == "t-4242-%.json");
  CHECK(expand_output_pattern("plain.json", v) == "plain.json");
  CHECK(is_output_pattern("t.%r.json"));
  CHECK_FALSE(is_output_pattern("t.json"));
}

TEST_CASE("process_identity: unknown directives and a trailing '%' are usage errors") {
  const PatternValues v{"h", "0", 1};
  try {
    expand_output_pattern("t.%x.json", v);
    FAIL("no error");
  } catch (const vtools::Error& e) {
    CHECK(e.code() == vtools::ExitCode::kUsage);
    CHECK(std::string(e.what()) == "-o 't.%x.json': unknown directive '%x' (%h host, %r rank, %p pid, %% a '%')");
  }
  CHECK_THROWS_WITH_AS(expand_output_pattern("t.json%", v), "-o 't.json%': a '%' at the end (write %% for a '%')",
                       vtools::Error);
}
