// vbench sweeps (benchmarks keyed "config/B:b/T:t", or carrying batch_size and seq_len) as lines of an XY chart
// against B or T: one line per config and value of the other axis. The bench page draws latency and throughput with
// them, the compare page the speedup.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tools/vrender/svg_chart.hpp"

namespace vtools::vrender {

/// "gpt2/B:4/T:64" -> {"gpt2", 4, 64}.
struct SweepKey {
  std::string config;
  double batch = 0, seq = 0;
};
/// nullopt for a key that is not a sweep's.
std::optional<SweepKey> parse_sweep_key(const std::string& key);

/// One value of one benchmark, at its B and T.
struct SweepPoint {
  std::string config;  ///< the config's name without the key's shape
  double batch = 0, seq = 0, y = 0;
  std::string tooltip;
};

/// One series per config and value of the other axis ("gpt2 T=64" against B), its points in order of x (B when
/// `by_batch`, else T). Lines whose points all share one x are left out: they do not move along the axis.
std::vector<XYSeries> sweep_series(const std::vector<SweepPoint>& points, bool by_batch);

/// A sweep chart against B (`by_batch`) or T: log x axis ticked at every swept value (B = 1, 4, 16 are labelled,
/// not only decades), lines side by side where their points coincide.
XYChart sweep_chart(std::string title, std::vector<XYSeries> series, bool by_batch, Axis y);

}  // namespace vtools::vrender
