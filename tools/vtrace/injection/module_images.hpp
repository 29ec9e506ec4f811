// What the access tool keeps of each loaded module so the parent can map a finding's or a PC table entry's PC to its
// source line and SASS: a copy of its cubin (the module callback's pointer is valid only during the callback),
// written to the raw file once (kModuleImage), and only for a module one of whose launches was recorded with PC
// table entries or findings; a PyTorch process loads hundreds of MB of modules and most of them never run. A copy is
// dropped once written or when its module unloads. Header-only and free of libcommon: the preload library uses it;
// unit tests drive it directly.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>

#include "tools/vtrace/raw_record_writer.hpp"

namespace vtools::vtrace::injection {

class ModuleImages {
 public:
  /// Keeps at most `max_bytes` of images at once; modules loaded past that are numbered but not kept.
  explicit ModuleImages(std::uint64_t max_bytes = 1ull << 30) : max_bytes_(max_bytes) {}

  /// A module was loaded: number it and copy its cubin when it fits.
  void loaded(const void* module, const char* cubin, std::size_t size) {
    std::lock_guard<std::mutex> lock(mutex_);
    Entry& e = entries_[module];
    kept_bytes_ -= e.image.size();
    e = Entry{++last_id_, {}, false};
    if (cubin && size && kept_bytes_ + size <= max_bytes_) {
      e.image.assign(cubin, size);
      kept_bytes_ += size;
    } else if (cubin && size) {
      ++not_kept_;
    }
  }

  /// A module is being unloaded: its copy is no longer needed.
  void unloaded(const void* module) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = entries_.find(module);
    if (it == entries_.end()) return;
    kept_bytes_ -= it->second.image.size();
    entries_.erase(it);
  }

  /// What a launch's records say of its module: its number and, the first time, its image (moved out of the keeper,
  /// so the writer thread can make the record without the launching thread copying a cubin of tens of MB).
  struct LaunchModule {
    std::uint64_t id = 0;
    std::string image;  ///< "" after the first time, or when it was not kept
    /// kModuleImage (when there is an image) and kLaunchModule, after the launch's record (or result) in `batch`.
    void add_to(raw::RecordBatch& batch) const {
      if (!image.empty()) {
        std::string payload;
        payload.reserve(sizeof id + image.size());
        payload.append(reinterpret_cast<const char*>(&id), sizeof id);
        payload += image;
        batch.add_bytes_record(raw::Tag::kModuleImage, payload);
      }
      batch.add(raw::Tag::kLaunchModule, raw::ModuleRecord{id});
    }
  };

  /// A launch of `module` recorded findings or PC table entries: its module number and, the first time, the module's
  /// image. A module the tool never saw loaded gets number 0 (unknown) and no image.
  LaunchModule take_for_launch(const void* module) {
    std::lock_guard<std::mutex> lock(mutex_);
    LaunchModule out;
    auto it = entries_.find(module);
    if (it == entries_.end()) return out;
    out.id = it->second.id;
    if (!it->second.written) {
      kept_bytes_ -= it->second.image.size();
      out.image = std::move(it->second.image);
      it->second.image = std::string();
      it->second.written = true;
    }
    return out;
  }

  /// take_for_launch, its records added to `batch` at once.
  void add_for_launch(const void* module, raw::RecordBatch& batch) { take_for_launch(module).add_to(batch); }

  /// Modules whose image did not fit in the budget (their findings and PCs get no source line or SASS).
  [[nodiscard]] std::uint64_t not_kept() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return not_kept_;
  }
  [[nodiscard]] std::uint64_t kept_bytes() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return kept_bytes_;
  }

 private:
  struct Entry {
    std::uint64_t id = 0;
    std::string image;  ///< "" once written, or when it did not fit
    bool written = false;
  };
  mutable std::mutex mutex_;
  std::map<const void*, Entry> entries_;
  std::uint64_t max_bytes_, kept_bytes_ = 0, last_id_ = 0, not_kept_ = 0;
};

}  // namespace vtools::vtrace::injection
