#include "libcommon/timeline.hpp"

#include <algorithm>
#include <numeric>
#include <tuple>

namespace vtools {

std::vector<double> exposed_times(const std::vector<TimeSpan>& spans) {
  std::vector<std::size_t> order(spans.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const TimeSpan &x = spans[a], &y = spans[b];
    return std::tie(x.lane, x.start, x.end) < std::tie(y.lane, y.start, y.end);
  });
  std::vector<double> exposed(spans.size(), 0.0);
  std::uint64_t frontier = 0;
  for (std::size_t i = 0; i < order.size(); ++i) {
    const TimeSpan& s = spans[order[i]];
    if (i == 0 || s.lane != spans[order[i - 1]].lane) frontier = s.start;
    const std::uint64_t from = std::max(s.start, frontier);
    exposed[order[i]] = s.end > from ? static_cast<double>(s.end - from) : 0.0;  // the difference, exact, then double
    frontier = std::max(frontier, s.end);
  }
  return exposed;
}

}  // namespace vtools
