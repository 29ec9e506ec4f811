#include "tools/vtrace/access/block_sampling.hpp"

#include <algorithm>
#include <cctype>

#include "libcommon/error.hpp"

namespace vtools::vtrace::access {

namespace {

/// A tiny cursor over the spec; every error names the column.
class SpecCursor {
 public:
  explicit SpecCursor(std::string_view spec) : spec_(spec) {}
  [[nodiscard]] bool done() const { return pos_ >= spec_.size(); }
  bool consume(char c) {
    if (!done() && spec_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  [[noreturn]] void fail(const std::string& expected) const {
    std::string got = done() ? "end of spec" : "'" + std::string(1, spec_[pos_]) + "'";
    throw Error(ExitCode::kUsage, "expected " + expected + ", got " + got,
                SourceLocation{"--blocks", 1, static_cast<int>(pos_) + 1});
  }
  std::uint64_t number(const std::string& expected) {
    if (done() || !std::isdigit(static_cast<unsigned char>(spec_[pos_]))) fail(expected);
    std::uint64_t n = 0;
    while (!done() && std::isdigit(static_cast<unsigned char>(spec_[pos_]))) {
      if (n > (UINT64_MAX - 9) / 10) fail("a block index below 2^64");
      n = n * 10 + static_cast<std::uint64_t>(spec_[pos_++] - '0');
    }
    return n;
  }

 private:
  std::string_view spec_;
  std::size_t pos_ = 0;
};

}  // namespace

BlockSampling BlockSampling::parse(std::string_view spec) {
  BlockSampling s;
  if (spec == "all") return s;
  s.all_ = false;
  SpecCursor cur(spec);
  if (spec.rfind("every:", 0) == 0) {
    for (char c : std::string_view("every:")) cur.consume(c);
    s.every_ = cur.number("a block step after 'every:'");
    if (s.every_ == 0) throw Error(ExitCode::kUsage, "the step of 'every:' must be at least 1", SourceLocation{"--blocks", 1, 7});
    if (!cur.done()) cur.fail("end of spec after 'every:N'");
    return s;
  }
  do {
    std::uint64_t lo = cur.number(s.ranges_.empty() ? "a block index, a range 'A-B', 'every:N' or 'all'"
                                                    : "a block index or range after ','");
    std::uint64_t hi = lo;
    if (cur.consume('-')) {
      hi = cur.number("the end of the range after '-'");
      if (hi < lo) cur.fail("a range end not below its start " + std::to_string(lo));
    }
    s.ranges_.push_back({lo, hi});
  } while (cur.consume(','));
  if (!cur.done()) cur.fail("',' or end of spec");
  // Sorted and with overlaps merged: keeps() looks at the one range starting at or before a block, so a range
  // inside an earlier one ("0-4885,8") must not hide the earlier one's end.
  std::sort(s.ranges_.begin(), s.ranges_.end());
  std::vector<std::pair<std::uint64_t, std::uint64_t>> merged;
  for (const auto& r : s.ranges_) {
    if (!merged.empty() && r.first <= merged.back().second)
      merged.back().second = std::max(merged.back().second, r.second);
    else
      merged.push_back(r);
  }
  s.ranges_ = std::move(merged);
  return s;
}

bool BlockSampling::keeps(std::uint64_t b) const {
  if (all_) return true;
  if (every_) return b % every_ == 0;
  auto it = std::upper_bound(ranges_.begin(), ranges_.end(), std::make_pair(b, UINT64_MAX));
  return it != ranges_.begin() && std::prev(it)->second >= b;
}

std::uint64_t BlockSampling::kept(std::uint64_t blocks) const {
  if (all_) return blocks;
  if (every_) return blocks == 0 ? 0 : (blocks - 1) / every_ + 1;
  std::uint64_t n = 0, next = 0;  // ranges are sorted and may overlap: count each block once
  for (const auto& [lo, hi] : ranges_) {
    std::uint64_t from = std::max(lo, next), to = std::min(hi, blocks == 0 ? 0 : blocks - 1);
    if (blocks == 0 || from > to) continue;
    n += to - from + 1;
    next = to + 1;
  }
  return n;
}

std::string BlockSampling::str() const {
  if (all_) return "all";
  if (every_) return "every:" + std::to_string(every_);
  std::string out;
  for (const auto& [lo, hi] : ranges_)
    out += (out.empty() ? "" : ",") + std::to_string(lo) + (hi == lo ? "" : "-" + std::to_string(hi));
  return out;
}

std::uint64_t linear_block_index(const Dim3& b, const Dim3& grid) {
  // Unsigned arithmetic: a damaged raw file can hold any dims, and wrapping is defined where signed overflow is not.
  auto u = [](std::int64_t v) { return static_cast<std::uint64_t>(v); };
  return u(b[0]) + u(b[1]) * u(grid[0]) + u(b[2]) * u(grid[0]) * u(grid[1]);
}

}  // namespace vtools::vtrace::access
