// doctest main of the gpu-labelled cuda tests: exits 77 (ctest: skipped) when no CUDA device is usable.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cuda_runtime.h>

#include <cstdio>

int main(int argc, char** argv) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess || count == 0) {
    std::printf("skipped: no CUDA device (%s)\n", status != cudaSuccess ? cudaGetErrorString(status) : "count 0");
    return 77;
  }
  doctest::Context context(argc, argv);
  return context.run();
}
