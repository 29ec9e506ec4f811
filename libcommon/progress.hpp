// A one-line progress bar on stderr, drawn only when stderr is a TTY and not quiet (so logs and pipes stay clean).
#pragma once

#include <cstddef>
#include <string>

namespace vtools {

class ProgressBar {
 public:
  /// `total` steps; `label` is shown before the bar. Disabled unless stderr is a TTY and !quiet().
  ProgressBar(std::string label, std::size_t total);
  ~ProgressBar();  ///< Clears the line.

  /// Moves to `done` steps and shows `what` (e.g. the config being run).
  void update(std::size_t done, const std::string& what = "");
  [[nodiscard]] bool enabled() const { return enabled_; }

 private:
  std::string label_;
  std::size_t total_;
  bool enabled_;
};

}  // namespace vtools
