// The vtools.bench page: system panel, the seed's five charts (latency with error bars, throughput, percentiles,
// architecture, efficiency), roofline fraction and a table; several runs add a trend over time per config.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "formats/bench/bench_model.hpp"
#include "libcommon/document.hpp"
#include "tools/vrender/page.hpp"

namespace vtools::vrender {

/// A forward vbench's prepare tried for a config (plan_search): its medians (NaN where not timed) or why it was not
/// used.
struct PlanTrial {
  std::string forward{};
  double median_ms = 0, playoff_ms = 0;
  std::string rejected{};  ///< the reason, for a forward that was not timed
};

/// One config's results (NaN where the document has no value).
struct BenchResult {
  std::string config{};
  double n_layer = 0, n_head = 0, n_embd = 0;
  double mean_ms = 0, std_ms = 0, min_ms = 0, max_ms = 0, median_ms = 0, p5_ms = 0, p95_ms = 0, p99_ms = 0;
  std::size_t samples = 0;
  std::vector<double> samples_ms{};  ///< timing.samples_ms, for the distribution chart
  double tokens_per_s = 0, batch_size = 0, seq_len = 0, roofline_fraction = 0, floor_ms = 0;
  std::string status{};
  std::string kept_forward{};      ///< plan_search.kept; "" when the document has no plan search
  std::string pinned_from{};       ///< plan_search.pinned_from: vbench ran the forward this named, without a search
  std::vector<PlanTrial> plans{};  ///< plan_search: timed forwards in document order, then the rejected ones
  std::vector<double> repetition_medians_ms{};  ///< vbench run --repetitions: each repetition's median, in order
};

/// One vtools.bench document.
struct BenchRun {
  std::string source{};     ///< input name
  std::string timestamp{};  ///< metadata.timestamp (else the envelope's created)
  std::vector<Fact> system{};
  std::vector<std::string> notes{};  ///< metadata.notes
  std::string backend{}, device{}, dtype{};  ///< metadata.backend, gpu_name (else device_name), dtype; "" if absent
  std::vector<BenchResult> results{};
};

/// Reads the body of a parsed vtools.bench document through formats/bench (vbench's reader: what vbench refuses,
/// Error kDataError with its message), then bench_run_of.
BenchRun read_bench(const OrderedJson& doc, std::string_view name);

/// A read document as the page's run (`name` is the input's name): the system facts, NaN where a number is absent.
BenchRun bench_run_of(const vbench::BenchDocument& doc, std::string_view name);

/// The page for one run, or for several (sorted by timestamp, a trend chart first, then the newest run's charts).
Page bench_page(std::vector<BenchRun> runs);

}  // namespace vtools::vrender
