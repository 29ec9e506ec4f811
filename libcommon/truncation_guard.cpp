#include "libcommon/truncation_guard.hpp"

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <mutex>

namespace vtools {

namespace {

/// A guarded mapping. Written by guard/unguard, read by the handler: `begin` is published last and cleared first.
struct GuardedMapping {
  std::atomic<std::uintptr_t> begin{0};
  std::atomic<std::size_t> size{0};
  std::atomic<bool> lost{false};
};

GuardedMapping g_mappings[kMaxGuardedMappings];
std::mutex g_slots;  // guard/unguard only; never taken by the handler
struct sigaction g_previous {};
std::uintptr_t g_page_size = 4096;
std::once_flag g_installed;

/// A read past the end of a file cut short under its mapping: the page becomes zeros (anonymous, read-only, at the
/// same address) and the read is retried. Only async-signal-safe work: atomics and mmap (a system call).
void on_sigbus(int signal, siginfo_t* info, void* context) {
  const auto address = reinterpret_cast<std::uintptr_t>(info->si_addr);
  if (info->si_code > 0) {  // raised by a memory access, not sent by kill()
    for (GuardedMapping& m : g_mappings) {
      const std::uintptr_t begin = m.begin.load(std::memory_order_acquire);
      if (begin == 0 || address < begin || address - begin >= m.size.load(std::memory_order_relaxed)) continue;
      void* page = reinterpret_cast<void*>(address & ~(g_page_size - 1));
      if (::mmap(page, g_page_size, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED) break;
      m.lost.store(true, std::memory_order_relaxed);
      return;
    }
  }
  // Not a guarded mapping's: as if this handler were not there.
  if (g_previous.sa_flags & SA_SIGINFO) {
    if (g_previous.sa_sigaction) return g_previous.sa_sigaction(signal, info, context);
  } else if (g_previous.sa_handler != SIG_DFL && g_previous.sa_handler != SIG_IGN) {
    return g_previous.sa_handler(signal);
  }
  ::sigaction(SIGBUS, &g_previous, nullptr);
  if (info->si_code <= 0) ::raise(SIGBUS);  // a fault raises itself again when the access is retried
}

void install() {
  g_page_size = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  struct sigaction action {};
  action.sa_sigaction = on_sigbus;
  action.sa_flags = SA_SIGINFO;
  sigemptyset(&action.sa_mask);
  ::sigaction(SIGBUS, &action, &g_previous);
}

}  // namespace

int guard_mapping(const void* begin, std::size_t size) {
  std::call_once(g_installed, install);
  const std::lock_guard<std::mutex> lock(g_slots);
  for (int slot = 0; slot < kMaxGuardedMappings; ++slot) {
    GuardedMapping& m = g_mappings[slot];
    if (m.begin.load(std::memory_order_relaxed) != 0) continue;
    m.size.store(size, std::memory_order_relaxed);
    m.lost.store(false, std::memory_order_relaxed);
    m.begin.store(reinterpret_cast<std::uintptr_t>(begin), std::memory_order_release);
    return slot;
  }
  return -1;
}

bool mapping_lost_pages(int slot) {
  return slot >= 0 && g_mappings[slot].lost.load(std::memory_order_relaxed);
}

void unguard_mapping(int slot) {
  if (slot < 0) return;
  const std::lock_guard<std::mutex> lock(g_slots);
  g_mappings[slot].begin.store(0, std::memory_order_release);
}

}  // namespace vtools
