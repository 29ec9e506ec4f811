#include "tools/vtrace/raw_record_reader.hpp"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "libcommon/error.hpp"

namespace vtools::vtrace::raw {

namespace {

[[noreturn]] void bad(std::string_view name, std::size_t offset, const std::string& what) {
  throw Error(ExitCode::kDataError, "byte " + std::to_string(offset) + ": " + what, SourceLocation{std::string(name)});
}

/// Copies the fixed part of a payload, which must be at least sizeof(T) (exactly, unless a tail is allowed).
template <class T>
T fixed_part(std::string_view payload, bool tail_allowed, std::string_view name, std::size_t offset, const char* what) {
  if (payload.size() < sizeof(T) || (!tail_allowed && payload.size() != sizeof(T)))
    bad(name, offset,
        std::string(what) + " record of " + std::to_string(payload.size()) + " bytes, expected " +
            (tail_allowed ? "at least " : "") + std::to_string(sizeof(T)));
  T out;
  std::memcpy(&out, payload.data(), sizeof(T));
  return out;
}

}  // namespace

AccessSite SiteRecords::unpack(const char* record) {
  AccessSite s{};
  std::memcpy(&s, record, kSiteFixedBytes);
  s.range_count = std::min<std::uint32_t>(s.range_count, kRangesPerSite);
  std::memcpy(&s.ranges, record + kSiteFixedBytes, site_record_bytes(s.range_count) - kSiteFixedBytes);
  return s;
}

std::uint64_t SiteRecords::allocation(std::size_t i) const {
  std::uint64_t start = 0;
  std::memcpy(&start, records_[i] + offsetof(AccessSite, allocation), sizeof start);
  return start;
}

Capture read_capture(std::string_view bytes, std::string_view name) {
  Capture c;
  if (bytes.size() < sizeof kMagic || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0)
    bad(name, 0, "not a vtrace raw record file (bad magic)");
  std::size_t pos = sizeof kMagic;
  bool have_process = false;
  // The launch that site, finding, PC table and module records belong to: the last launch record, or the one the
  // last kLaunchResult named (read back later than it was launched).
  std::size_t target = SIZE_MAX;
  std::unordered_map<std::uint64_t, std::size_t> by_serial;
  while (pos < bytes.size()) {
    if (bytes.size() - pos < sizeof(FrameHeader)) {
      c.torn_bytes = bytes.size() - pos;
      break;
    }
    FrameHeader h;
    std::memcpy(&h, bytes.data() + pos, sizeof h);
    if (bytes.size() - pos - sizeof h < h.bytes) {
      c.torn_bytes = bytes.size() - pos;
      break;
    }
    std::string_view payload = bytes.substr(pos + sizeof h, h.bytes);
    std::size_t at = pos;
    pos += sizeof h + h.bytes;
    auto tail = [&](std::size_t fixed) { return std::string(payload.substr(fixed)); };
    // A tail of two strings split by a NUL ("api\0kernel", "name\0domain"); no NUL: all of it is the first.
    auto two_strings = [&](std::size_t fixed) {
      const std::string rest = tail(fixed);
      const auto nul = rest.find('\0');
      return std::pair<std::string, std::string>(rest.substr(0, nul),
                                                 nul == std::string::npos ? "" : rest.substr(nul + 1));
    };
    switch (static_cast<Tag>(h.tag)) {
      case Tag::kProcess:
        c.process = fixed_part<ProcessRecord>(payload, false, name, at, "process");
        have_process = true;
        break;
      case Tag::kDevice:
        c.devices.push_back({fixed_part<DeviceRecord>(payload, true, name, at, "device"), tail(sizeof(DeviceRecord))});
        break;
      case Tag::kIdentity: {
        // "host\0KEY=VALUE\0...": a part without '=' is refused, so a torn or foreign payload is not half-read.
        std::string_view rest = payload;
        std::size_t nul = rest.find('\0');
        c.host = std::string(rest.substr(0, nul));
        c.launcher_variables.clear();
        while (nul != std::string_view::npos) {
          rest = rest.substr(nul + 1);
          nul = rest.find('\0');
          const std::string_view part = rest.substr(0, nul);
          const std::size_t eq = part.find('=');
          if (eq == std::string_view::npos || eq == 0)
            bad(name, at, "identity record: expected KEY=VALUE, got '" + std::string(part) + "'");
          c.launcher_variables.emplace_back(std::string(part.substr(0, eq)), std::string(part.substr(eq + 1)));
        }
        break;
      }
      case Tag::kClockAnchor:
        c.clock_anchors.push_back(fixed_part<ClockAnchorRecord>(payload, false, name, at, "clock anchor"));
        if (c.clock_anchors.back().clock > kClockMonotonic)
          bad(name, at, "clock anchor of unknown clock " + std::to_string(c.clock_anchors.back().clock));
        break;
      case Tag::kDeviceIdentity:
        c.device_identities.push_back(fixed_part<DeviceIdentityRecord>(payload, false, name, at, "device identity"));
        break;
      case Tag::kKernel:
        c.kernels.push_back({fixed_part<KernelRecord>(payload, true, name, at, "kernel"), tail(sizeof(KernelRecord))});
        break;
      case Tag::kMemcpy:
        c.memcpys.push_back(fixed_part<MemcpyRecord>(payload, false, name, at, "memcpy"));
        break;
      case Tag::kMemset:
        c.memsets.push_back(fixed_part<MemsetRecord>(payload, false, name, at, "memset"));
        break;
      case Tag::kMemory:
        c.memory.push_back(fixed_part<MemoryRecord>(payload, false, name, at, "memory"));
        c.access_order.emplace_back(Tag::kMemory, c.memory.size() - 1);
        break;
      case Tag::kLaunch:
        c.launches.emplace_back();
        c.launches.back().record = fixed_part<LaunchRecord>(payload, true, name, at, "launch");
        c.launches.back().kernel = tail(sizeof(LaunchRecord));
        c.access_order.emplace_back(Tag::kLaunch, c.launches.size() - 1);
        target = c.launches.size() - 1;
        if (const std::uint32_t serial = c.launches.back().record.serial; serial != 0) {
          if (!c.launches.back().record.recorded) bad(name, at, "a launch left out with serial " + std::to_string(serial));
          if (!by_serial.emplace(serial, target).second)
            bad(name, at, "a second launch record with serial " + std::to_string(serial));
          c.launches.back().awaiting_result = true;
        }
        break;
      case Tag::kLaunchResult: {
        const auto r = fixed_part<LaunchResultRecord>(payload, false, name, at, "launch result");
        auto it = by_serial.find(r.serial);
        if (it == by_serial.end()) bad(name, at, "a launch result for serial " + std::to_string(r.serial) + ", which no launch record has");
        NamedLaunch& l = c.launches[it->second];
        if (!l.awaiting_result) bad(name, at, "a second launch result for serial " + std::to_string(r.serial));
        l.awaiting_result = false;
        l.record.sites = r.sites;
        l.record.requests_dropped = r.requests_dropped;
        l.record.findings = r.findings;
        l.record.findings_unsited = r.findings_unsited;
        target = it->second;
        break;
      }
      case Tag::kLaunchParams:
        if (c.launches.empty()) bad(name, at, "a launch parameter record before any launch record");
        if (payload.size() % sizeof(ParamWord) != 0)
          bad(name, at, "launch parameter record of " + std::to_string(payload.size()) + " bytes, expected a multiple of " +
                            std::to_string(sizeof(ParamWord)));
        c.launches.back().params = std::string(payload);
        break;
      case Tag::kAccessSite: {
        if (target == SIZE_MAX) bad(name, at, "an access site record before any launch record");
        if (payload.size() < kSiteFixedBytes)
          bad(name, at, "access site record of " + std::to_string(payload.size()) + " bytes, expected at least " +
                            std::to_string(kSiteFixedBytes));
        std::uint32_t range_count = 0;
        std::memcpy(&range_count, payload.data() + offsetof(AccessSite, range_count), sizeof range_count);
        if (range_count > kRangesPerSite)
          bad(name, at, "access site with " + std::to_string(range_count) + " ranges, at most " +
                            std::to_string(kRangesPerSite));
        if (payload.size() != site_record_bytes(range_count))
          bad(name, at, "access site record of " + std::to_string(payload.size()) + " bytes for " +
                            std::to_string(range_count) + " ranges, expected " +
                            std::to_string(site_record_bytes(range_count)));
        c.launches[target].sites.push_back(payload.data());
        break;
      }
      case Tag::kTmaFunction:
        c.tma_functions.emplace_back(payload);
        break;
      case Tag::kFunctionCode: {
        const auto code = fixed_part<FunctionCodeRecord>(payload, true, name, at, "function code");
        auto [it, fresh] = c.function_codes.try_emplace(tail(sizeof(FunctionCodeRecord)), code.hash);
        if (!fresh && it->second != code.hash) it->second = 0;  // one name, two codes: unknown per launch
        break;
      }
      case Tag::kFindingSite:
        if (target == SIZE_MAX) bad(name, at, "a finding site record before any launch record");
        c.launches[target].finding_sites.push_back(fixed_part<FindingSite>(payload, false, name, at, "finding site"));
        break;
      case Tag::kPcSites: {
        if (target == SIZE_MAX) bad(name, at, "a PC table record before any launch record");
        const auto table = fixed_part<PcTableRecord>(payload, true, name, at, "PC table");
        const std::size_t rest = payload.size() - sizeof(PcTableRecord);
        if (rest % sizeof(PcSite) != 0 || rest / sizeof(PcSite) != table.pcs)
          bad(name, at, "PC table record of " + std::to_string(payload.size()) + " bytes for " +
                            std::to_string(table.pcs) + " PCs, expected " + std::to_string(sizeof(PcTableRecord)) +
                            " + " + std::to_string(sizeof(PcSite)) + " per PC");
        NamedLaunch& l = c.launches[target];
        l.pc_table = true;
        l.pc_requests_dropped += table.requests_dropped;
        const std::size_t first = l.pc_sites.size();
        l.pc_sites.resize(first + table.pcs);
        if (table.pcs) std::memcpy(&l.pc_sites[first], payload.data() + sizeof(PcTableRecord), rest);
        for (std::size_t i = first; i < l.pc_sites.size(); ++i)
          if (l.pc_sites[i].operation > 4)
            bad(name, at, "PC table entry with operation " + std::to_string(l.pc_sites[i].operation) +
                              ", expected 0 to 4");
        break;
      }
      case Tag::kModuleImage: {
        const auto m = fixed_part<ModuleRecord>(payload, true, name, at, "module image");
        if (m.module == 0) bad(name, at, "module image record for module 0");
        c.module_images[m.module] = tail(sizeof(ModuleRecord));
        break;
      }
      case Tag::kLaunchModule:
        if (target == SIZE_MAX) bad(name, at, "a launch module record before any launch record");
        c.launches[target].module = fixed_part<ModuleRecord>(payload, false, name, at, "launch module").module;
        break;
      case Tag::kFailedLaunch: {
        NamedFailedLaunch f{fixed_part<FailedLaunchRecord>(payload, true, name, at, "failed launch"), "", ""};
        std::tie(f.api, f.kernel) = two_strings(sizeof(FailedLaunchRecord));
        c.failed_launches.push_back(std::move(f));
        break;
      }
      case Tag::kProfilerCall:
        c.profiler_calls.push_back(fixed_part<ProfilerCallRecord>(payload, false, name, at, "profiler call"));
        break;
      case Tag::kMarker: {
        NamedMarker m{fixed_part<MarkerRecord>(payload, true, name, at, "marker"), "", ""};
        std::tie(m.name, m.domain) = two_strings(sizeof(MarkerRecord));
        c.markers.push_back(std::move(m));
        break;
      }
      case Tag::kLaunchCall:
        c.launch_calls.push_back(fixed_part<LaunchCallRecord>(payload, false, name, at, "launch call"));
        break;
      case Tag::kApiName: {
        const auto n = fixed_part<ApiNameRecord>(payload, true, name, at, "API name");
        c.api_names[{n.domain, n.cbid}] = tail(sizeof(ApiNameRecord));
        break;
      }
      case Tag::kApiCall:
        c.api_calls.push_back(fixed_part<ApiCallRecord>(payload, false, name, at, "API call"));
        break;
      case Tag::kDropped:
        c.dropped += fixed_part<DroppedRecord>(payload, false, name, at, "dropped").count;
        break;
      case Tag::kNote:
        c.notes.emplace_back(payload);
        break;
      case Tag::kEnd:
        fixed_part<EndRecord>(payload, false, name, at, "end");
        c.ended = true;
        break;
      default:
        bad(name, at, "unknown record tag " + std::to_string(h.tag));
    }
    if (!have_process) bad(name, at, "the first record is not a process record");
  }
  return c;
}

}  // namespace vtools::vtrace::raw
