// The device's warp merge (warp_range_merge.cuh) against its host yardstick raw::add_range_batch on fresh random
// sites and batches: the same ranges, count and merged count, bit for bit. Needs a GPU: exits 77 without one.
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "tools/vtrace/access/access_records.hpp"
#include "tools/vtrace/injection/warp_range_merge.cuh"

namespace raw = vtools::vtrace::raw;

namespace {

struct Case {
  std::uint64_t ranges[raw::kRangesPerSite][2];
  std::uint32_t range_count;
  std::uint32_t has_run;  // bit per lane
  std::uint64_t ranges_merged;
  std::uint64_t runs[32][2];
};

__global__ void merge_cases(Case* cases, int n) {
  const int c = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  if (c >= n) return;  // warp-uniform
  Case& k = cases[c];
  const unsigned lane = threadIdx.x % 32;
  vtools::vtrace::warp::add_runs(k.ranges, &k.range_count, &k.ranges_merged, (k.has_run >> lane) & 1u,
                                 k.runs[lane][0], k.runs[lane][1]);
}

}  // namespace

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::puts("warp_range_merge_test: no GPU, skipped");
    return 77;
  }
  std::mt19937_64 rng(std::random_device{}());
  const int n = 200000;
  std::vector<Case> cases(n), want;
  for (Case& k : cases) {
    std::memset(&k, 0, sizeof k);
    const std::uint64_t span = 32 + rng() % 8192, base = rng() % 4 == 0 ? (~0ull >> 1) : 0;
    const int existing = static_cast<int>(rng() % 40);  // a site up to and past full
    for (int i = 0; i < existing; ++i) {
      const std::uint64_t lo = base + rng() % span;
      raw::add_range(k.ranges, k.range_count, k.ranges_merged, lo, lo + 1 + rng() % 64);
    }
    const unsigned density = static_cast<unsigned>(rng() % 4);  // none, some, most, all lanes with a run
    for (unsigned lane = 0; lane < 32; ++lane) {
      const bool has = density == 3 || (density > 0 && rng() % 3 < density);
      const std::uint64_t lo = rng() % 2 ? base + rng() % span : base + lane * 16;  // scattered or coalesced
      k.runs[lane][0] = lo;
      k.runs[lane][1] = lo + rng() % 40;  // some empty
      if (has) k.has_run |= 1u << lane;
    }
  }
  want = cases;
  for (Case& k : want) {
    std::uint64_t batch[32][2];
    std::uint32_t m = 0;
    for (unsigned lane = 0; lane < 32; ++lane)
      if ((k.has_run >> lane) & 1u) {
        batch[m][0] = k.runs[lane][0];
        batch[m++][1] = k.runs[lane][1];
      }
    raw::add_range_batch(k.ranges, k.range_count, k.ranges_merged, batch, m);
  }
  Case* device = nullptr;
  if (cudaMalloc(&device, n * sizeof(Case)) != cudaSuccess ||
      cudaMemcpy(device, cases.data(), n * sizeof(Case), cudaMemcpyHostToDevice) != cudaSuccess) {
    std::puts("warp_range_merge_test: cudaMalloc/cudaMemcpy failed");
    return 1;
  }
  merge_cases<<<(n + 3) / 4, 128>>>(device, n);
  if (cudaDeviceSynchronize() != cudaSuccess ||
      cudaMemcpy(cases.data(), device, n * sizeof(Case), cudaMemcpyDeviceToHost) != cudaSuccess) {
    std::printf("warp_range_merge_test: kernel failed: %s\n", cudaGetErrorString(cudaGetLastError()));
    return 1;
  }
  int wrong = 0, coarsened = 0;
  for (int c = 0; c < n; ++c) {
    const Case &got = cases[c], &w = want[c];
    coarsened += w.ranges_merged != 0;
    bool same = got.range_count == w.range_count && got.ranges_merged == w.ranges_merged;
    for (std::uint32_t i = 0; same && i < w.range_count; ++i)
      same = got.ranges[i][0] == w.ranges[i][0] && got.ranges[i][1] == w.ranges[i][1];
    if (!same && wrong++ < 3) {
      std::printf("case %d: got %u ranges (merged %llu), want %u (merged %llu)\n", c, got.range_count,
                  static_cast<unsigned long long>(got.ranges_merged), w.range_count,
                  static_cast<unsigned long long>(w.ranges_merged));
      for (std::uint32_t i = 0; i < raw::kRangesPerSite; ++i)
        std::printf("  %2u: got [%llu, %llu) want [%llu, %llu)\n", i,
                    static_cast<unsigned long long>(got.ranges[i][0]), static_cast<unsigned long long>(got.ranges[i][1]),
                    static_cast<unsigned long long>(w.ranges[i][0]), static_cast<unsigned long long>(w.ranges[i][1]));
    }
  }
  std::printf("warp_range_merge_test: %d cases (%d coarsened), %d differ from add_range_batch\n", n, coarsened, wrong);
  return wrong == 0 ? 0 : 1;
}
