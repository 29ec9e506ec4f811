// The persistent forward's task list (ops/persistent_forward.hpp): host logic only, so this runs on every machine
// (unit label); the kernel itself is tested in cuda_wgmma_gemm_test.cpp (gpu label). What keeps the kernel free of
// deadlock and races: every wait is for the full count of tasks that signal that counter, and all of those come
// earlier in the list (each CTA takes its tasks in list order).
#include <doctest/doctest.h>

#include <vector>

#include "tools/vbench/ops/persistent_forward.hpp"

namespace vtools::vbench {
namespace {

/// Checks the list's invariants and returns it.
std::vector<cuda::PersistentTaskDeps> checked_tasks(int B, int T, int C, int NH, int L) {
  CAPTURE(B);
  CAPTURE(T);
  CAPTURE(C);
  CAPTURE(L);
  int counters = 0;
  const std::vector<cuda::PersistentTaskDeps> tasks = cuda::persistent_task_deps(B, T, C, NH, L, counters);
  REQUIRE(counters > 0);
  std::vector<unsigned> signalled(counters, 0), total(counters, 0);
  for (const auto& t : tasks) {
    for (const int c : t.signal) {
      if (c >= 0) ++total.at(c);
    }
  }
  std::size_t waits = 0, bad = 0;
  for (const auto& t : tasks) {
    for (int i = 0; i < 2; ++i) {
      if (t.wait[i] < 0) continue;
      ++waits;
      // All the signals it waits for come from earlier tasks, and it waits for every one of them.
      bad += signalled.at(t.wait[i]) != t.wait_for[i] || total.at(t.wait[i]) != t.wait_for[i];
    }
    for (const int c : t.signal) {
      if (c >= 0) ++signalled.at(c);
    }
  }
  CHECK(waits > 0);
  CHECK(bad == 0);
  return tasks;
}

TEST_CASE("persistent forward tasks: each waits for all that signal its counters, and all come before it") {
  // gpt2 at B=4 T=64: per layer 64 layer-norm tasks (4 rows), 48 qkv + attention, 128 attention-projection tiles
  // (64 x 96, K in 4), 64 layer-norm tasks, 128 fc tiles, 128 fc-projection tiles; the final layer norm's 64.
  const auto gpt2 = checked_tasks(4, 64, 768, 12, 12);
  CHECK(gpt2.size() == 12 * (64 + 48 + 128 + 64 + 128 + 128) + 64);
  std::size_t qkv = 0;
  for (const auto& t : gpt2) qkv += t.kind == 'q';
  CHECK(qkv == 12 * 48);
  // Sequences that straddle 64-row blocks (a qkv task waits for two), a partial last block, tiles 128 wide.
  checked_tasks(2, 50, 256, 4, 3);
  checked_tasks(3, 37, 512, 8, 2);
  checked_tasks(1, 1, 512, 8, 1);
  checked_tasks(5, 64, 1024, 16, 2);
}

}  // namespace
}  // namespace vtools::vbench
