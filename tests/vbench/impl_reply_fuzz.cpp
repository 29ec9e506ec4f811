// libFuzzer target: the --impl protocol's readers (impl_protocol): a reply checked against a fixed request (2
// repetitions of at least 3 samples), and the same bytes as a request. Only vtools::Error may escape them.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "libcommon/error.hpp"
#include "tools/vbench/impl_protocol.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  vtools::vbench::ImplRequest request;
  request.config.vocab_size = 37;
  request.batch_size = 2;
  request.seq_len = 5;
  request.iters = 3;
  request.repetitions = 2;
  try {
    (void)vtools::vbench::parse_impl_reply(text, "fuzz", request);
  } catch (const vtools::Error&) {
  }
  try {
    (void)vtools::vbench::parse_impl_request(text, "fuzz");
  } catch (const vtools::Error&) {
  }
  return 0;
}
