// What the fused steps' sequence hand-over would cost inside one kernel, for the design in bench/RESULTS.md (session
// 22/23 leads): a thread-block cluster per sequence (16 CTAs of 4 rows at T = 64, a non-portable cluster size), each
// CTA pushing its rows' k and v into the shared memory of the CTAs after it (DSMEM stores), then a cluster barrier,
// against what the kernels do today: after the kernel boundary each CTA bulk-copies its sequence's q, k, v rows up to
// its own from L2 (the "early copy", ~820 cycles in the first CTA of a sequence and ~3,000 in the last in session
// 22's timeline). CTAs of 512 threads with ~200 KB of shared memory (one per SM, as the fused steps), B = 4
// sequences; times from %globaltimer, over many repetitions.
//   barrier:  barrier.cluster arrive (release) + wait (acquire), nothing else: ns per barrier.
//   push:     each CTA stores its 4 rows of ROW floats into every later CTA's buffer (16-byte DSMEM stores, double
//             buffered by parity), then the barrier; every CTA checks what it received: ns per exchange.
//   early:    a kernel writes the [B*T][3C] q, k, v rows; the next kernel's CTAs copy their sequence's rows up to
//             their own into shared memory by one bulk copy and wait for it: ns from issue to landed, first and last
//             CTA of a sequence (means over the repetitions).
// Prints how many clusters of each size fit at once (cudaOccupancyMaxActiveClusters) first.
// Usage: cluster_latency_bench [C]   (C: the width, 48 = gpt_nano; ROW = 2C for the push, 3C floats a row for early)
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

namespace cg = cooperative_groups;

namespace {

constexpr int kThreads = 512;
constexpr int kRows = 4;             // rows per CTA
constexpr int kSequences = 4;        // B
constexpr int kSmemBytes = 200 * 1024;  // one CTA per SM, as the fused steps
constexpr int kReps = 2000;

__device__ __forceinline__ unsigned long long now_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__device__ __forceinline__ float value(int rep, int row, int col) {
  return static_cast<float>(rep * 7 + row * 131 + col);
}

/// push == false: barriers only. Buffers: [2 parities][T rows][row] floats at the start of shared memory.
__global__ void cluster_kernel(bool push, int row, unsigned long long* ns, unsigned* errors) {
  extern __shared__ float4 smem[];
  float* const buf = reinterpret_cast<float*>(smem);
  cg::cluster_group cluster = cg::this_cluster();
  const int rank = static_cast<int>(cluster.block_rank()), n = static_cast<int>(cluster.num_blocks());
  const int T = kRows * n, vec = kRows * row / 4;  // float4s of this CTA's rows
  cluster.sync();
  const unsigned long long t0 = now_ns();
  unsigned bad = 0;
  for (int rep = 0; rep < kReps; ++rep) {
    if (push) {
      const int parity = rep & 1;
      for (int j = threadIdx.x; j < (n - rank) * vec; j += kThreads) {  // (destination, float4) pairs
        const int dst = rank + j / vec, i = j % vec;
        float4* const remote =
            reinterpret_cast<float4*>(cluster.map_shared_rank(buf + (parity * T + kRows * rank) * row, dst));
        const int r = kRows * rank + 4 * i / row, c = 4 * i % row;
        remote[i] = make_float4(value(rep, r, c), value(rep, r, c + 1), value(rep, r, c + 2), value(rep, r, c + 3));
      }
      cluster.sync();
      // One value per thread of the rows received (all earlier CTAs' and this one's).
      const int r = threadIdx.x % (kRows * (rank + 1)), c = threadIdx.x % row;
      bad += buf[(parity * T + r) * row + c] != value(rep, r, c);
    } else {
      cluster.sync();
    }
  }
  const unsigned long long t1 = now_ns();
  if (bad) atomicAdd(errors, bad);
  if (blockIdx.x == 0 && threadIdx.x == 0) *ns = (t1 - t0) / kReps;
}

__global__ void write_rows_kernel(float* qkv, int n_floats, int rep) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n_floats; i += gridDim.x * blockDim.x) qkv[i] = rep + i;
}

/// Each CTA (kRows rows of a sequence of T) copies rows [sequence start, its last row] of qkv (3C floats each).
__global__ void early_copy_kernel(const float* qkv, int T, int C, unsigned long long* ns_first,
                                  unsigned long long* ns_last) {
  extern __shared__ float4 smem[];
  __shared__ alignas(8) unsigned long long landed;
  const int row0 = blockIdx.x * kRows, key_lo = row0 / T * T;
  const unsigned bytes = static_cast<unsigned>((row0 + kRows - key_lo) * 3 * C * sizeof(float));
  const auto bar = static_cast<unsigned>(__cvta_generic_to_shared(&landed));
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar) : "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    const unsigned long long t0 = now_ns();
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
    asm volatile(
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
            static_cast<unsigned>(__cvta_generic_to_shared(smem))),
        "l"(qkv + static_cast<long long>(key_lo) * 3 * C), "r"(bytes), "r"(bar)
        : "memory");
    unsigned done = 0;
    while (!done) {
      asm volatile(
          "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0; selp.u32 %0, 1, 0, p; }"
          : "=r"(done)
          : "r"(bar)
          : "memory");
    }
    const unsigned long long t = now_ns() - t0;
    if (row0 % T == 0) atomicAdd(ns_first, t);
    if (row0 % T == T - kRows) atomicAdd(ns_last, t);
  }
}

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "cluster_latency_bench: %s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const int C = argc > 1 ? std::atoi(argv[1]) : 48;
  if (C <= 0 || C % 4 != 0) {
    std::fprintf(stderr, "cluster_latency_bench: error: C must be a positive multiple of 4\n");
    return 2;
  }
  check(cudaFuncSetAttribute(cluster_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes), "attribute");
  check(cudaFuncSetAttribute(cluster_kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1), "attribute");
  check(cudaFuncSetAttribute(early_copy_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes),
        "attribute");
  unsigned long long* ns = nullptr;
  unsigned* errors = nullptr;
  check(cudaMalloc(&ns, 2 * sizeof(unsigned long long)), "cudaMalloc");
  check(cudaMalloc(&errors, sizeof(unsigned)), "cudaMalloc");
  for (const int n : {16, 8}) {
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(n * kSequences);
    config.blockDim = dim3(kThreads);
    config.dynamicSmemBytes = kSmemBytes;
    cudaLaunchAttribute attr = {};
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = n, attr.val.clusterDim.y = 1, attr.val.clusterDim.z = 1;
    config.attrs = &attr;
    config.numAttrs = 1;
    int clusters = 0;
    check(cudaOccupancyMaxActiveClusters(&clusters, cluster_kernel, &config), "cudaOccupancyMaxActiveClusters");
    std::printf("clusters of %2d CTAs (%d threads, %d KB shared memory each) that fit at once: %d\n", n, kThreads,
                kSmemBytes / 1024, clusters);
    if (clusters < kSequences) continue;
    for (const bool push : {false, true}) {
      for (int rep = 0; rep < 3; ++rep) {
        check(cudaMemset(errors, 0, sizeof(unsigned)), "cudaMemset");
        check(cudaLaunchKernelEx(&config, cluster_kernel, push, 2 * C, ns, errors), "cudaLaunchKernelEx");
        check(cudaDeviceSynchronize(), "cluster_kernel");
        unsigned long long t = 0;
        unsigned bad = 0;
        check(cudaMemcpy(&t, ns, sizeof t, cudaMemcpyDeviceToHost), "cudaMemcpy");
        check(cudaMemcpy(&bad, errors, sizeof bad, cudaMemcpyDeviceToHost), "cudaMemcpy");
        if (rep == 2 || bad) {
          std::printf("  %-8s T = %3d, %2d rows of %3d floats per CTA pushed: %7llu ns per %s%s\n",
                      push ? "push" : "barrier", kRows * n, kRows, push ? 2 * C : 0, t,
                      push ? "exchange + barrier" : "barrier", bad ? "  DATA MISMATCH" : "");
        }
        if (bad) return 1;
      }
    }
  }
  // The early copy after a kernel boundary, T = 64.
  const int T = 64, rows = kSequences * T;
  float* qkv = nullptr;
  check(cudaMalloc(&qkv, static_cast<size_t>(rows) * 3 * C * sizeof(float)), "cudaMalloc");
  check(cudaMemset(ns, 0, 2 * sizeof(unsigned long long)), "cudaMemset");
  constexpr int kCopies = 200;
  for (int rep = 0; rep < kCopies; ++rep) {
    write_rows_kernel<<<64, 256>>>(qkv, rows * 3 * C, rep);
    early_copy_kernel<<<rows / kRows, kThreads, kSmemBytes>>>(qkv, T, C, ns, ns + 1);
  }
  check(cudaDeviceSynchronize(), "early_copy_kernel");
  unsigned long long t[2] = {};
  check(cudaMemcpy(t, ns, sizeof t, cudaMemcpyDeviceToHost), "cudaMemcpy");
  std::printf("  early    T = %3d, rows of %3d floats from L2: first CTA (%d rows) %7.1f ns, last CTA (%d rows) "
              "%7.1f ns\n",
              T, 3 * C, kRows, static_cast<double>(t[0]) / (kCopies * kSequences), T,
              static_cast<double>(t[1]) / (kCopies * kSequences));
  return 0;
}
