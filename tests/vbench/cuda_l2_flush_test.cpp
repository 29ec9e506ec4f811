// cuda::l2_flush (`vbench run --caches cold`): after it, a buffer read before, or prefetched into L2 marked
// evict-last as the LM head's weights are, is read from device memory again. Told by time, with a wide margin: a read
// of half of L2 from L2 against one from HBM (gpu label).
#include <doctest/doctest.h>

#include <cuda_runtime.h>

#include <cstddef>
#include <functional>
#include <vector>

#include "libcommon/stats.hpp"
#include "tools/vbench/cuda/cuda_error.hpp"
#include "tools/vbench/cuda/device_buffer.hpp"
#include "tools/vbench/ops/l2_flush.hpp"
#include "tools/vbench/ops/l2_prefetch.hpp"

namespace vtools::vbench {
namespace {

using cuda::check_cuda;

/// Median ms of `reps` reads of `bytes` at d_data, each after `before` (not timed) on `stream`.
double median_read_ms(const std::function<void()>& before, const void* d_data, std::size_t bytes, unsigned* d_sink,
                      cudaStream_t stream, int reps = 15) {
  cudaEvent_t start = nullptr, stop = nullptr;
  check_cuda(cudaEventCreate(&start), "cudaEventCreate");
  check_cuda(cudaEventCreate(&stop), "cudaEventCreate");
  std::vector<double> ms;
  for (int i = 0; i < reps; ++i) {
    before();
    check_cuda(cudaEventRecord(start, stream), "cudaEventRecord");
    cuda::l2_read(d_data, bytes, d_sink, stream);
    check_cuda(cudaEventRecord(stop, stream), "cudaEventRecord");
    check_cuda(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float t = 0;
    check_cuda(cudaEventElapsedTime(&t, start, stop), "cudaEventElapsedTime");
    ms.push_back(t);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return stats::median(ms);
}

TEST_CASE("l2_flush: what was read, and what was prefetched evict-last, comes from device memory after it") {
  const std::size_t flush_bytes = cuda::l2_flush_bytes();
  const std::size_t bytes = flush_bytes / 4;  // half of L2
  cuda::DeviceBuffer data(bytes, "data"), flush(flush_bytes, "flush buffer"), sink(sizeof(unsigned), "sink");
  check_cuda(cudaMemset(data.get(), 0, bytes), "cudaMemset");
  check_cuda(cudaMemset(flush.get(), 0, flush_bytes), "cudaMemset");
  check_cuda(cudaMemset(sink.get(), 0, sizeof(unsigned)), "cudaMemset");
  cudaStream_t stream = nullptr;
  check_cuda(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
  auto* d_sink = sink.as<unsigned>();
  auto read_data = [&] { cuda::l2_read(data.get(), bytes, d_sink, stream); };
  auto flush_l2 = [&] { cuda::l2_flush(flush.get(), flush_bytes, d_sink, stream); };

  const double warm = median_read_ms(read_data, data.get(), bytes, d_sink, stream);
  const double flushed = median_read_ms([&] { read_data(); flush_l2(); }, data.get(), bytes, d_sink, stream);
  const double prefetched_flushed = median_read_ms([&] {
    cuda::l2_prefetch(data.get(), bytes, stream);
    read_data();
    flush_l2();
  }, data.get(), bytes, d_sink, stream);
  // For the record: a plain read of the flush buffer instead (what an L2 flush by reading alone would leave).
  const double prefetched_plain = median_read_ms([&] {
    cuda::l2_prefetch(data.get(), bytes, stream);
    read_data();
    cuda::l2_read(flush.get(), flush_bytes, d_sink, stream);
  }, data.get(), bytes, d_sink, stream);
  MESSAGE("read of " << bytes / (1 << 20) << " MiB, median ms: warm " << warm << ", after l2_flush " << flushed
                     << ", prefetched evict-last then l2_flush " << prefetched_flushed
                     << ", prefetched evict-last then a plain read of " << flush_bytes / (1 << 20) << " MiB "
                     << prefetched_plain);
  CHECK(flushed > 1.3 * warm);
  CHECK(prefetched_flushed > 1.3 * warm);
  unsigned written = 1;
  check_cuda(cudaMemcpy(&written, d_sink, sizeof written, cudaMemcpyDeviceToHost), "cudaMemcpy");
  CHECK(written == 0);  // zeros never give the sink's value: the reads wrote nothing
  cudaStreamDestroy(stream);
}

}  // namespace
}  // namespace vtools::vbench
