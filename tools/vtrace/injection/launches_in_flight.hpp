// The access preload's recorded launches whose buffers are not read back yet, in launch order, with their buffers'
// bytes. Shared by the program's launching threads (the pending cap), its synchronize callbacks, the tool's reader
// thread, and the ends of streams, modules and contexts; header-only so its locking is unit-tested without a GPU.
#pragma once

#include <algorithm>
#include <chrono>
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
  /// holder did not take() it (not finished yet, or an exception on the way). Empty when none is in flight, and
  /// while a take(all_back) waits (so that a poller cannot keep it waiting).
  class Oldest {
   public:
    explicit Oldest(LaunchesInFlight& list) : list_(list) {
      std::lock_guard<std::mutex> lock(list_.mutex_);
      if (list_.launches_.empty() || list_.waiting_ > 0) return;
      list_.holders_.push_back(std::this_thread::get_id());  // first: it may throw, the launch is still listed
      held_ = true;
      launch_.emplace(std::move(list_.launches_.front().first));
      bytes_ = list_.launches_.front().second;
      list_.launches_.erase(list_.launches_.begin());
      list_.bytes_ -= bytes_;
    }
    ~Oldest() {
      if (!held_) return;
      {
        std::lock_guard<std::mutex> lock(list_.mutex_);
        if (launch_) {
          try {
            list_.launches_.emplace(list_.launches_.begin(), std::move(*launch_), bytes_);
            list_.bytes_ += bytes_;
          } catch (...) {  // no room to put it back: lost (the parent counts it among the launches never read)
          }
        }
        list_.release_holder();
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

  /// Launches taken out of the list together, held (as an Oldest is) until this goes: a stream's end on another
  /// thread waits while a synchronize callback reads them back.
  class Taken {
   public:
    std::vector<Launch> launches;
    /// take(all_back) gave up waiting for other threads' launches (it waited `timeout`): they may include some of
    /// the chosen ones.
    bool timed_out = false;
    explicit Taken(LaunchesInFlight& list) : list_(&list) {}
    Taken(Taken&& other) noexcept
        : launches(std::move(other.launches)), timed_out(other.timed_out), list_(other.list_), held_(other.held_) {
      other.held_ = false;
    }
    Taken(const Taken&) = delete;
    Taken& operator=(const Taken&) = delete;
    Taken& operator=(Taken&&) = delete;
    ~Taken() {
      if (!held_) return;
      {
        std::lock_guard<std::mutex> lock(list_->mutex_);
        list_->release_holder();
      }
      list_->changed_.notify_all();
    }

   private:
    friend class LaunchesInFlight;
    LaunchesInFlight* list_;
    bool held_ = false;
  };

  /// Takes the launches that `chosen` picks out of the list, in launch order, held until the result goes. With
  /// `all_back`, first waits (up to `timeout`) until no other thread holds launches (an Oldest, or a Taken), so that
  /// a stream's or context's end cannot miss one; the calling thread's own do not count. Without it, takes nothing
  /// while such a wait is on (threads synchronizing in a loop would otherwise keep it waiting): the launches stay
  /// listed, for the waiter or a later take.
  template <class Chosen>
  Taken take(Chosen chosen, bool all_back, std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
    Taken out(*this);
    std::unique_lock<std::mutex> lock(mutex_);
    if (!all_back && waiting_ > 0) return out;
    if (all_back) {
      const auto me = std::this_thread::get_id();
      ++waiting_;
      out.timed_out = !changed_.wait_for(lock, timeout, [&] {
        return std::all_of(holders_.begin(), holders_.end(), [&](std::thread::id h) { return h == me; });
      });
      --waiting_;
    }
    auto keep = std::stable_partition(launches_.begin(), launches_.end(),
                                      [&](const std::pair<Launch, std::uint64_t>& l) { return !chosen(l.first); });
    if (keep == launches_.end()) return out;
    holders_.push_back(std::this_thread::get_id());
    out.held_ = true;
    for (auto it = keep; it != launches_.end(); ++it) {
      bytes_ -= it->second;
      out.launches.push_back(std::move(it->first));
    }
    launches_.erase(keep, launches_.end());
    return out;
  }

  /// For a reader thread: waits until a launch is in flight and no take(all_back) waits; false once stop() was
  /// called.
  bool wait_for_launch() {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return stopped_ || (!launches_.empty() && waiting_ == 0); });
    return !stopped_;
  }

  void stop() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopped_ = true;
    }
    changed_.notify_all();
  }

  [[nodiscard]] bool stopped() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return stopped_;
  }

  /// In a forked child: the parent's threads are not there, so none of them holds a launch or waits.
  void forget_holders() {
    holders_.clear();
    waiting_ = 0;
  }

 private:
  void release_holder() {  // with mutex_ held
    auto me = std::find(holders_.begin(), holders_.end(), std::this_thread::get_id());
    if (me != holders_.end()) holders_.erase(me);
  }

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<std::pair<Launch, std::uint64_t>> launches_;
  std::uint64_t bytes_ = 0;
  std::vector<std::thread::id> holders_;  ///< threads that hold launches, one entry per Oldest or Taken
  int waiting_ = 0;                       ///< take(all_back) calls waiting for the holders
  bool stopped_ = false;
};

}  // namespace vtools::vtrace::injection
