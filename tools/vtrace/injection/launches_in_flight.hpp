// The access preload's recorded launches whose buffers are not read back yet, in launch order, with their buffers'
// bytes. Shared by the program's launching threads (the pending cap), its synchronize callbacks, the tool's reader
// thread, and the ends of streams, modules and contexts; header-only so its locking is unit-tested without a GPU.
#pragma once

#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

namespace vtools::vtrace::injection {

template <class Launch>
class LaunchesInFlight {
 public:
  /// Adds `launch`, whose buffer has `bytes`, after the others; the bytes in flight with it.
  std::uint64_t push(Launch launch, std::uint64_t bytes) {
    std::uint64_t now = 0;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      launches_.emplace_back(std::move(launch), bytes);
      now = bytes_ += bytes;
    }
    changed_.notify_all();
    return now;
  }

  [[nodiscard]] std::uint64_t bytes() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return bytes_;
  }

  /// The oldest launch, out of the list while its holder polls or reads it back: it goes back to the front when the
  /// holder did not take() it (not finished yet, or an exception on the way). Empty when none is in flight.
  class Oldest {
   public:
    explicit Oldest(LaunchesInFlight& list) : list_(list) {
      std::lock_guard<std::mutex> lock(list_.mutex_);
      if (list_.launches_.empty()) return;
      launch_.emplace(std::move(list_.launches_.front().first));
      bytes_ = list_.launches_.front().second;
      list_.launches_.erase(list_.launches_.begin());
      list_.bytes_ -= bytes_;
      list_.holders_.push_back(std::this_thread::get_id());
      held_ = true;
    }
    ~Oldest() {
      if (!held_) return;
      {
        std::lock_guard<std::mutex> lock(list_.mutex_);
        if (launch_) {
          try {
            list_.launches_.emplace(list_.launches_.begin(), std::move(*launch_), bytes_);
            list_.bytes_ += bytes_;
          } catch (...) {  // no room to put it back: it is lost, as an exception loses a launch elsewhere
          }
        }
        auto me = std::find(list_.holders_.begin(), list_.holders_.end(), std::this_thread::get_id());
        if (me != list_.holders_.end()) list_.holders_.erase(me);
      }
      list_.changed_.notify_all();
    }
    Oldest(const Oldest&) = delete;
    Oldest& operator=(const Oldest&) = delete;
    explicit operator bool() const { return launch_.has_value(); }
    const Launch& operator*() const { return *launch_; }
    /// The launch, to be read back: it does not go back.
    Launch take() {
      Launch l = std::move(*launch_);
      launch_.reset();
      return l;
    }

   private:
    LaunchesInFlight& list_;
    std::optional<Launch> launch_;
    std::uint64_t bytes_ = 0;
    bool held_ = false;
  };

  /// Takes the launches that `chosen` picks out of the list, in launch order. With `all_back`, first waits until no
  /// other thread holds an Oldest (they put theirs back or read it), so that a stream's or context's end cannot
  /// miss a launch on it; the calling thread's own Oldest does not count.
  template <class Chosen>
  std::vector<Launch> take(Chosen chosen, bool all_back) {
    std::unique_lock<std::mutex> lock(mutex_);
    if (all_back) {
      const auto me = std::this_thread::get_id();
      changed_.wait(lock, [&] {
        return std::all_of(holders_.begin(), holders_.end(), [&](std::thread::id h) { return h == me; });
      });
    }
    std::vector<Launch> out;
    auto keep = std::stable_partition(launches_.begin(), launches_.end(),
                                      [&](const std::pair<Launch, std::uint64_t>& l) { return !chosen(l.first); });
    for (auto it = keep; it != launches_.end(); ++it) {
      bytes_ -= it->second;
      out.push_back(std::move(it->first));
    }
    launches_.erase(keep, launches_.end());
    return out;
  }

  /// For a reader thread: waits until a launch is in flight; false once stop() was called.
  bool wait_for_launch() {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return stopped_ || !launches_.empty(); });
    return !stopped_;
  }

  void stop() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopped_ = true;
    }
    changed_.notify_all();
  }

  /// In a forked child: the parent's threads are not there, so none of them holds a launch.
  void forget_holders() { holders_.clear(); }

 private:
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<std::pair<Launch, std::uint64_t>> launches_;
  std::uint64_t bytes_ = 0;
  std::vector<std::thread::id> holders_;  ///< threads that hold an Oldest, one entry per Oldest
  bool stopped_ = false;
};

}  // namespace vtools::vtrace::injection
