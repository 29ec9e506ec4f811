// libFuzzer target: --blocks specs are parsed or refused with vtools::Error; accepted ones print back and parse
// to the same canonical form, and where the canonical form fits the device filter, the device keeps what the host
// keeps.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "libcommon/error.hpp"
#include "tools/vtrace/access/block_sampling.hpp"
#include "tools/vtrace/access/device_block_filter.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using vtools::vtrace::access::BlockSampling;
  try {
    BlockSampling s = BlockSampling::parse(std::string_view(reinterpret_cast<const char*>(data), size));
    if (BlockSampling::parse(s.str()).str() != s.str()) std::abort();
    // every:N and lists both keep block 0 only when they say so; "all" keeps everything.
    if (s.str() == "all" && !(s.keeps(0) && s.keeps(UINT64_MAX))) std::abort();
    vtools::vtrace::raw::DeviceBlockFilter f{};
    if (vtools::vtrace::access::parse_device_block_filter(s.str(), f))
      for (std::uint64_t b : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{7}, std::uint64_t{1000}, UINT64_MAX})
        if (vtools::vtrace::access::device_filter_keeps(f, b) != s.keeps(b)) std::abort();
  } catch (const vtools::Error&) {
  }
  return 0;
}
