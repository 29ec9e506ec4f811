#include "tools/vbench/ops/parallel_for.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <vector>

#include "tools/vbench/ops/cpu_ops.hpp"

namespace vtools::vbench::cpu {

namespace {

class WorkerPool {
 public:
  explicit WorkerPool(int threads) {
    for (int i = 1; i < threads; ++i) workers_.emplace_back([this] { work(); });
  }
  ~WorkerPool() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    for (auto& t : workers_) t.join();
  }

  /// Runs part(0..parts-1) on the workers and the caller.
  void run(int parts, const std::function<void(int)>& part) {
    {
      std::lock_guard lock(mutex_);
      part_ = &part;
      parts_ = parts;
      next_.store(0);
      remaining_ = parts;
      ++generation_;
    }
    wake_.notify_all();
    drain();
    std::unique_lock lock(mutex_);
    done_.wait(lock, [this] { return remaining_ == 0; });
    part_ = nullptr;
  }

 private:
  void drain() {
    int finished = 0;
    for (int k; (k = next_.fetch_add(1)) < parts_;) {
      (*part_.load())(k);
      ++finished;
    }
    if (finished == 0) return;
    std::lock_guard lock(mutex_);
    remaining_ -= finished;
    if (remaining_ == 0) done_.notify_all();
  }

  void work() {
    std::uint64_t seen = 0;
    for (;;) {
      {
        std::unique_lock lock(mutex_);
        wake_.wait(lock, [&] { return stop_ || (generation_ != seen && part_ != nullptr); });
        if (stop_) return;
        seen = generation_;
      }
      drain();
    }
  }

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  std::atomic<const std::function<void(int)>*> part_{nullptr};
  std::atomic<int> parts_{0};
  int remaining_ = 0;
  std::atomic<int> next_{0};
  std::uint64_t generation_ = 0;
  bool stop_ = false;
};

thread_local bool t_inside = false;

WorkerPool& pool() {
  static WorkerPool p(cpu_threads());
  return p;
}

}  // namespace

int cpu_threads() {
  static const int n = [] {
    if (const char* env = std::getenv("VTOOLS_THREADS")) {
      const int v = std::atoi(env);
      if (v > 0) return v;
    }
    return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  }();
  return n;
}

void parallel_for(std::int64_t n, std::int64_t grain, const std::function<void(std::int64_t, std::int64_t)>& body) {
  if (n <= 0) return;
  const std::int64_t parts = std::min<std::int64_t>(cpu_threads(), std::max<std::int64_t>(1, n / std::max<std::int64_t>(grain, 1)));
  if (parts <= 1 || t_inside) {
    body(0, n);
    return;
  }
  pool().run(static_cast<int>(parts), [&](int k) {
    t_inside = true;
    body(n * k / parts, n * (k + 1) / parts);
    t_inside = false;
  });
}

}  // namespace vtools::vbench::cpu
