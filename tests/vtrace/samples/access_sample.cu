// A CUDA program with known global accesses, traced by the access-mode gpu tests of tests/vtrace:
//   vector_add<<<4, 256>>>(a, b, c, 1000)        loads a[i], b[i], stores c[i] for i < 1000 (4000-byte buffers)
//   strided_read<<<1, 32>>>(in, out, 1) and (in, out, 8)   one warp: 4 and 32 sectors per request
//   off_by_one<<<4, 256>>>(a, c, 1000)           reads a[i] for i <= 1000: one load 0 bytes past the end of a
#include <cuda_runtime.h>

#include <cstdio>

__global__ void vector_add(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

__global__ void strided_read(const float* in, float* out, int stride) {
  out[threadIdx.x] = in[threadIdx.x * stride];
}

__global__ void off_by_one(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i <= n) out[i < n ? i : 0] = in[i];
}

int main() {
  const int n = 1000;
  float *d_a, *d_b, *d_c, *d_in, *d_out;
  cudaMalloc(&d_a, n * sizeof(float));
  cudaMalloc(&d_b, n * sizeof(float));
  cudaMalloc(&d_c, n * sizeof(float));
  cudaMalloc(&d_in, 32 * 8 * sizeof(float));
  cudaMalloc(&d_out, 32 * sizeof(float));
  cudaMemset(d_a, 0, n * sizeof(float));
  cudaMemset(d_b, 0, n * sizeof(float));
  cudaMemset(d_in, 0, 32 * 8 * sizeof(float));
  vector_add<<<4, 256>>>(d_a, d_b, d_c, n);
  strided_read<<<1, 32>>>(d_in, d_out, 1);
  strided_read<<<1, 32>>>(d_in, d_out, 8);
  off_by_one<<<4, 256>>>(d_a, d_c, n);
  cudaError_t e = cudaDeviceSynchronize();
  std::printf("access_sample: %s\n", cudaGetErrorString(e));
  return 0;
}
