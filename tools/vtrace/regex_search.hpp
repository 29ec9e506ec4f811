// std::regex_search for any length of text. libstdc++'s matcher recurses once per input character, so a kernel name
// of ~30,000 characters (CUTLASS and CuTe templates get that long) overflows an 8 MiB stack and kills the process:
// vtrace's summary/export --kernel, and under `vtrace run --accesses --kernel` the traced program itself. Long texts
// are matched on a thread of their own whose stack grows with the text. Header-only and free of libcommon: the
// preload library uses it too.
#pragma once

#include <pthread.h>

#include <algorithm>
#include <cstddef>
#include <exception>
#include <regex>
#include <string>

namespace vtools::vtrace {

/// std::regex_search(text, re), safe for texts of any length. Throws what std::regex_search throws
/// (std::regex_error, e.g. error_complexity).
inline bool regex_search_any_length(const std::string& text, const std::regex& re) {
  constexpr std::size_t kShort = 2048;  // well inside the default stack
  if (text.size() <= kShort) return std::regex_search(text, re);
  struct Job {
    const std::string* text;
    const std::regex* re;
    bool found = false;
    std::exception_ptr error;
  } job{&text, &re, false, nullptr};
  // ~300 bytes of stack per character were measured to overflow; give 4 KiB (virtual, touched only as used).
  const std::size_t stack = std::clamp<std::size_t>(text.size() * 4096, std::size_t(64) << 20, std::size_t(4) << 30);
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, stack);
  pthread_t thread;
  const int started = pthread_create(
      &thread, &attr,
      [](void* p) -> void* {
        auto* j = static_cast<Job*>(p);
        try {
          j->found = std::regex_search(*j->text, *j->re);
        } catch (...) {
          j->error = std::current_exception();
        }
        return nullptr;
      },
      &job);
  pthread_attr_destroy(&attr);
  if (started != 0) throw std::regex_error(std::regex_constants::error_stack);  // no thread: refuse, never crash
  pthread_join(thread, nullptr);
  if (job.error) std::rethrow_exception(job.error);
  return job.found;
}

}  // namespace vtools::vtrace
