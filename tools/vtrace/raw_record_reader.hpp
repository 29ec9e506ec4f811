// Reads one raw record file (raw_records.hpp) written by the injection library in one traced process.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "tools/vtrace/access/access_records.hpp"
#include "tools/vtrace/raw_records.hpp"

namespace vtools::vtrace::raw {

struct NamedDevice {
  DeviceRecord record;
  std::string name;
};
struct NamedKernel {
  KernelRecord record;
  std::string mangled_name;
};
struct NamedFailedLaunch {
  FailedLaunchRecord record;
  std::string api, kernel;
};

/// The kAccessSite records of one launch, left where they were read (read_capture's `bytes`, which must outlive
/// them): a GPT-2 training step has ~2 M, and unpacking each into a whole AccessSite (376 bytes) at read time
/// doubled the read-back. operator[] unpacks one.
class SiteRecords {
 public:
  void push_back(const char* record) { records_.push_back(record); }
  [[nodiscard]] std::size_t size() const { return records_.size(); }
  [[nodiscard]] bool empty() const { return records_.empty(); }
  [[nodiscard]] AccessSite operator[](std::size_t i) const { return unpack(records_[i]); }
  /// Its allocation start address, without unpacking the rest.
  [[nodiscard]] std::uint64_t allocation(std::size_t i) const;
  /// `record` holds a site record of its range_count (an AccessSite itself does too).
  static AccessSite unpack(const char* record);

 private:
  std::vector<const char*> records_;
};

struct NamedMarker {
  MarkerRecord record;
  std::string name, domain;
};

struct NamedLaunch {
  LaunchRecord record;
  std::string kernel;  ///< as the driver names it (mangled for C++)
  std::string params;  ///< kLaunchParams payload: ParamWord pairs ("" when not recorded)
  SiteRecords sites;                        ///< the kAccessSite records after it
  std::vector<FindingSite> finding_sites;   ///< the kFindingSite records after it
  std::uint64_t module = 0;  ///< kLaunchModule after it: the module it ran from (0 = unknown)
  std::vector<PcSite> pc_sites;          ///< the kPcSites record after it: per instruction (PC offset) counts
  std::uint64_t pc_requests_dropped = 0;  ///< warp requests at PCs past the launch's PC table
  bool pc_table = false;                 ///< a kPcSites record came (the PC table was on)
  /// Recorded with a serial and no kLaunchResult came for it: the process ended before reading its buffer back, so
  /// its sites and findings are missing.
  bool awaiting_result = false;
};

/// Everything one process recorded.
struct Capture {
  ProcessRecord process{};
  std::vector<NamedDevice> devices;
  std::vector<DeviceIdentityRecord> device_identities;
  /// kIdentity: the host name and the launcher variables set in the process ("" and none when not recorded).
  std::string host;
  std::vector<std::pair<std::string, std::string>> launcher_variables;
  std::vector<ClockAnchorRecord> clock_anchors;  ///< in file order: at start, and at a clean end
  std::vector<NamedKernel> kernels;
  std::vector<MemcpyRecord> memcpys;
  std::vector<MemsetRecord> memsets;
  std::vector<MemoryRecord> memory;
  std::vector<NamedFailedLaunch> failed_launches;
  std::vector<std::string> notes;
  std::vector<ProfilerCallRecord> profiler_calls;  ///< in call order
  std::vector<NamedMarker> markers;                ///< NVTX, as CUPTI delivered them
  std::vector<LaunchCallRecord> launch_calls;
  std::vector<ApiCallRecord> api_calls;                              ///< --api, in file order
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::string> api_names;  ///< (domain, cbid) -> function name
  std::vector<NamedLaunch> launches;         ///< access mode
  std::vector<std::string> tma_functions;    ///< access mode: mangled names of loaded functions issuing TMA copies
  /// Mangled name -> code hash of every function of the loaded modules; 0 where one name had different code in two
  /// modules (then a launch cannot say which it ran).
  std::map<std::string, std::uint64_t> function_codes;
  /// Access mode: module number -> its cubin (kModuleImage), for the modules whose launches had findings.
  std::map<std::uint64_t, std::string> module_images;
  /// Access mode: kMemory and kLaunch records in file order, as (tag, index into its vector), so allocations are
  /// replayed against the launches that saw them.
  std::vector<std::pair<Tag, std::size_t>> access_order;
  std::uint64_t dropped = 0;
  bool ended = false;              ///< the library wrote its end record (a clean exit)
  std::uint64_t torn_bytes = 0;    ///< bytes of a record cut short at the end of the file (crash or kill)
};

/// Parses a raw file. Throws Error(kDataError) at `name` for a bad magic, an unknown tag or a record of the wrong
/// size; a torn last record is not an error (it is counted in torn_bytes). The access sites stay in `bytes`: keep it
/// alive as long as the Capture.
Capture read_capture(std::string_view bytes, std::string_view name);

}  // namespace vtools::vtrace::raw
