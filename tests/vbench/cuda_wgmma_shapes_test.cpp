// The shapes the own wgmma kernels take (ops/wgmma_gemm.hpp) and the error for the others: host logic only, so
// this runs on every machine (unit label); the kernels themselves are in cuda_wgmma_gemm_test.cpp (gpu label).
#include <doctest/doctest.h>

#include "libcommon/error.hpp"
#include "tools/vbench/ops/wgmma_gemm.hpp"

namespace vtools::vbench {
namespace {

TEST_CASE("wgmma GEMM: the shapes it takes, and an error for the others") {
  const cuda::WgmmaTiling plain{128, 1, 1}, wide{128, 2, 1}, tall{64, 1, 4};
  CHECK(cuda::wgmma_gemm_takes({256, 2304, 768}, plain));
  CHECK(cuda::wgmma_gemm_takes({1, 128, 8}, plain));
  CHECK_FALSE(cuda::wgmma_gemm_takes({256, 2304, 768, true}, plain));  // W must be [K][N] (given transposed)
  CHECK_FALSE(cuda::wgmma_gemm_takes({256, 192, 768}, plain));         // N not a multiple of 128
  CHECK_FALSE(cuda::wgmma_gemm_takes({256, 384, 768}, wide));          // 3 column tiles: not pairs
  CHECK_FALSE(cuda::wgmma_gemm_takes({256, 256, 100}, plain));         // K not a multiple of 8
  CHECK_FALSE(cuda::wgmma_gemm_takes({256, 256, 768, false, 5}, plain));
  CHECK_FALSE(cuda::wgmma_gemm_takes({256, 256, 960, false, 2}, plain));  // 480 per split: not whole 64-wide tiles
  CHECK(cuda::wgmma_gemm_takes({256, 64, 768}, tall));
  CHECK_FALSE(cuda::wgmma_gemm_takes({192, 64, 768}, tall));  // 3 row blocks: not a group of 4
  CHECK_FALSE(cuda::wgmma_gemm_takes({256, 256, 768}, {96, 1, 1}));
  CHECK(cuda::wgmma_tiling_name(tall) == "64x1x4");
  CHECK(cuda::wgmma_gemm_takes({256, 64, 768}, {64, 1, 1}));
  CHECK_FALSE(cuda::wgmma_gemm_takes({256, 256, 768}, {64, 2, 1}));  // not an instantiated tiling
  try {
    cuda::wgmma_gemm_forward({256, 192, 768}, cuda::Epilogue::kNone, plain, nullptr, nullptr, nullptr, nullptr,
                             nullptr);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == ExitCode::kInternal);
  }
}

TEST_CASE("wgmma GEMM with the residual add and layer norm: the shapes it takes") {
  CHECK(cuda::wgmma_residual_layernorm_takes({256, 768, 768}, 128));
  CHECK(cuda::wgmma_residual_layernorm_takes({1, 128, 8}, 128));
  CHECK_FALSE(cuda::wgmma_residual_layernorm_takes({256, 1152, 768}, 128));  // 9 CTAs: over the portable size
  CHECK(cuda::wgmma_residual_layernorm_takes({256, 1024, 768}, 64));         // 16 CTAs of 64
  CHECK_FALSE(cuda::wgmma_residual_layernorm_takes({256, 1088, 768}, 64));   // 17
  CHECK_FALSE(cuda::wgmma_residual_layernorm_takes({256, 192, 768}, 128));
  CHECK_FALSE(cuda::wgmma_residual_layernorm_takes({256, 768, 768, false, 2}, 128));  // no split-K
  CHECK_FALSE(cuda::wgmma_residual_layernorm_takes({256, 768, 768, true}, 128));
  CHECK_FALSE(cuda::wgmma_residual_layernorm_takes({256, 768, 100}, 128));
  CHECK_FALSE(cuda::wgmma_residual_layernorm_takes({256, 768, 768}, 96));
  try {
    cuda::wgmma_residual_layernorm_forward({256, 192, 768}, 128, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
                                           nullptr, nullptr);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == ExitCode::kInternal);
  }
}

}  // namespace
}  // namespace vtools::vbench
