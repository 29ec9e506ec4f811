// A CUDA program with known kernels, grids and launch counts, traced by the gpu tests of tests/vtrace:
//   fill<<<4, 256>>>          x3   (n = 1000 floats)
//   scale2d<<<(8,4), (16,16), 1024 B dynamic smem>>>  x1
//   one 4000-byte htod copy, one memset, one 4000-byte dtoh copy.
// Mode (argv[1]): ok (exit 0, prints "launch_sample: done"), exit3 (exit 3 after the work), abort (abort() after the
// work, before any flush), badlaunch (also a launch with 2048 threads per block, which fails), nocuda (no CUDA call),
// ranges (the same work with cudaProfilerStart/Stop around the second fill and scale2d, and a start with no stop
// before the dtoh copy: --capture-range cudaProfilerApi keeps those three; and NVTX: a range "fills" pushed around
// the three fills, a mark "after fills" after them, and a range "copy back" in domain "sample" around the dtoh copy).
#include <cuda_profiler_api.h>
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

__global__ void fill(float* out, int n, float value) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = value;
}

__global__ void scale2d(float* data, int width, int height) {
  extern __shared__ float tile[];
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  tile[threadIdx.y * blockDim.x + threadIdx.x] = 0;
  if (x < width && y < height) data[y * width + x] *= 2.0f;
}

static int check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) std::fprintf(stderr, "launch_sample: %s: %s\n", what, cudaGetErrorString(e));
  return e == cudaSuccess ? 0 : 1;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "ok";
  if (std::strcmp(mode, "nocuda") == 0) {
    std::printf("launch_sample: no CUDA\n");
    return 0;
  }
  const int n = 1000;
  float host[n];
  for (int i = 0; i < n; ++i) host[i] = static_cast<float>(i);
  float *d_a = nullptr, *d_b = nullptr;
  if (check(cudaMalloc(&d_a, n * sizeof(float)), "cudaMalloc") || check(cudaMalloc(&d_b, 128 * 32 * sizeof(float)), "cudaMalloc"))
    return 1;
  check(cudaMemcpy(d_a, host, n * sizeof(float), cudaMemcpyHostToDevice), "htod");
  check(cudaMemset(d_b, 0, 128 * 32 * sizeof(float)), "memset");
  const bool ranges = std::strcmp(mode, "ranges") == 0;
  if (ranges) nvtxRangePushA("fills");
  for (int i = 0; i < 3; ++i) {
    if (ranges && i == 1) check(cudaProfilerStart(), "cudaProfilerStart");
    fill<<<4, 256>>>(d_a, n, 1.0f + i);
    if (i == 1) scale2d<<<dim3(8, 4), dim3(16, 16), 1024>>>(d_b, 128, 32);
    if (ranges && i == 1) check(cudaProfilerStop(), "cudaProfilerStop");
  }
  if (ranges) {
    nvtxRangePop();
    nvtxMarkA("after fills");
  }
  if (std::strcmp(mode, "badlaunch") == 0) {
    fill<<<1, 2048>>>(d_a, n, 0.0f);
    std::fprintf(stderr, "launch_sample: bad launch: %s\n", cudaGetErrorString(cudaGetLastError()));
  }
  if (ranges) check(cudaProfilerStart(), "cudaProfilerStart");  // no stop: the range runs to the exit
  nvtxDomainHandle_t domain = ranges ? nvtxDomainCreateA("sample") : nullptr;
  nvtxEventAttributes_t copy_back{};
  copy_back.version = NVTX_VERSION;
  copy_back.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  copy_back.messageType = NVTX_MESSAGE_TYPE_ASCII;
  copy_back.message.ascii = "copy back";
  if (ranges) nvtxDomainRangePushEx(domain, &copy_back);
  check(cudaMemcpy(host, d_a, n * sizeof(float), cudaMemcpyDeviceToHost), "dtoh");
  if (ranges) nvtxDomainRangePop(domain);
  check(cudaDeviceSynchronize(), "synchronize");
  if (std::strcmp(mode, "abort") == 0) std::abort();
  cudaFree(d_a);
  cudaFree(d_b);
  std::printf("launch_sample: done %g\n", host[n - 1]);
  if (std::strcmp(mode, "exit3") == 0) std::exit(3);
  return 0;
}
