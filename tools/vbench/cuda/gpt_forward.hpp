// The GPT forward on the device: the sequence of own kernels and cuBLASLt GEMMs for one batch shape, enqueued on one
// stream (ForwardGraph captures it once into a CUDA graph). Inference only, so activations are reused across layers.
//
// Per forward, with R = B*T rows:  encoder -> residual (fp32)
//   per layer: layernorm(+= delta) -> ln;  qkv = ln Wqkv + b;  attn = attention(qkv);  delta = attn Wproj + b;
//              layernorm(+= delta) -> ln;  fc = gelu(ln Wfc + b);  delta = fc Wfcproj + b
//   layernorm(+= delta) -> ln;  logits = ln wte^T
// The projections (Wproj, Wfcproj) are split along K into fp32 partial products (projection_splits), and delta is
// their sum plus the bias, formed inside the layernorm that adds it to the residual: no reduction kernel.
// In fp32 the LM head (most of a small model's time as an fp32 SIMT GEMM) runs as 3xTF32 on tensor cores: with
// x = x_hi + x_lo and w = w_hi + w_lo split into TF32 values, x.w ~ x_hi.w_hi + x_hi.w_lo + x_lo.w_hi (the dropped
// x_lo.w_lo is ~2^-22 relative), computed as one TF32 GEMM over K = 3C: the final layernorm writes rows
// [x_lo | x_hi | x_hi], the weights are stored as [w_hi | w_lo | w_hi]. The small products come first in K, so they
// are summed before the large ones swamp them (fp32-level error; figures in bench/RESULTS.md).
// 3 + 7 * n_layer launches when cuBLASLt fuses every epilogue; one more per layer where it has no GELU algorithm.
// In bf16 on Hopper the layers' four GEMMs (or the two projections only) can instead be vbench's own wgmma GEMMs
// (wgmma_gemm.hpp, same outputs, reading transposed copies of the weights made on first use), with the encoder,
// layer norms and attention launched as programmatic dependents or not, and each projection can run together with
// the layer norm after it (residual add included): per layer qkv, attention, projection + LN2, fc, projection + next
// LN1. There, with head size 64 or 32 and T <= 64, each layer's qkv GEMM and attention can also run as one kernel
// (wgmma_attention.hpp). Or the whole forward but the LM head runs as one persistent kernel (persistent_forward.hpp).
// Small models (fused_layer_ready) can instead run as n_layer + 1 fused layer steps and the LM head
// (fused_layer.cu); ForwardSearch keeps whichever forward is faster.
// Either can also prefetch the LM head's weights into L2 on a side branch of the graph (use_head_prefetch), and in
// fp32 run the head as an own 3xTF32 kernel instead of cuBLASLt's GEMM (use_own_head), where that is faster.
#pragma once

#include <cublasLt.h>
#include <cuda_runtime.h>

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tools/vbench/cuda/device_buffer.hpp"
#include "tools/vbench/cuda/device_weights.hpp"
#include "tools/vbench/cuda/matmul.hpp"
#include "tools/vbench/ops/fused_layer.hpp"
#include "tools/vbench/ops/layernorm.hpp"
#include "tools/vbench/ops/persistent_forward.hpp"
#include "tools/vbench/ops/wgmma_attention.hpp"
#include "tools/vbench/ops/wgmma_gemm.hpp"

namespace vtools::vbench::cuda {

/// Which projections run together with the residual add and the layer norm after them
/// (GptForward::use_layernorm_projections).
enum class LayerNormProjections { kNone, kAttention, kBoth };

/// Which of a layer's GEMMs run as wgmma_gemm_forward: all four, or only the two projections (split-K partial
/// products, where the own kernel beat cuBLASLt in bench/wgmma_gemm_bench while qkv and fc did not).
enum class WgmmaGemms { kAll, kProjections };

class GptForward {
 public:
  /// Allocates activations for batch B and sequence T and plans the five GEMM shapes. `weights` must outlive this.
  GptForward(cublasLtHandle_t lt, const DeviceWeights& weights, int B, int T);
  ~GptForward();
  GptForward(const GptForward&) = delete;
  GptForward& operator=(const GptForward&) = delete;

  /// Measures the GEMM plans' candidate algorithms on layer 0's weights and keeps the fastest of each
  /// (Matmul::choose_fastest); call before capturing. Overwrites the activations.
  void choose_gemm_algorithms(cudaStream_t stream);

  /// The five GEMM plans (qkv, attention projection, fc, fc projection, LM head), for choosing their algorithms by
  /// whole-forward time.
  [[nodiscard]] std::vector<Matmul*> matmuls() const {
    return {qkv_mm_.get(), attn_proj_mm_.get(), fc_mm_.get(), fc_proj_mm_.get(), head_mm_.get()};
  }

  /// Enqueues one forward reading tokens() and writing logits() on `stream`.
  void enqueue(cudaStream_t stream) const;

  /// The layouts in which this model can run as fused layer steps (fused_layer_forward: n_layer + 1 kernels and the
  /// LM head); empty when it cannot.
  [[nodiscard]] const std::vector<FusedLayout>& fused_layouts() const { return fused_layouts_; }
  /// Makes enqueue() run the fused steps in `layout` (one of fused_layouts()), or the unfused sequence (nullopt, the
  /// default).
  void use_fused_layers(std::optional<FusedLayout> layout);
  [[nodiscard]] std::optional<FusedLayout> fused_layout() const { return fused_; }
  /// The tilings in which the unfused forward can run the layers' four GEMMs as wgmma_gemm_forward (bf16 on a
  /// compute capability 9.0 device, every shape taken); empty when it cannot.
  [[nodiscard]] const std::vector<WgmmaTiling>& wgmma_tilings() const { return wgmma_tilings_; }
  /// Makes the unfused forward run the layers' GEMMs (`which` of them) as wgmma_gemm_forward in `tiling` (one of
  /// wgmma_tilings()), or as cuBLASLt's (nullopt, the default). The first use makes the transposed weights, on
  /// `stream`.
  void use_wgmma_gemms(std::optional<WgmmaTiling> tiling, cudaStream_t stream, WgmmaGemms which = WgmmaGemms::kAll);
  [[nodiscard]] std::optional<WgmmaTiling> wgmma_tiling() const { return wgmma_; }
  [[nodiscard]] WgmmaGemms wgmma_gemms() const { return wgmma_gemms_; }
  /// Whether the unfused forward can run each layer's qkv GEMM and attention as one kernel
  /// (wgmma_qkv_attention_forward: bf16 on a compute capability 9.0 device, head size 64 or 32, T <= 64).
  [[nodiscard]] bool qkv_attention_available() const { return qkv_attention_available_; }
  /// Makes the unfused forward do so (true) or run them as the qkv GEMM (cuBLASLt's or the own, as use_wgmma_gemms
  /// says) and attention_forward (false, the default). The first use makes the transposed weights, on `stream`.
  void use_qkv_attention(bool on, cudaStream_t stream);
  [[nodiscard]] bool qkv_attention() const { return qkv_attention_; }
  /// Whether the layers can run as one persistent kernel (persistent_forward.hpp: bf16 on a compute capability 9.0
  /// device, head size 64, T <= 64, n_embd a multiple of 256 up to 1024).
  [[nodiscard]] bool persistent_available() const { return persistent_available_; }
  /// Makes enqueue() run the embeddings, every layer and the final layer norm as one persistent kernel, then the LM
  /// head (true), or the unfused sequence as planned otherwise (false, the default). The first use makes the
  /// transposed weights and the task list, on `stream`.
  void use_persistent(bool on, cudaStream_t stream);
  /// Where the persistent forward, once made, writes its per-task stamps (CudaOptions::persistent_trace; "" none).
  void trace_persistent_to(std::string path) { persistent_trace_ = std::move(path); }
  [[nodiscard]] bool persistent() const { return persistent_on_; }
  /// Launches the unfused forward's encoder, layer-norm and attention kernels as programmatic dependents of the
  /// kernel before them (programmatic.cuh; default off), so that the own wgmma GEMMs after them start early.
  void use_programmatic_launches(bool on) { programmatic_ = on; }
  [[nodiscard]] bool programmatic_launches() const { return programmatic_; }
  /// The tile widths (kLayerNormTiles) in which the unfused forward can run each projection together with the layer
  /// norm after it (wgmma_residual_layernorm_forward: bf16, compute capability 9.0, width a multiple of the tile up
  /// to 8 or 16 tiles, and the device fits a cluster of that many CTAs); empty when it cannot. Looked up on the first
  /// call (it sets those kernels' attributes and queries cluster occupancy), not at construction: only
  /// WgmmaTrials::kAll (VTOOLS_VBENCH_WGMMA=all) tries them.
  [[nodiscard]] const std::vector<int>& layernorm_tiles();
  /// Makes the unfused forward do so for the attention projections (n_layer fewer kernels), for both (2 * n_layer
  /// fewer: only the first layer norm stays separate; at small M the fc projection then runs on few CTAs without
  /// split-K), or for none (the default). Independent of the GEMMs chosen for qkv and fc. The first use makes the
  /// transposed weights, on `stream`.
  void use_layernorm_projections(LayerNormProjections which, int tile_n, cudaStream_t stream);
  [[nodiscard]] LayerNormProjections layernorm_projections() const { return layernorm_projections_; }
  [[nodiscard]] int layernorm_tile() const { return layernorm_tile_; }
  /// Fills every activation and the logits with NaN: a forward run after it that leaves any of them unwritten shows.
  void poison_activations(cudaStream_t stream) const;
  /// Makes enqueue() prefetch the LM head's weights into L2 (evict-last) on a side branch that forks at the start
  /// of the forward and joins before the head: they arrive while the layers run. Pays where they fit in L2 beside
  /// the forward's other traffic (ForwardSearch times it).
  void use_head_prefetch(bool on) { head_prefetch_ = on; }
  [[nodiscard]] bool head_prefetch() const { return head_prefetch_; }
  /// Makes the unfused forward compute the embeddings in its first layer norm (SublayerOutput::embeddings) instead
  /// of an encoder kernel before it: one kernel less, the same values to the bit. ForwardSearch times it (1-2 us on
  /// the small bf16 configs, even on gpt2: bench/RESULTS.md, session 15). The fused forwards have their own encoder.
  void use_embedding_layernorm(bool on) { embedding_layernorm_ = on; }
  [[nodiscard]] bool embedding_layernorm() const { return embedding_layernorm_; }
  /// How the unfused forward's layer norms spread their rows over the SMs (LayerNormBlocks). ForwardSearch times
  /// kFitted against the default kWide.
  void use_layernorm_blocks(LayerNormBlocks blocks) { layernorm_blocks_ = blocks; }
  [[nodiscard]] LayerNormBlocks layernorm_blocks() const { return layernorm_blocks_; }
  /// Whether the fp32 LM head can run as vbench's own 3xTF32 kernel (lm_head_tf32.hpp: fp32, width at most 128, a
  /// compute capability 9.0 device).
  [[nodiscard]] bool own_head_available() const { return own_head_available_; }
  /// Makes enqueue() run the LM head as that kernel (true) or as head_mm_'s cuBLASLt GEMM (false, the default).
  /// Either way 3xTF32, with the same error (bench/RESULTS.md, session 19). ForwardSearch times it.
  void use_own_head(bool on);
  [[nodiscard]] bool own_head() const { return own_head_; }

  [[nodiscard]] int* d_tokens() const { return tokens_.as<int>(); }  ///< [B][T] int32
  /// [B][T][Vp] in the activation type (float, or bf16 bits when the dtype is bf16); columns >= V are zero.
  [[nodiscard]] const DeviceBuffer& logits() const { return logits_; }
  /// The LM head's weights as the head reads them: cuBLASLt's GEMM the 3xTF32 split in fp32, the own kernel and
  /// the other dtypes the plain matrix.
  [[nodiscard]] const void* head_weights() const { return own_head_ ? w_.head().get() : head_gemm_weights(); }
  [[nodiscard]] std::size_t head_weight_bytes() const {
    return split_head() && !own_head_ ? w_.head_split.bytes() : w_.head().bytes();
  }
  [[nodiscard]] int batch() const { return B_; }
  [[nodiscard]] int seq() const { return T_; }

 private:
  template <typename A>
  void enqueue_as(cudaStream_t stream) const;
  template <typename A>
  void enqueue_fused(cudaStream_t stream) const;
  [[nodiscard]] bool split_head() const { return w_.dtype == DType::kFp32; }  ///< the LM head in 3xTF32
  [[nodiscard]] const void* head_input() const { return split_head() ? ln_split_.get() : ln_.get(); }
  /// The weights head_mm_'s GEMM reads (the 3xTF32 split in fp32).
  [[nodiscard]] const void* head_gemm_weights() const { return split_head() ? w_.head_split.get() : w_.head().get(); }
  /// With head_prefetch(): fork_head_prefetch() starts it on side_ from this point of `stream`; join_head_prefetch()
  /// makes `stream` wait for it (every fork must join before a capture ends). Without: nothing.
  void fork_head_prefetch(cudaStream_t stream) const;
  void join_head_prefetch(cudaStream_t stream) const;
  /// Enqueues the LM head (head_mm_'s GEMM, or the own kernel with own_head()) on `stream`.
  void enqueue_head(cudaStream_t stream) const;
  /// Fills transposed_ (once), on `stream`.
  void make_transposed_weights(cudaStream_t stream);

  const DeviceWeights& w_;
  int B_, T_;
  DeviceBuffer tokens_, residual_, ln_, qkv_, attn_, partials_, fc_, logits_, ln_split_, workspace_;
  DeviceBuffer fused_qkv_;  ///< fused steps only: two [B][T][3C] fp32 buffers, written by alternate steps
  std::vector<FusedLayout> fused_layouts_;
  std::optional<FusedLayout> fused_;
  std::vector<WgmmaTiling> wgmma_tilings_;
  std::optional<WgmmaTiling> wgmma_;
  WgmmaGemms wgmma_gemms_ = WgmmaGemms::kAll;
  bool programmatic_ = false;
  bool qkv_attention_available_ = false, qkv_attention_ = false;
  std::optional<std::vector<int>> layernorm_tiles_;  ///< layernorm_tiles(), once looked up
  LayerNormProjections layernorm_projections_ = LayerNormProjections::kNone;
  int layernorm_tile_ = 0;
  /// Per layer, W transposed to [N][K] for the wgmma GEMMs: attn_w, attn_proj_w, fc_w, fc_proj_w (made on first use).
  std::vector<DeviceBuffer> transposed_;
  int attn_proj_splits_ = 1, fc_proj_splits_ = 1;  ///< split-K products of the two projections (partials_ holds them)
  bool head_prefetch_ = false;
  bool own_head_available_ = false, own_head_ = false;
  bool embedding_layernorm_ = false;
  LayerNormBlocks layernorm_blocks_ = LayerNormBlocks::kWide;
  bool persistent_available_ = false, persistent_on_ = false;
  std::unique_ptr<PersistentForward> persistent_;  ///< made on the first use_persistent(true)
  std::string persistent_trace_;
  cudaStream_t side_ = nullptr;  ///< the head prefetch's branch
  cudaEvent_t fork_ = nullptr, join_ = nullptr;
  std::unique_ptr<Matmul> qkv_mm_, attn_proj_mm_, fc_mm_, fc_proj_mm_, head_mm_;
};

}  // namespace vtools::vbench::cuda
