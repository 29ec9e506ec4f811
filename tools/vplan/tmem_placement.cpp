#include "tools/vplan/tmem_placement.hpp"

#include <algorithm>
#include <map>
#include <utility>

namespace vtools::vplan {

namespace {

constexpr std::int64_t kColumnAlignment = 4;  // Triton: "for now enforce an alignment of 4 columns"

struct Chunk {
  int first_half = 0;  // lanes in 64-row halves: [first_half, first_half + halves)
  int halves = 2;
  std::int64_t col = 0;
  std::int64_t cols = 0;
};

std::int64_t align_up(std::int64_t v) { return (v + kColumnAlignment - 1) / kColumnAlignment * kColumnAlignment; }

// The lowest aligned column where [col, col + cols) misses every chunk that takes any of `halves` halves from
// `first_half`; chunks are swept by column, so a chunk that blocks moves the candidate just past its end.
std::int64_t first_fit(std::vector<const Chunk*> taken, int first_half, int halves, std::int64_t cols) {
  if (cols == 0) return 0;  // takes no column: fits anywhere, Triton's search stops at once
  std::sort(taken.begin(), taken.end(), [](const Chunk* a, const Chunk* b) { return a->col < b->col; });
  std::int64_t col = 0;
  for (const Chunk* c : taken) {
    const bool shares_lanes = c->first_half < first_half + halves && first_half < c->first_half + c->halves;
    if (!shares_lanes || c->col + c->cols <= col || c->cols == 0) continue;
    if (c->col >= col + cols) break;
    col = align_up(std::max(col, c->col + c->cols));
  }
  return col;
}

}  // namespace

std::vector<TmemOffset> place_tmem_triton(const std::vector<TmemItem>& items) {
  std::vector<TmemOffset> out(items.size());
  std::vector<Chunk> chunks(items.size());
  std::vector<bool> live(items.size(), false);
  std::multimap<int, std::size_t> by_end;  // live items by the end of their interval
  std::map<int, int> group_half;           // row_group -> the half its first placed member took
  for (std::size_t i = 0; i < items.size(); ++i) {
    const TmemItem& it = items[i];
    while (!by_end.empty() && by_end.begin()->first <= it.start) {
      live[by_end.begin()->second] = false;
      by_end.erase(by_end.begin());
    }
    std::vector<const Chunk*> taken;
    for (std::size_t j = 0; j < i; ++j) {
      const bool other_region = it.ws >= 0 && items[j].ws == it.ws && items[j].region != it.region;
      if (live[j] || other_region) taken.push_back(&chunks[j]);
    }
    Chunk& c = chunks[i];
    c.halves = it.rows <= 64 ? 1 : 2;
    c.cols = std::max<std::int64_t>(it.cols, 0);
    const auto fixed = it.row_group >= 0 ? group_half.find(it.row_group) : group_half.end();
    // Column first, then the half: a later column in the first half loses to an earlier one in the second.
    std::int64_t best = -1;
    for (int half = 0; half + c.halves <= 2; ++half) {
      if (fixed != group_half.end() && fixed->second != half) continue;
      const std::int64_t col = first_fit(taken, half, c.halves, c.cols);
      if (best < 0 || col < best) best = col, c.first_half = half;
    }
    c.col = best < 0 ? 0 : best;
    if (it.row_group >= 0) group_half[it.row_group] = c.first_half;
    out[i] = {c.col, c.first_half * 16};
    live[i] = true;
    by_end.emplace(it.end, i);
  }
  return out;
}

std::int64_t tmem_module_cols(std::int64_t highest_end) {
  if (highest_end <= 0) return 0;
  if (highest_end > 512) return highest_end;
  std::int64_t c = 32;
  while (c < highest_end) c *= 2;
  return c;
}

}  // namespace vtools::vplan
