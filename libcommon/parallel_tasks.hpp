// Independent tasks of uneven size on several cores: each thread takes the next index when it is free (a launch's
// block records, a block of JSON lines), so one big task does not leave the others idle behind a static split.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace vtools {

/// Threads worth using for `tasks` tasks: at most `max_threads` and the machine's cores, at least 1.
inline std::size_t task_threads(std::size_t tasks, std::size_t max_threads = 16) {
  return std::max<std::size_t>(1, std::min<std::size_t>({max_threads, std::max(1u, std::thread::hardware_concurrency()), tasks}));
}

/// Calls body(i) once for every i in [0, n), on up to task_threads(n, max_threads) threads (the caller's among them);
/// returns when all are done. The first exception a body throws stops the rest from starting and is rethrown here.
template <class Body>
void for_each_task(std::size_t n, const Body& body, std::size_t max_threads = 16) {
  const std::size_t threads = task_threads(n, max_threads);
  if (threads <= 1) {
    for (std::size_t i = 0; i < n; ++i) body(i);
    return;
  }
  std::atomic<std::size_t> next{0};
  std::exception_ptr error;
  std::mutex error_mutex;
  auto work = [&] {
    for (std::size_t i = next++; i < n; i = next++) {
      try {
        body(i);
      } catch (...) {
        std::lock_guard lock(error_mutex);
        if (!error) error = std::current_exception();
        next = n;
      }
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(threads - 1);
  for (std::size_t t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

/// Grows `v` to `n` elements (value-initialised, as resize does) after touching the new memory's pages on several
/// threads: on hundreds of MB of fresh memory (a training step's 1.95 M access records, 405 MB) a plain resize spends
/// most of its time in the kernel's page faults, one thread taking them all (190 ms against 104 ms with two threads
/// on the 2-core build machine). Below 64 MiB of growth it is a plain resize.
template <class T>
void resize_touched_in_parallel(std::vector<T>& v, std::size_t n) {
  constexpr std::size_t kPage = 4096, kChunk = std::size_t{16} << 20, kWorthIt = std::size_t{64} << 20;
  if (n > v.size() && (n - v.size()) * sizeof(T) >= kWorthIt) {
    v.reserve(n);
    // Storage the allocator gave and no element occupies yet: a byte written per page only maps it.
    char* base = reinterpret_cast<char*>(v.data());
    const std::size_t from = v.size() * sizeof(T), to = n * sizeof(T);
    for_each_task((to - from + kChunk - 1) / kChunk, [&](std::size_t c) {
      const std::size_t begin = from + c * kChunk, end = std::min(to, begin + kChunk);
      for (std::size_t at = begin; at < end; at += kPage) base[at] = 0;
    });
  }
  v.resize(n);
}

}  // namespace vtools
