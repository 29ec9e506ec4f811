// The plan search: how prepare chooses the cuda forward of one model and shape. Each candidate forward is timed as a
// whole (a median of replays of its graph, from a reset L2), because a GEMM or kernel timed alone ranks differently
// from the same inside a forward; the fastest few then meet again in a playoff. Or, pinned, the forward a name says
// is set up without timing any. It sets up the GptForward it is given; which forwards there are is
// forward_candidates', capture and timing forward_graph's.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "tools/vbench/backend.hpp"
#include "tools/vbench/cuda/forward_candidates.hpp"
#include "tools/vbench/cuda/forward_setup.hpp"
#include "tools/vbench/cuda_options.hpp"
#include "tools/vbench/cuda/gpt_forward.hpp"

namespace vtools::vbench::cuda {

class ForwardGraph;
class L2Reset;

class ForwardSearch {
 public:
  /// Searches over `forward` (of `weights`, on `device`), enqueued on `stream`, timed by capturing it into `graph`
  /// after `l2` resets L2; `options` say which candidates it tries (wgmma, programmatic, persistent). All but
  /// `options` must outlive this.
  ForwardSearch(GptForward& forward, const DeviceWeights& weights, int device, cudaStream_t stream,
                ForwardGraph& graph, const L2Reset& l2, const CudaOptions& options);

  /// Tunes the GEMM algorithms by whole-forward time, times the wgmma candidates, the fused layouts and every
  /// combination of the options, and sets up the fastest after a playoff.
  void search();
  /// Sets up the forward `pin` names, with its GEMM algorithms where they were chosen on this device and cuBLASLt
  /// version (else tuned as a search tunes them): no forward is timed. Error(kUsage) when this model offers no
  /// forward of that name.
  void use_pin(const ForwardPin& pin);

  /// What was timed and kept; nullopt when nothing was chosen (no search had candidates, no pin).
  [[nodiscard]] std::optional<PlanSearch> plan_search() const;
  /// How the kept forward computes and how it was chosen (the document's notes).
  [[nodiscard]] std::vector<std::string> notes() const;
  /// "gpt2 (B=4 T=64)": what the notes name, since a sweep prepares one model at several shapes.
  [[nodiscard]] std::string model_name() const;

 private:
  void tune_gemms();
  void choose_layer_fusion();
  void choose_wgmma_gemms(WgmmaTrials trials);
  void time_option_combinations(bool blocks_tried);
  void playoff();
  void use_fastest_forward();
  [[nodiscard]] ForwardOffer offer(bool layernorm_tiles) const;
  [[nodiscard]] bool head_prefetch_fits() const;
  [[nodiscard]] std::vector<GemmChoice> gemm_choices() const;

  [[nodiscard]] ForwardSetup current_setup() const;
  void use_setup(const ForwardSetup& setup);
  [[nodiscard]] WgmmaPlan current_plan() const;
  void use_plan(const WgmmaPlan& plan);
  [[nodiscard]] std::string forward_label() const;

  void run_eagerly(std::string_view what);
  void record_forward(double ms);
  void record_kept_forward();
  double median_forward_ms();
  std::vector<double> forward_samples_ms();

  GptForward& forward_;
  const DeviceWeights& weights_;
  int device_;
  cudaStream_t stream_;
  ForwardGraph& graph_;
  const L2Reset& l2_;
  CudaOptions options_;
  /// The forwards timed (unfused, with wgmma GEMMs in each tiling, each fused layout, the kept one with each
  /// combination of the options) and their median ms; empty when there was no choice.
  std::vector<TimedForward> forward_ms_;
  /// The finalists of playoff() and their medians over all its rounds; empty when it had fewer than two.
  std::vector<TimedForward> playoff_ms_;
  /// The forwards choose_wgmma_gemms did not time: a refused launch, or logits off the cuBLASLt forward's.
  std::vector<RejectedPlan> rejected_;
  /// Where the forward came from when it was pinned ("" when searched); a note when a pin's GEMM algorithms were
  /// chosen again.
  std::string pinned_, gemms_retuned_;
};

}  // namespace vtools::vbench::cuda
