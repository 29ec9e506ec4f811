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

}  // namespace vtools
