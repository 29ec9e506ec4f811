#include "progress.hpp"

#include <unistd.h>

#include <cstdio>

#include "cli.hpp"

namespace vtools {

ProgressBar::ProgressBar(std::string label, std::size_t total)
    : label_(std::move(label)), total_(total), enabled_(::isatty(STDERR_FILENO) && !quiet()) {}

ProgressBar::~ProgressBar() {
  if (enabled_) std::fprintf(stderr, "\r\033[K");
}

void ProgressBar::update(std::size_t done, const std::string& what) {
  if (!enabled_ || total_ == 0) return;
  constexpr int kWidth = 30;
  int filled = static_cast<int>(kWidth * done / total_);
  std::string bar(static_cast<std::size_t>(filled), '#');
  bar.resize(kWidth, '.');
  std::fprintf(stderr, "\r\033[K%s [%s] %zu/%zu %s", label_.c_str(), bar.c_str(), done, total_, what.c_str());
  std::fflush(stderr);
}

}  // namespace vtools
