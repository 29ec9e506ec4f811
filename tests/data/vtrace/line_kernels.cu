// Fixture for tools/vtrace/source_map: kernels whose loads sit on known lines (tests/vtrace/source_map_test.cpp).
// Rebuild (in /tmp/vtools-fixture, the directory the line table names):
//          nvcc -cubin -arch=sm_90 -lineinfo -o line_kernels.cubin line_kernels.cu
//          nvcc -cubin -arch=sm_90 -o line_kernels_noline.cubin line_kernels.cu
__device__ __forceinline__ float twice(const float* p, int i) {
  return 2.0f * p[i];
}

__global__ void offbyone(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i <= n) {
    float v = in[i];
    out[i] = v + 1.0f;
  }
}

__global__ void scaled(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = twice(in, i);
}
