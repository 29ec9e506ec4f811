#include "tools/vbench/cuda/l2_reset.hpp"

#include <cstddef>

#include "tools/vbench/cuda/cuda_error.hpp"
#include "tools/vbench/ops/l2_flush.hpp"

namespace vtools::vbench::cuda {

void L2Reset::allocate() {
  if (buffer_.bytes() != 0) return;
  buffer_ = DeviceBuffer(l2_flush_bytes() + sizeof(unsigned), "the L2 flush buffer");
  check_cuda(cudaMemset(buffer_.get(), 0, buffer_.bytes()), "cudaMemset", "the L2 flush buffer");
}

void L2Reset::enqueue(cudaStream_t stream) const {
  const std::size_t bytes = buffer_.bytes() - sizeof(unsigned);  // the sink is the last word
  l2_flush(buffer_.get(), bytes, reinterpret_cast<unsigned*>(buffer_.as<char>() + bytes), stream);
}

void L2Reset::run(cudaStream_t stream) const {
  enqueue(stream);
  check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize", "the L2 flush");
}

}  // namespace vtools::vbench::cuda
