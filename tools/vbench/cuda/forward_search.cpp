#include "tools/vbench/cuda/forward_search.hpp"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <iterator>
#include <limits>
#include <string_view>
#include <utility>

#include "libcommon/error.hpp"
#include "libcommon/stats.hpp"
#include "tools/vbench/cuda/cuda_error.hpp"
#include "tools/vbench/cuda/device_info.hpp"
#include "tools/vbench/cuda/forward_graph.hpp"
#include "tools/vbench/cuda/forward_io.hpp"
#include "tools/vbench/cuda/l2_reset.hpp"
#include "tools/vbench/ops/fused_layer.hpp"
#include "tools/vbench/ops/layernorm.hpp"

namespace vtools::vbench::cuda {

namespace {

/// Replays per forward timed (a median of 15 moves by 1-5% between runs of one forward: hence the playoff,
/// forward_candidates.hpp).
constexpr int kPrepareReplays = 15;
/// The bf16 correctness gate's limit (logits_check.hpp): two correct bf16 forwards differ far less.
constexpr double kWgmmaTolerance = 2e-2;
/// Names of GptForward::matmuls() in GemmChoice.
constexpr const char* kGemmNames[] = {"qkv", "attention projection", "fc", "fc projection", "LM head"};

}  // namespace

ForwardSearch::ForwardSearch(GptForward& forward, const DeviceWeights& weights, int device, cudaStream_t stream,
                             ForwardGraph& graph, const L2Reset& l2, const CudaOptions& options)
    : forward_(forward),
      weights_(weights),
      device_(device),
      stream_(stream),
      graph_(graph),
      l2_(l2),
      options_(options) {}

std::string ForwardSearch::model_name() const {
  return weights_.config.name + " (B=" + std::to_string(forward_.batch()) + " T=" + std::to_string(forward_.seq()) +
         ")";
}

void ForwardSearch::search() {
  tune_gemms();
  const WgmmaTrials trials = options_.wgmma;
  const bool wgmma_tried = !forward_.wgmma_tilings().empty() && trials != WgmmaTrials::kNone;
  if (wgmma_tried) choose_wgmma_gemms(trials);
  if (!forward_.fused_layouts().empty()) choose_layer_fusion();
  time_option_combinations(wgmma_tried);  // the wgmma candidates try both layer-norm blocks
  playoff();
}

std::vector<std::string> ForwardSearch::notes() const {
  std::vector<std::string> notes;
  if (!forward_ms_.empty() || !pinned_.empty()) {
    const std::optional<FusedLayout> layout = forward_.fused_layout();
    const WgmmaPlan plan = current_plan();
    notes.push_back("cuda " + model_name() + ": " +
                    (layout   ? std::string("fused layer steps in the ") + fused_layout_name(*layout) +
                                    " layout (one kernel per layer, fp32 math on CUDA cores in every dtype)"
                     : plan.persistent ? "the embeddings, layers and final layer norm as one persistent kernel, "
                                         "then the LM head"
                     : !plan.plain() ? "the unfused forward with " + plan_name(plan) + " (vbench's own wgmma kernels)"
                         : std::string("the unfused forward")) +
                    (forward_.head_prefetch() ? " with the LM head's weights prefetched into L2" : "") +
                    (forward_.embedding_layernorm() ? ", the embeddings computed by the first layer norm" : "") +
                    (forward_.own_head() ? ", the LM head as vbench's own 3xTF32 kernel (lm_head_tf32)" : "") +
                    (!layout && forward_.layernorm_blocks() == LayerNormBlocks::kFitted
                         ? ", layer norms in fitted blocks (as many warps as a row needs, at most 2 blocks per SM)"
                         : "") +
                    (pinned_.empty() ? ", the fastest of " + std::to_string(forward_ms_.size()) +
                                           " forwards timed at prepare (its benchmark's plan_search lists them)"
                                     : ", as " + pinned_ + " named it (no search at prepare)"));
  }
  if (!gemms_retuned_.empty()) notes.push_back(gemms_retuned_);
  if (!rejected_.empty()) {
    notes.push_back("cuda " + model_name() + ": " + std::to_string(rejected_.size()) +
                    " forwards were not used (their logits were off or a launch was refused; its benchmark's "
                    "plan_search.rejected says why)");
  }
  return notes;
}

std::optional<PlanSearch> ForwardSearch::plan_search() const {
  if (forward_ms_.empty() && pinned_.empty()) return std::nullopt;
  PlanSearch search;
  search.kept = forward_label();
  search.gemm_algorithms = gemm_choices();
  search.pinned_from = pinned_;
  search.replays = pinned_.empty() ? kPrepareReplays : 0;
  for (const TimedForward& t : forward_ms_) search.timed.push_back({t.label, t.ms});
  if (!playoff_ms_.empty()) {
    search.playoff_rounds = kPlayoffRounds;
    search.playoff_replays = kPlayoffRounds * kPrepareReplays;
    for (const TimedForward& t : playoff_ms_) search.playoff.push_back({t.label, t.ms});
  }
  search.rejected = rejected_;
  return search;
}

/// Refines each GEMM plan's algorithm by the time of whole forwards, one plan at a time: every candidate is captured
/// into the forward graph and timed, the fastest stays. Matmul::choose_fastest times one GEMM back to back on weights
/// hot in L2; inside the forward each layer's weights come from HBM and neighbouring kernels overlap, and its pick
/// varied from run to run.
void ForwardSearch::tune_gemms() {
  for (Matmul* mm : forward_.matmuls()) {
    const int candidates = mm->candidate_count();
    if (candidates < 2) continue;
    const int start = mm->chosen_candidate();
    int best = start;
    double best_ms = median_forward_ms();
    for (int i = 0; i < candidates; ++i) {
      if (i == start) continue;
      mm->use_candidate(i);
      const double ms = median_forward_ms();
      if (ms < best_ms) {
        best_ms = ms;
        best = i;
      }
    }
    mm->use_candidate(best);
  }
}

/// Keeps the fastest of the unfused forward with its tuned GEMMs and the fused layer steps in each layout the model
/// takes (for small models, where launches dominate; the GEMM plans' choice above is unaffected: the fused steps use
/// only the LM head's).
void ForwardSearch::choose_layer_fusion() {
  record_kept_forward();  // the unfused forward
  for (const FusedLayout layout : forward_.fused_layouts()) {
    forward_.use_fused_layers(layout);
    run_eagerly("the eager fused forward");  // loads the kernels' module outside the capture
    record_forward(median_forward_ms());
  }
  use_fastest_forward();
}

/// Keeps the fastest unfused forward among wgmma_candidates(). A candidate whose logits (after NaN-filled
/// activations, on the same zero tokens) are further from the cuBLASLt forward's than the bf16 gate allows is not
/// timed and is named in the notes: a fast wrong kernel must not be kept.
void ForwardSearch::choose_wgmma_gemms(WgmmaTrials trials) {
  forward_.poison_activations(stream_);
  run_eagerly("the eager cuBLASLt forward");
  const std::vector<float> reference = download_logits(forward_, weights_, stream_);
  forward_ms_.clear();
  record_forward(median_forward_ms());
  for (const WgmmaPlan& c : wgmma_candidates(offer(trials == WgmmaTrials::kAll), trials, options_)) {
    const std::string label = setup_label({c, std::nullopt});
    double err = 0;
    try {
      use_plan(c);
      forward_.poison_activations(stream_);
      run_eagerly("an eager forward with own wgmma kernels");  // also loads their module outside the capture
      err = stats::relative_l2_error(download_logits(forward_, weights_, stream_), reference);
    } catch (const Error& e) {
      // A refused launch (e.g. a tensor map the driver rejects) leaves the context usable and the cuBLASLt forward
      // runs on; a fault in the kernel does not (every later call fails), so that one is the error to report.
      if (cudaDeviceSynchronize() != cudaSuccess) throw;
      rejected_.push_back({label, e.what()});
      continue;
    }
    if (!(err <= kWgmmaTolerance)) {
      char off[96];
      std::snprintf(off, sizeof off, "its logits are %.2e off the cuBLASLt forward's (limit %.0e)", err,
                    kWgmmaTolerance);
      rejected_.push_back({label, off});
      continue;
    }
    record_forward(median_forward_ms());
  }
  use_fastest_forward();
}

/// Times the forward kept so far (choose_wgmma_gemms, choose_layer_fusion) with every combination of the options
/// that apply to it (options_for; fitted layer-norm blocks too where the wgmma candidates did not try them), each
/// recorded in forward_ms_ for playoff(). Every combination, not one option after another: whether one helps depends
/// on the others (bench/RESULTS.md, session 17).
void ForwardSearch::time_option_combinations(bool blocks_tried) {
  const ForwardOffer model = offer(false);
  const ForwardOptions applies = options_for(model, current_setup());
  std::vector<std::function<void(bool)>> options;
  if (applies.head_prefetch) options.emplace_back([&](bool on) { forward_.use_head_prefetch(on); });
  if (applies.own_head) options.emplace_back([&](bool on) { forward_.use_own_head(on); });
  if (applies.embedding_layernorm) {
    options.emplace_back([&](bool on) { forward_.use_embedding_layernorm(on); });
    if (!blocks_tried && model.fitted_layernorm) {
      options.emplace_back([&](bool on) {
        forward_.use_layernorm_blocks(on ? LayerNormBlocks::kFitted : LayerNormBlocks::kWide);
      });
    }
  }
  if (!options.empty()) record_kept_forward();
  for (unsigned mask = 1; mask < (1u << options.size()); ++mask) {
    for (std::size_t i = 0; i < options.size(); ++i) options[i](((mask >> i) & 1u) != 0);
    run_eagerly("the eager forward (" + forward_label() + ")");  // loads the modules an option adds
    record_forward(median_forward_ms());
  }
  for (const auto& use : options) use(false);
}

/// Keeps the fastest of the forwards timed (forward_ms_): those within kPlayoffMargin of the fastest (at most
/// kFinalists, the fastest first) are timed again in kPlayoffRounds rounds that take each in turn, and the one with
/// the least median over all its replays is kept.
void ForwardSearch::playoff() {
  std::vector<TimedForward> finalists = playoff_finalists(forward_ms_);
  if (finalists.empty()) return;
  if (finalists.size() < 2) {
    use_setup(finalists.front().setup);
    return;
  }
  std::vector<std::vector<double>> samples(finalists.size());
  for (int round = 0; round < kPlayoffRounds; ++round) {
    for (std::size_t i = 0; i < finalists.size(); ++i) {
      use_setup(finalists[i].setup);
      const std::vector<double> ms = forward_samples_ms();
      samples[i].insert(samples[i].end(), ms.begin(), ms.end());
    }
  }
  std::size_t best = 0;
  for (std::size_t i = 0; i < finalists.size(); ++i) {
    finalists[i].ms = samples[i].empty() ? std::numeric_limits<double>::infinity() : stats::median(samples[i]);
    if (finalists[i].ms < finalists[best].ms) best = i;
  }
  use_setup(finalists[best].setup);
  playoff_ms_ = std::move(finalists);
}

/// Sets up the fastest forward in forward_ms_ (the first of equal ones), if any.
void ForwardSearch::use_fastest_forward() {
  const auto fastest = std::min_element(forward_ms_.begin(), forward_ms_.end(),
                                        [](const TimedForward& a, const TimedForward& b) { return a.ms < b.ms; });
  if (fastest != forward_ms_.end()) use_setup(fastest->setup);
}

/// What the model takes, for forward_candidates; with `layernorm_tiles`, those too (looked up on first use: it sets
/// kernel attributes).
ForwardOffer ForwardSearch::offer(bool layernorm_tiles) const {
  ForwardOffer o;
  o.wgmma_tilings = forward_.wgmma_tilings();
  o.qkv_attention = forward_.qkv_attention_available();
  if (layernorm_tiles) o.layernorm_tiles = forward_.layernorm_tiles();
  o.fitted_layernorm = fitted_layernorm_applies(weights_.config.n_embd);
  o.persistent = forward_.persistent_available();
  o.fused_layouts = forward_.fused_layouts();
  o.head_prefetch = head_prefetch_fits();
  o.own_head = forward_.own_head_available();
  return o;
}

/// Whether the LM head's weights fit in L2, so that prefetching them there is an option.
bool ForwardSearch::head_prefetch_fits() const {
  int l2_bytes = 0;
  check_cuda(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device_), "cudaDeviceGetAttribute",
             "the L2 size");
  return forward_.head_weight_bytes() <= static_cast<std::size_t>(l2_bytes);
}

void ForwardSearch::use_pin(const ForwardPin& pin) {
  std::optional<ForwardSetup> named;
  // every_setup lists the wgmma candidates of every trial where the model takes wgmma GEMMs.
  for (const ForwardSetup& setup : every_setup(offer(!forward_.wgmma_tilings().empty()), options_)) {
    if (setup_label(setup) == pin.forward) {
      named = setup;
      break;
    }
  }
  const DType dtype = weights_.dtype;
  if (!named) {
    const char* name = dtype == DType::kBf16 ? "bf16" : dtype == DType::kTf32 ? "tf32" : "fp32";
    throw Error(ExitCode::kUsage, pin.from + ": no forward named '" + pin.forward + "' runs " + model_name() +
                                      " in " + name + " here (a search's plan_search.timed names those that do)");
  }
  const DeviceInfo device = query_device_info(device_, dtype);
  const std::vector<Matmul*> matmuls = forward_.matmuls();
  bool same_gemms = !pin.gemm_algorithms.empty() && pin.device_name == device.name &&
                    pin.blas_version == device.blas_version && pin.gemm_algorithms.size() == matmuls.size();
  for (std::size_t i = 0; same_gemms && i < matmuls.size(); ++i) {
    const GemmChoice& g = pin.gemm_algorithms[i];
    same_gemms = g.gemm == kGemmNames[i] && g.of == matmuls[i]->candidate_count() && g.candidate >= 0 &&
                 g.candidate < g.of;
  }
  if (same_gemms) {
    for (std::size_t i = 0; i < matmuls.size(); ++i) matmuls[i]->use_candidate(pin.gemm_algorithms[i].candidate);
  } else {
    tune_gemms();
    if (!pin.gemm_algorithms.empty()) {
      const bool elsewhere = pin.device_name != device.name || pin.blas_version != device.blas_version;
      gemms_retuned_ = "cuda " + model_name() + ": " + pin.from + "'s cuBLASLt algorithms " +
                       (elsewhere ? "were chosen on " + pin.device_name + " with " + pin.blas_version
                                  : std::string("are not among this build's candidates")) +
                       ", so prepare chose them again";
    }
  }
  use_setup(*named);
  run_eagerly("the eager forward (" + pin.forward + ")");  // loads its kernels' modules outside the capture
  pinned_ = pin.from;
}

std::vector<GemmChoice> ForwardSearch::gemm_choices() const {
  std::vector<GemmChoice> gemms;
  const std::vector<Matmul*> matmuls = forward_.matmuls();
  for (std::size_t i = 0; i < matmuls.size() && i < std::size(kGemmNames); ++i) {
    gemms.push_back({kGemmNames[i], matmuls[i]->chosen_candidate(), matmuls[i]->candidate_count()});
  }
  return gemms;
}

ForwardSetup ForwardSearch::current_setup() const {
  return {current_plan(), forward_.fused_layout(), forward_.head_prefetch(), forward_.embedding_layernorm(),
          forward_.own_head()};
}

void ForwardSearch::use_setup(const ForwardSetup& setup) {
  use_plan(setup.plan);
  forward_.use_fused_layers(setup.layout);
  forward_.use_head_prefetch(setup.head_prefetch);
  forward_.use_embedding_layernorm(setup.embedding_layernorm);
  forward_.use_own_head(setup.own_head);
}

WgmmaPlan ForwardSearch::current_plan() const {
  return {forward_.wgmma_tiling(), forward_.wgmma_gemms(), forward_.programmatic_launches(),
          forward_.qkv_attention(), forward_.layernorm_projections(), forward_.layernorm_tile(),
          forward_.persistent(), forward_.layernorm_blocks()};
}

void ForwardSearch::use_plan(const WgmmaPlan& plan) {
  forward_.use_wgmma_gemms(plan.tiling, stream_, plan.gemms);
  forward_.use_programmatic_launches(plan.programmatic);
  forward_.use_qkv_attention(plan.qkv_attention, stream_);
  forward_.use_layernorm_projections(plan.layernorm_projections, plan.layernorm_tile, stream_);
  forward_.use_persistent(plan.persistent, stream_);
  forward_.use_layernorm_blocks(plan.layernorm_blocks);
}

/// The label of the forward as set up now.
std::string ForwardSearch::forward_label() const { return setup_label(current_setup()); }

/// One forward outside any capture, waited for: loads the modules of its kernels (CUDA lazy loading), which a
/// capture cannot. `what` names it in errors.
void ForwardSearch::run_eagerly(std::string_view what) {
  forward_.enqueue(stream_);
  check_cuda(cudaStreamSynchronize(stream_), "cudaStreamSynchronize", what);
}

/// Records the forward as set up now, timed at `ms`, in forward_ms_.
void ForwardSearch::record_forward(double ms) { forward_ms_.push_back({forward_label(), ms, current_setup()}); }

/// Times and records the forward kept so far where nothing was timed yet (no earlier choice had candidates), so that
/// the next choice compares its candidates against it.
void ForwardSearch::record_kept_forward() {
  if (forward_ms_.empty()) record_forward(median_forward_ms());
}

/// Median time of kPrepareReplays replays of the forward as set up now (after 3 warm-up ones); +inf when it cannot
/// be captured (a candidate cuBLASLt refuses at launch).
double ForwardSearch::median_forward_ms() {
  const std::vector<double> ms = forward_samples_ms();
  return ms.empty() ? std::numeric_limits<double>::infinity() : stats::median(ms);
}

/// kPrepareReplays replays of the forward as set up now, captured for them (after 3 warm-up ones), from an L2 that
/// no earlier candidate left its lines in; empty when it cannot be captured.
std::vector<double> ForwardSearch::forward_samples_ms() {
  l2_.run(stream_);
  try {
    graph_.capture(forward_, stream_);
  } catch (const Error&) {
    graph_.release();
    return {};
  }
  std::vector<double> ms = graph_.replay_ms(stream_, 3, kPrepareReplays);
  graph_.release();
  return ms;
}

}  // namespace vtools::vbench::cuda
