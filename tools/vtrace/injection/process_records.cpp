#include "tools/vtrace/injection/process_records.hpp"

#include <cuda.h>
#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <ctime>

#include "tools/vtrace/process_identity.hpp"

namespace vtools::vtrace::injection {

namespace {

std::int64_t realtime_ns() noexcept {
  timespec t{};
  clock_gettime(CLOCK_REALTIME, &t);
  return t.tv_sec * 1000000000LL + t.tv_nsec;
}

}  // namespace

std::string identity_bytes() {
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  std::string out = host;
  for (const char* key : kRankVariables) {
    if (const char* v = std::getenv(key)) {
      out.push_back('\0');
      out += key;
      out.push_back('=');
      out += v;
    }
  }
  return out;
}

raw::ClockAnchorRecord clock_anchor(std::uint32_t clock, std::uint64_t (*read_clock)()) noexcept {
  raw::ClockAnchorRecord best{0, 0, UINT64_MAX, clock};
  for (int i = 0; i < 5; ++i) {
    const std::int64_t b = realtime_ns();
    const std::uint64_t t = read_clock();
    const std::int64_t a = realtime_ns();
    const auto half = static_cast<std::uint64_t>(a > b ? a - b : 0) / 2 + 1;
    if (half < best.half_window_ns) best = {t, b + (a - b) / 2, half, clock};
  }
  return best;
}

namespace {

/// The driver entry points both functions below read, through the libcuda.so.1 already loaded (no link-time
/// dependency); all null when no driver is loaded.
struct DriverQueries {
  using GetName = CUresult (*)(char*, int, CUdevice);
  using GetAttr = CUresult (*)(int*, CUdevice_attribute, CUdevice);
  using TotalMem = CUresult (*)(size_t*, CUdevice);
  using GetUuid = CUresult (*)(CUuuid*, CUdevice);
  void* cuda = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
  GetName get_name = cuda ? reinterpret_cast<GetName>(dlsym(cuda, "cuDeviceGetName")) : nullptr;
  GetAttr get_attr = cuda ? reinterpret_cast<GetAttr>(dlsym(cuda, "cuDeviceGetAttribute")) : nullptr;
  TotalMem total_mem = cuda ? reinterpret_cast<TotalMem>(dlsym(cuda, "cuDeviceTotalMem_v2")) : nullptr;
  GetUuid get_uuid = cuda ? uuid_entry(cuda) : nullptr;
  DriverQueries() = default;
  DriverQueries(const DriverQueries&) = delete;
  DriverQueries& operator=(const DriverQueries&) = delete;
  ~DriverQueries() {
    if (cuda) dlclose(cuda);
  }
  static GetUuid uuid_entry(void* cuda) {
    auto f = reinterpret_cast<GetUuid>(dlsym(cuda, "cuDeviceGetUuid_v2"));
    return f ? f : reinterpret_cast<GetUuid>(dlsym(cuda, "cuDeviceGetUuid"));
  }
};

void add_identity(const DriverQueries& q, raw::RecordBatch& batch, int ordinal) {
  if (!q.get_uuid || !q.get_attr) return;
  const auto dev = static_cast<CUdevice>(ordinal);
  CUuuid uuid{};
  int domain = 0, bus = 0, device = 0;
  if (q.get_uuid(&uuid, dev) == CUDA_SUCCESS &&
      q.get_attr(&domain, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, dev) == CUDA_SUCCESS &&
      q.get_attr(&bus, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, dev) == CUDA_SUCCESS &&
      q.get_attr(&device, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, dev) == CUDA_SUCCESS) {
    raw::DeviceIdentityRecord identity{static_cast<std::uint32_t>(ordinal), static_cast<std::uint32_t>(domain),
                                       static_cast<std::uint32_t>(bus), static_cast<std::uint32_t>(device), {}};
    static_assert(sizeof identity.uuid == sizeof uuid.bytes);
    std::memcpy(identity.uuid, uuid.bytes, sizeof identity.uuid);
    batch.add(raw::Tag::kDeviceIdentity, identity);
  }
}

}  // namespace

void add_device_records(raw::RecordBatch& batch, int ordinal) {
  const DriverQueries q;
  if (!q.get_name || !q.get_attr || !q.total_mem) return;
  const auto dev = static_cast<CUdevice>(ordinal);
  char name[256] = {};
  int major = 0, minor = 0, sms = 0;
  size_t bytes = 0;
  q.get_name(name, sizeof name - 1, dev);
  q.get_attr(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
  q.get_attr(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
  q.get_attr(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev);
  q.total_mem(&bytes, dev);
  batch.add(raw::Tag::kDevice,
            raw::DeviceRecord{static_cast<std::uint32_t>(ordinal), static_cast<std::uint32_t>(major),
                              static_cast<std::uint32_t>(minor), static_cast<std::uint32_t>(sms), bytes},
            name);
  add_identity(q, batch, ordinal);
}

void add_device_identity(raw::RecordBatch& batch, int ordinal) {
  const DriverQueries q;
  add_identity(q, batch, ordinal);
}

}  // namespace vtools::vtrace::injection
