// What a dependency costs between CTAs of one persistent kernel on this GPU, for the persistent-forward design
// (tools/vbench/cuda/README.md): the synchronisations that kernel would use, each timed on the GPU's own clock
// (%globaltimer) over many repetitions, one CTA per SM, all resident at once.
//   handoff:  a token passed CTA 0 -> 1 -> ... -> n-1 -> 0 through a flag per CTA in global memory (st.release.gpu
//             after the work, ld.acquire.gpu polled by the next): one producer-consumer dependency edge per hop.
//   handoff+data: the same, the token's holder first storing 16 KB that the next one reads (through L2) before it
//             passes the token on: an edge that carries a tile; read by per-thread loads (ld.cg), or by one bulk
//             copy into shared memory (cp.async.bulk on an mbarrier, after fence.proxy.async).
//   gather:   every CTA adds 1 to one counter (red.release.gpu), CTA 0 polls it until all have, then releases a
//             go flag that all poll: a grid-wide barrier built from a counter.
//   kernels:  for comparison, a CUDA graph of 100 dependent kernels of one CTA per SM that each only bump a value the
//             one before wrote, launched plainly and as programmatic dependents (griddepcontrol): the cost of a
//             kernel boundary (CUDA events around replays).
// Usage: flag_latency_bench [REPEATS]   (prints one line per measure: ns per hop / per barrier / per kernel)
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

__device__ __forceinline__ unsigned long long now_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
__device__ __forceinline__ unsigned load_acquire(const unsigned* p) {
  unsigned v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ void store_release(unsigned* p, unsigned v) {
  asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ void add_release(unsigned* p, unsigned v) {
  asm volatile("red.release.gpu.global.add.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

constexpr int kThreads = 128;
constexpr int kDataFloats = 4096;  // 16 KB carried per hop by "handoff+data"

/// How a hop hands its tile over: not at all, by per-thread loads, or by a bulk copy.
enum class Carry { kNone, kLoads, kBulk };

/// flags[c]: how many times CTA c has been handed the token (flags[0] starts at 1). Unless carry is kNone, the
/// holder writes tile[0..kDataFloats) and the next holder reads it all (and checks every value) before passing on.
__global__ void handoff_kernel(unsigned* flags, float* tile, int rounds, Carry carry, unsigned long long* ns,
                               unsigned* errors) {
  const int n = gridDim.x, c = blockIdx.x;
  const bool data = carry != Carry::kNone;
  __shared__ unsigned long long start;
  __shared__ alignas(128) float staged[kDataFloats];
  __shared__ alignas(8) unsigned long long landed;  // the bulk copy's mbarrier
  const auto bar = static_cast<unsigned>(__cvta_generic_to_shared(&landed));
  if (threadIdx.x == 0) {
    start = now_ns();
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar) : "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  }
  __syncthreads();
  for (int r = 0; r < rounds; ++r) {
    if (threadIdx.x == 0) {
      while (load_acquire(&flags[c]) < static_cast<unsigned>(r + 1)) {
      }
      if (carry == Carry::kBulk) {  // the tile, written by another SM's plain stores, read by the async proxy (and
        // staged[], read by this CTA's threads last round, written by it)
        asm volatile("fence.proxy.async;" ::: "memory");
        const auto dst = static_cast<unsigned>(__cvta_generic_to_shared(staged));
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(kDataFloats * 4)
                     : "memory");
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                         dst),
                     "l"(tile), "r"(kDataFloats * 4), "r"(bar)
                     : "memory");
      }
    }
    __syncthreads();
    const float stamp = static_cast<float>(r * n + c);
    if (data) {  // every value must be the previous holder's stamp (none before the first hop)
      if (carry == Carry::kBulk) {
        unsigned done = 0;
        while (!done) {
          asm volatile(
              "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}\n"
              : "=r"(done)
              : "r"(bar), "r"(r & 1)
              : "memory");
        }
      }
      unsigned wrong = 0;
      if (carry == Carry::kBulk) {  // two loops, not a select per value: the loads stay in flight together
        for (int i = threadIdx.x; i < kDataFloats; i += kThreads) wrong += (r > 0 || c > 0) && staged[i] != stamp - 1.f;
      } else {
        for (int i = threadIdx.x; i < kDataFloats; i += kThreads) {
          wrong += (r > 0 || c > 0) && __ldcg(&tile[i]) != stamp - 1.f;
        }
      }
      if (wrong != 0) atomicAdd(errors, wrong);
      for (int i = threadIdx.x; i < kDataFloats; i += kThreads) __stcg(&tile[i], stamp);
      __threadfence();
    }
    __syncthreads();
    if (threadIdx.x == 0) {
      const int next = (c + 1) % n;
      store_release(&flags[next], next == 0 ? r + 2 : r + 1);
    }
  }
  if (c == 0 && threadIdx.x == 0) {
    while (load_acquire(&flags[0]) < static_cast<unsigned>(rounds + 1)) {  // the last hop, back to CTA 0
    }
    *ns = now_ns() - start;
  }
}

/// counter: arrivals so far; go: barriers released so far.
__global__ void gather_kernel(unsigned* counter, unsigned* go, int rounds, unsigned long long* ns) {
  const int n = gridDim.x;
  const unsigned long long start = now_ns();
  for (int r = 0; r < rounds; ++r) {
    __syncthreads();
    if (threadIdx.x == 0) {
      add_release(counter, 1u);
      if (blockIdx.x == 0) {
        while (load_acquire(counter) < static_cast<unsigned>(n * (r + 1))) {
        }
        store_release(go, r + 1);
      }
      while (load_acquire(go) < static_cast<unsigned>(r + 1)) {
      }
    }
    __syncthreads();
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) *ns = now_ns() - start;
}

/// One kernel of the chain: each CTA adds 1 to its slot, which the kernel before wrote.
__global__ void step_kernel(unsigned* slots) {
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
  asm volatile("griddepcontrol.wait;" ::: "memory");
  if (threadIdx.x == 0) slots[blockIdx.x] += 1;
}

void check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return;
  std::fprintf(stderr, "flag_latency_bench: error: %s: %s\n", what, cudaGetErrorString(e));
  std::exit(1);
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 200;
  if (rounds < 1) {
    std::fprintf(stderr, "flag_latency_bench: error: REPEATS must be a positive integer\n");
    return 2;
  }
  int sms = 0;
  check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), "cudaDeviceGetAttribute");
  unsigned *flags = nullptr, *errors = nullptr;
  float* tile = nullptr;
  unsigned long long* ns = nullptr;
  check(cudaMalloc(&flags, sizeof(unsigned) * (sms + 2)), "cudaMalloc");
  check(cudaMalloc(&errors, sizeof(unsigned)), "cudaMalloc");
  check(cudaMalloc(&tile, sizeof(float) * kDataFloats), "cudaMalloc");
  check(cudaMalloc(&ns, sizeof(unsigned long long)), "cudaMalloc");
  for (const Carry carry : {Carry::kNone, Carry::kLoads, Carry::kBulk}) {
    for (int rep = 0; rep < 3; ++rep) {  // the first run also loads the module
      check(cudaMemset(flags, 0, sizeof(unsigned) * (sms + 2)), "cudaMemset");
      check(cudaMemset(errors, 0, sizeof(unsigned)), "cudaMemset");
      check(cudaMemset(tile, 0, sizeof(float) * kDataFloats), "cudaMemset");
      const unsigned one = 1;
      check(cudaMemcpy(flags, &one, sizeof one, cudaMemcpyHostToDevice), "cudaMemcpy");
      handoff_kernel<<<sms, kThreads>>>(flags, tile, rounds, carry, ns, errors);
      check(cudaDeviceSynchronize(), "handoff_kernel");
      unsigned long long t = 0;
      unsigned bad = 0;
      check(cudaMemcpy(&t, ns, sizeof t, cudaMemcpyDeviceToHost), "cudaMemcpy");
      check(cudaMemcpy(&bad, errors, sizeof bad, cudaMemcpyDeviceToHost), "cudaMemcpy");
      if (rep == 2) {
        const char* name = carry == Carry::kNone    ? "handoff"
                           : carry == Carry::kLoads ? "handoff+16KB"
                                                    : "handoff+16KB-bulk";
        std::printf("%-17s %4d CTAs x %d rounds: %7.1f ns per hop%s\n", name, sms, rounds,
                    static_cast<double>(t) / (static_cast<double>(sms) * rounds), bad ? "  DATA MISMATCH" : "");
      }
      if (bad) return 1;
    }
  }
  for (int rep = 0; rep < 3; ++rep) {
    check(cudaMemset(flags, 0, sizeof(unsigned) * (sms + 2)), "cudaMemset");
    gather_kernel<<<sms, kThreads>>>(flags, flags + 1, rounds, ns);
    check(cudaDeviceSynchronize(), "gather_kernel");
    unsigned long long t = 0;
    check(cudaMemcpy(&t, ns, sizeof t, cudaMemcpyDeviceToHost), "cudaMemcpy");
    if (rep == 2) {
      std::printf("%-17s %4d CTAs x %d rounds: %7.1f ns per barrier\n", "gather", sms, rounds,
                  static_cast<double>(t) / rounds);
    }
  }
  // A graph of kChain dependent kernels, plain or programmatic: ns per kernel over 20 replays.
  constexpr int kChain = 100;
  cudaStream_t stream = nullptr;
  check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
  for (const bool programmatic : {false, true}) {
    check(cudaMemset(flags, 0, sizeof(unsigned) * (sms + 2)), "cudaMemset");
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
    check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture");
    for (int i = 0; i < kChain; ++i) {
      cudaLaunchConfig_t config = {};
      config.gridDim = dim3(sms);
      config.blockDim = dim3(kThreads);
      config.stream = stream;
      cudaLaunchAttribute attr = {};
      attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
      attr.val.programmaticStreamSerializationAllowed = 1;
      config.attrs = &attr;
      config.numAttrs = programmatic && i > 0 ? 1 : 0;
      check(cudaLaunchKernelEx(&config, step_kernel, flags), "cudaLaunchKernelEx");
    }
    check(cudaStreamEndCapture(stream, &graph), "cudaStreamEndCapture");
    check(cudaGraphInstantiate(&exec, graph, 0), "cudaGraphInstantiate");
    cudaEvent_t begin = nullptr, end = nullptr;
    check(cudaEventCreate(&begin), "cudaEventCreate");
    check(cudaEventCreate(&end), "cudaEventCreate");
    std::vector<float> ms;
    for (int rep = 0; rep < 23; ++rep) {
      check(cudaEventRecord(begin, stream), "cudaEventRecord");
      check(cudaGraphLaunch(exec, stream), "cudaGraphLaunch");
      check(cudaEventRecord(end, stream), "cudaEventRecord");
      check(cudaEventSynchronize(end), "cudaEventSynchronize");
      float t = 0.f;
      check(cudaEventElapsedTime(&t, begin, end), "cudaEventElapsedTime");
      if (rep >= 3) ms.push_back(t);  // three warm-up replays
    }
    std::vector<unsigned> slots(sms);
    check(cudaMemcpy(slots.data(), flags, sizeof(unsigned) * sms, cudaMemcpyDeviceToHost), "cudaMemcpy");
    const bool counted = slots[0] == 23u * kChain && slots[sms - 1] == 23u * kChain;
    std::sort(ms.begin(), ms.end());
    std::printf("%-17s %4d CTAs x %d kernels: %7.1f ns per kernel (median of %zu graph replays)%s\n",
                programmatic ? "kernels+pdl" : "kernels", sms, kChain, 1e6 * ms[ms.size() / 2] / kChain, ms.size(),
                counted ? "" : "  COUNT MISMATCH");
    cudaEventDestroy(begin);
    cudaEventDestroy(end);
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
    if (!counted) return 1;
  }
  return 0;
}
