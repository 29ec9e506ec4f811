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

std::uint64_t monotonic_ns() noexcept {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<std::uint64_t>(t.tv_sec) * 1000000000ull + static_cast<std::uint64_t>(t.tv_nsec);
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

void add_device_records(raw::RecordBatch& batch, int ordinal) {
  void* cuda = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
  if (!cuda) return;
  using GetName = CUresult (*)(char*, int, CUdevice);
  using GetAttr = CUresult (*)(int*, CUdevice_attribute, CUdevice);
  using TotalMem = CUresult (*)(size_t*, CUdevice);
  using GetUuid = CUresult (*)(CUuuid*, CUdevice);
  auto get_name = reinterpret_cast<GetName>(dlsym(cuda, "cuDeviceGetName"));
  auto get_attr = reinterpret_cast<GetAttr>(dlsym(cuda, "cuDeviceGetAttribute"));
  auto total_mem = reinterpret_cast<TotalMem>(dlsym(cuda, "cuDeviceTotalMem_v2"));
  auto get_uuid = reinterpret_cast<GetUuid>(dlsym(cuda, "cuDeviceGetUuid_v2"));
  if (!get_uuid) get_uuid = reinterpret_cast<GetUuid>(dlsym(cuda, "cuDeviceGetUuid"));
  if (get_name && get_attr && total_mem) {
    const auto dev = static_cast<CUdevice>(ordinal);
    const auto id = static_cast<std::uint32_t>(ordinal);
    char name[256] = {};
    int major = 0, minor = 0, sms = 0;
    size_t bytes = 0;
    get_name(name, sizeof name - 1, dev);
    get_attr(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
    get_attr(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
    get_attr(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev);
    total_mem(&bytes, dev);
    batch.add(raw::Tag::kDevice,
              raw::DeviceRecord{id, static_cast<std::uint32_t>(major), static_cast<std::uint32_t>(minor),
                                static_cast<std::uint32_t>(sms), bytes},
              name);
    // The device as the job's other processes and hosts can name it too (ordinals depend on CUDA_VISIBLE_DEVICES).
    CUuuid uuid{};
    int domain = 0, bus = 0, device = 0;
    if (get_uuid && get_uuid(&uuid, dev) == CUDA_SUCCESS &&
        get_attr(&domain, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, dev) == CUDA_SUCCESS &&
        get_attr(&bus, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, dev) == CUDA_SUCCESS &&
        get_attr(&device, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, dev) == CUDA_SUCCESS) {
      raw::DeviceIdentityRecord identity{id, static_cast<std::uint32_t>(domain), static_cast<std::uint32_t>(bus),
                                         static_cast<std::uint32_t>(device), {}};
      static_assert(sizeof identity.uuid == sizeof uuid.bytes);
      std::memcpy(identity.uuid, uuid.bytes, sizeof identity.uuid);
      batch.add(raw::Tag::kDeviceIdentity, identity);
    }
  }
  dlclose(cuda);
}

}  // namespace vtools::vtrace::injection
