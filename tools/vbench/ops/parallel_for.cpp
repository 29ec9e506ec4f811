#include "tools/vbench/ops/parallel_for.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <thread>
#include <string>
#include <vector>

#include "libcommon/error.hpp"

#include "tools/vbench/ops/cpu_ops.hpp"

namespace vtools::vbench::cpu {

namespace {

// One call's work. Workers hold it through a shared_ptr, so a worker that wakes late finds its counter exhausted and
// never touches a later call's parts.
struct Job {
  const std::function<void(int)>* part = nullptr;
  int parts = 0;
  std::atomic<int> next{0};
  int remaining = 0;  // guarded by WorkerPool::mutex_
};

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
    auto job = std::make_shared<Job>();
    job->part = &part;
    job->parts = parts;
    job->remaining = parts;
    {
      std::lock_guard lock(mutex_);
      job_ = job;
      ++generation_;
    }
    wake_.notify_all();
    drain(*job);
    std::unique_lock lock(mutex_);
    done_.wait(lock, [&] { return job->remaining == 0; });
    job_.reset();
  }

 private:
  void drain(Job& job) {
    int finished = 0;
    for (int k; (k = job.next.fetch_add(1)) < job.parts;) {
      (*job.part)(k);
      ++finished;
    }
    if (finished == 0) return;
    std::lock_guard lock(mutex_);
    job.remaining -= finished;
    if (job.remaining == 0) done_.notify_all();
  }

  void work() {
    std::uint64_t seen = 0;
    for (;;) {
      std::shared_ptr<Job> job;
      {
        std::unique_lock lock(mutex_);
        wake_.wait(lock, [&] { return stop_ || (generation_ != seen && job_); });
        if (stop_) return;
        seen = generation_;
        job = job_;
      }
      drain(*job);
    }
  }

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  std::shared_ptr<Job> job_;
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
      // Refused rather than ignored or obeyed blindly: "abc" and "0" used to fall back silently, and 100000 threads
      // never finished a forward.
      const std::string text(env);
      const bool digits = !text.empty() && text.size() <= 4 && text.find_first_not_of("0123456789") == std::string::npos;
      const int v = digits ? std::stoi(text) : 0;
      if (v < 1 || v > kMaxCpuThreads)
        throw Error(ExitCode::kUsage, "VTOOLS_THREADS='" + text + "': expected a whole number of threads from 1 to " +
                                          std::to_string(kMaxCpuThreads));
      return v;
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
