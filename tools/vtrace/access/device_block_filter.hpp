// `--blocks` as the device patches apply it: the canonical spec (BlockSampling::str(): "all", "every:N" or
// "a,b-c,...") turned into the fixed-size DeviceBlockFilter of the per-launch buffer header. Header-only and free of
// libcommon, because the preload library (sanitizer_tool.cpp) parses it too; specs that do not fit are left to the
// host's BlockSampling, which filters every run anyway.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "tools/vtrace/access/access_records.hpp"

namespace vtools::vtrace::access {

/// Fills `out` from a canonical spec. False (and `out` keeps every block) for "all", for lists of more than
/// kMaxDeviceBlockRanges ranges, and for anything malformed.
inline bool parse_device_block_filter(std::string_view spec, raw::DeviceBlockFilter& out) {
  out = raw::DeviceBlockFilter{};
  auto number = [](std::string_view text, std::uint64_t& value) {
    if (text.empty() || text.size() > 19 || text.find_first_not_of("0123456789") != std::string_view::npos) return false;
    value = std::strtoull(std::string(text).c_str(), nullptr, 10);
    return true;
  };
  if (spec.rfind("every:", 0) == 0) {
    std::uint64_t every = 0;
    if (!number(spec.substr(6), every) || every == 0) return false;
    out.every = every;
    return true;
  }
  if (spec.empty() || spec == "all") return false;
  raw::DeviceBlockFilter f{};
  while (!spec.empty()) {
    std::size_t comma = spec.find(',');
    std::string_view item = spec.substr(0, comma);
    spec = comma == std::string_view::npos ? std::string_view() : spec.substr(comma + 1);
    std::size_t dash = item.find('-');
    std::uint64_t lo = 0, hi = 0;
    if (!number(item.substr(0, dash), lo)) return false;
    hi = lo;
    if (dash != std::string_view::npos && (!number(item.substr(dash + 1), hi) || hi < lo)) return false;
    if (f.range_count == raw::kMaxDeviceBlockRanges) return false;
    f.ranges[f.range_count][0] = lo;
    f.ranges[f.range_count][1] = hi;
    ++f.range_count;
  }
  out = f;
  return true;
}

/// What the device patch decides for linear block `block` (the host mirror of access_patches.cu's block_kept).
inline bool device_filter_keeps(const raw::DeviceBlockFilter& f, std::uint64_t block) {
  if (f.every) return block % f.every == 0;
  if (!f.range_count) return true;
  for (std::uint64_t i = 0; i < f.range_count && i < raw::kMaxDeviceBlockRanges; ++i)
    if (block >= f.ranges[i][0] && block <= f.ranges[i][1]) return true;
  return false;
}

}  // namespace vtools::vtrace::access
