// The device forward (see gpt_forward.hpp for the sequence).
#include "tools/vbench/cuda/gpt_forward.hpp"

#include <cuda_bf16.h>

#include <algorithm>
#include <cstddef>
#include <string>
#include <type_traits>
#include <utility>

#include "libcommon/error.hpp"
#include "tools/vbench/ops/attention.hpp"
#include "tools/vbench/ops/encoder.hpp"
#include "tools/vbench/ops/fused_layer.hpp"
#include "tools/vbench/ops/l2_prefetch.hpp"
#include "tools/vbench/ops/layernorm.hpp"
#include "tools/vbench/ops/lm_head_tf32.hpp"

namespace vtools::vbench::cuda {

namespace {
constexpr std::size_t kWorkspaceBytes = 32u << 20;  // cuBLASLt's recommendation for Hopper

/// Split-K products for a projection of depth K: one per kSplitDepth inputs, at most kMaxSublayerSplits. The
/// small-M tensor-core GEMMs run few thread blocks, each through a long K loop; on the H100, gpt2 bf16 B=4 T=64
/// (median us, 2 runs; session 4, cuBLASLt GEMMs): fc_proj/attn_proj splits 1/1 446.6, 2/1 431.0, 4/1 430.1, 2/2
/// 424.7, 4/2 424.0. With the own wgmma GEMMs (session 12, kept forwards, 2 runs) a depth of 256 instead of 384 gave
/// gpt2 4/3 370.7, 370.6 (4/2: 375.8, 375.0), gpt_micro 2/1 76.4, 76.1 (1/1: 79.1, 78.7), gpt_mini 3/1 115.6, 115.4
/// (2/1: 118.3, 117.4), gpt_tile_medium 2/1 103.8, 103.8 (1/1: 107.3, 108.0), gpt_tile_large 4/1 146.5, 150.6 (2/1:
/// 158.7, 158.3); 4 fc_proj splits everywhere was within 1.5 us of that. fp32 keeps one product (its SIMT GEMMs are
/// compute-bound; split, gpt2 fp32 measured 1937 vs 1844 us).
int projection_splits(int K, DType dtype) {
  constexpr int kSplitDepth = 256;
  if (dtype == DType::kFp32) return 1;
  int splits = std::clamp(K / kSplitDepth, 1, kMaxSublayerSplits);
  while (K % (8 * splits) != 0) --splits;
  return splits;
}
}

GptForward::GptForward(cublasLtHandle_t lt, const DeviceWeights& weights, int B, int T) : w_(weights), B_(B), T_(T) {
  const GptConfig& cfg = weights.config;
  if (B <= 0 || T <= 0) throw Error(ExitCode::kUsage, "batch and sequence must be positive");
  if (T > cfg.block_size) {
    throw Error(ExitCode::kUsage, "sequence length " + std::to_string(T) + " exceeds the block size " +
                                      std::to_string(cfg.block_size) + " of '" + cfg.name + "'");
  }
  if (cfg.n_head <= 0 || cfg.n_embd % cfg.n_head != 0 || cfg.n_embd / cfg.n_head > kMaxHeadSize) {
    throw Error(ExitCode::kUnavailable, "the cuda backend needs n_embd to be a multiple of n_head with a head size of at "
                                        "most " + std::to_string(kMaxHeadSize) + ", got n_embd " +
                                        std::to_string(cfg.n_embd) + " and n_head " + std::to_string(cfg.n_head));
  }
  const std::size_t R = static_cast<std::size_t>(B) * T, C = cfg.n_embd, Vp = weights.padded_vocab;
  const std::size_t act = weights.dtype == DType::kBf16 ? sizeof(__nv_bfloat16) : sizeof(float);
  tokens_ = DeviceBuffer(R * sizeof(int), "tokens");
  residual_ = DeviceBuffer(R * C * sizeof(float), "residual");
  ln_ = DeviceBuffer(R * C * act, "layernorm output");
  qkv_ = DeviceBuffer(R * 3 * C * act, "qkv");
  attn_ = DeviceBuffer(R * C * act, "attention output");
  attn_proj_splits_ = projection_splits(cfg.n_embd, weights.dtype);
  fc_proj_splits_ = projection_splits(4 * cfg.n_embd, weights.dtype);
  const std::size_t splits = static_cast<std::size_t>(std::max(attn_proj_splits_, fc_proj_splits_));
  partials_ = DeviceBuffer(splits * R * C * sizeof(float), "projection split-K partials");
  fc_ = DeviceBuffer(R * 4 * C * act, "mlp hidden");
  logits_ = DeviceBuffer(R * Vp * act, "logits");
  if (split_head()) ln_split_ = DeviceBuffer(R * 3 * C * sizeof(float), "final layernorm output (3xTF32 split)");
  workspace_ = DeviceBuffer(kWorkspaceBytes, "cuBLASLt workspace");
  for (const FusedLayout layout : kFusedLayouts) {
    if (weights.dtype == DType::kBf16 ? fused_layer_ready<__nv_bfloat16>(layout, cfg.n_embd, cfg.n_head, T)
                                      : fused_layer_ready<float>(layout, cfg.n_embd, cfg.n_head, T)) {
      fused_layouts_.push_back(layout);
    }
  }
  if (!fused_layouts_.empty()) fused_qkv_ = DeviceBuffer(2 * R * 3 * C * sizeof(float), "fused steps' qkv");
  const int M = static_cast<int>(R), Ci = cfg.n_embd;
  const DType dt = weights.dtype;
  qkv_mm_ = std::make_unique<Matmul>(lt, MatmulShape{M, 3 * Ci, Ci}, dt, Epilogue::kBias, kWorkspaceBytes);
  attn_proj_mm_ = std::make_unique<Matmul>(lt, MatmulShape{M, Ci, Ci, false, attn_proj_splits_}, dt, Epilogue::kNone,
                                           kWorkspaceBytes);
  fc_mm_ = std::make_unique<Matmul>(lt, MatmulShape{M, 4 * Ci, Ci}, dt, Epilogue::kBiasGelu, kWorkspaceBytes);
  fc_proj_mm_ = std::make_unique<Matmul>(lt, MatmulShape{M, Ci, 4 * Ci, false, fc_proj_splits_}, dt, Epilogue::kNone,
                                         kWorkspaceBytes);
  // fp32: the LM head as 3xTF32, one TF32 GEMM over K = 3C (see gpt_forward.hpp); the other dtypes as they are.
  head_mm_ = std::make_unique<Matmul>(lt, MatmulShape{M, static_cast<int>(Vp), split_head() ? 3 * Ci : Ci, true},
                                      split_head() ? DType::kTf32 : dt, Epilogue::kNone, kWorkspaceBytes);
  int device = 0;
  check_cuda(cudaGetDevice(&device), "cudaGetDevice");
  own_head_available_ = split_head() && lm_head_tf32_takes(M, static_cast<int>(Vp), Ci, device);
  if (dt == DType::kBf16 && !w_.layers.empty() && wgmma_gemm_available(device)) {
    for (const WgmmaTiling tiling : kWgmmaTilings) {
      bool takes = true;
      for (const Matmul* mm : {qkv_mm_.get(), attn_proj_mm_.get(), fc_mm_.get(), fc_proj_mm_.get()}) {
        takes = takes && wgmma_gemm_takes(mm->shape(), tiling);
      }
      if (takes) wgmma_tilings_.push_back(tiling);
    }
    qkv_attention_available_ = wgmma_qkv_attention_takes(B, T, Ci, cfg.n_head);
    persistent_available_ = persistent_forward_takes(B, T, Ci, cfg.n_head, cfg.n_layer, device);
  }
  check_cuda(cudaStreamCreateWithFlags(&side_, cudaStreamNonBlocking), "cudaStreamCreate", "the prefetch branch");
  check_cuda(cudaEventCreateWithFlags(&fork_, cudaEventDisableTiming), "cudaEventCreate", "the prefetch fork");
  check_cuda(cudaEventCreateWithFlags(&join_, cudaEventDisableTiming), "cudaEventCreate", "the prefetch join");
}

GptForward::~GptForward() {
  if (fork_ != nullptr) cudaEventDestroy(fork_);
  if (join_ != nullptr) cudaEventDestroy(join_);
  if (side_ != nullptr) cudaStreamDestroy(side_);
}

void GptForward::fork_head_prefetch(cudaStream_t stream) const {
  if (!head_prefetch_) return;
  check_cuda(cudaEventRecord(fork_, stream), "cudaEventRecord", "the prefetch fork");
  check_cuda(cudaStreamWaitEvent(side_, fork_), "cudaStreamWaitEvent", "the prefetch fork");
  l2_prefetch(head_weights(), head_weight_bytes(), side_);
}

void GptForward::join_head_prefetch(cudaStream_t stream) const {
  if (!head_prefetch_) return;
  check_cuda(cudaEventRecord(join_, side_), "cudaEventRecord", "the prefetch join");
  check_cuda(cudaStreamWaitEvent(stream, join_), "cudaStreamWaitEvent", "the prefetch join");
}

void GptForward::choose_gemm_algorithms(cudaStream_t stream) {
  void* ws = workspace_.get();
  if (!w_.layers.empty()) {
    const DeviceLayer& l = w_.layers.front();
    qkv_mm_->choose_fastest(qkv_.get(), ln_.get(), l.attn_w.get(), l.attn_b.get(), ws, stream);
    attn_proj_mm_->choose_fastest(partials_.get(), attn_.get(), l.attn_proj_w.get(), nullptr, ws, stream);
    fc_mm_->choose_fastest(fc_.get(), ln_.get(), l.fc_w.get(), l.fc_b.get(), ws, stream);
    fc_proj_mm_->choose_fastest(partials_.get(), fc_.get(), l.fc_proj_w.get(), nullptr, ws, stream);
  }
  head_mm_->choose_fastest(logits_.get(), head_input(), head_gemm_weights(), nullptr, ws, stream);
}

void GptForward::use_own_head(bool on) {
  if (on && !own_head_available_) {
    throw Error(ExitCode::kInternal, "the LM head cannot run as the own 3xTF32 kernel for this model");
  }
  own_head_ = on;
}

void GptForward::enqueue_head(cudaStream_t stream) const {
  if (own_head_) {
    return lm_head_tf32_forward(logits_.as<float>(), ln_split_.as<float>(), w_.head().as<float>(), B_ * T_,
                                w_.padded_vocab, w_.config.n_embd, stream);
  }
  head_mm_->run(logits_.get(), head_input(), head_gemm_weights(), nullptr, workspace_.get(), stream);
}

void GptForward::use_fused_layers(std::optional<FusedLayout> layout) {
  if (layout && std::find(fused_layouts_.begin(), fused_layouts_.end(), *layout) == fused_layouts_.end()) {
    throw Error(ExitCode::kInternal, std::string("the fused layer steps cannot run in the ") +
                                         fused_layout_name(*layout) + " layout for this model");
  }
  fused_ = layout;
}

void GptForward::use_wgmma_gemms(std::optional<WgmmaTiling> tiling, cudaStream_t stream, WgmmaGemms which) {
  if (tiling) {
    if (std::find(wgmma_tilings_.begin(), wgmma_tilings_.end(), *tiling) == wgmma_tilings_.end()) {
      throw Error(ExitCode::kInternal, "the wgmma GEMMs cannot run this model's layers in the " +
                                           wgmma_tiling_name(*tiling) + " tiling");
    }
    make_transposed_weights(stream);
  }
  wgmma_ = tiling;
  wgmma_gemms_ = which;
}

void GptForward::use_qkv_attention(bool on, cudaStream_t stream) {
  if (on && !qkv_attention_available_) {
    throw Error(ExitCode::kInternal, "the qkv GEMM and attention cannot run as one kernel for this model and shape");
  }
  if (on) make_transposed_weights(stream);
  qkv_attention_ = on;
}

void GptForward::use_persistent(bool on, cudaStream_t stream) {
  if (on && !persistent_available_) {
    throw Error(ExitCode::kInternal, "the layers cannot run as one persistent kernel for this model and shape");
  }
  if (on && !persistent_) {
    make_transposed_weights(stream);
    const GptConfig& cfg = w_.config;
    PersistentModel m;
    m.B = B_, m.T = T_, m.C = cfg.n_embd, m.NH = cfg.n_head;
    m.tokens = d_tokens(), m.wte = w_.wte.as<__nv_bfloat16>(), m.wpe = w_.wpe.as<__nv_bfloat16>();
    for (std::size_t i = 0; i < w_.layers.size(); ++i) {
      const DeviceLayer& l = w_.layers[i];
      PersistentLayer p;
      p.attn_wt = transposed_[4 * i].as<__nv_bfloat16>(), p.attn_b = l.attn_b.as<__nv_bfloat16>();
      p.attn_proj_wt = transposed_[4 * i + 1].as<__nv_bfloat16>(), p.attn_proj_b = l.attn_proj_b.as<__nv_bfloat16>();
      p.fc_wt = transposed_[4 * i + 2].as<__nv_bfloat16>(), p.fc_b = l.fc_b.as<__nv_bfloat16>();
      p.fc_proj_wt = transposed_[4 * i + 3].as<__nv_bfloat16>(), p.fc_proj_b = l.fc_proj_b.as<__nv_bfloat16>();
      p.ln1_w = l.ln1_w.as<float>(), p.ln1_b = l.ln1_b.as<float>();
      p.ln2_w = l.ln2_w.as<float>(), p.ln2_b = l.ln2_b.as<float>();
      m.layers.push_back(p);
    }
    m.lnf_w = w_.lnf_w.as<float>(), m.lnf_b = w_.lnf_b.as<float>();
    m.residual = residual_.as<float>(), m.ln = ln_.as<__nv_bfloat16>(), m.attn = attn_.as<__nv_bfloat16>();
    m.hidden = fc_.as<__nv_bfloat16>();
    m.trace_path = persistent_trace_;
    persistent_ = std::make_unique<PersistentForward>(m);
  }
  persistent_on_ = on;
}

void GptForward::use_layernorm_projections(LayerNormProjections which, int tile_n, cudaStream_t stream) {
  if (which == LayerNormProjections::kNone) {
    layernorm_projections_ = which;
    layernorm_tile_ = 0;
    return;
  }
  const std::vector<int>& tiles = layernorm_tiles();
  if (std::find(tiles.begin(), tiles.end(), tile_n) == tiles.end()) {
    throw Error(ExitCode::kInternal, "the projections cannot run with their layer norms in tiles " +
                                         std::to_string(tile_n) + " wide for this model");
  }
  make_transposed_weights(stream);
  layernorm_projections_ = which;
  layernorm_tile_ = tile_n;
}

const std::vector<int>& GptForward::layernorm_tiles() {
  if (layernorm_tiles_) return *layernorm_tiles_;
  layernorm_tiles_.emplace();
  int device = 0;
  check_cuda(cudaGetDevice(&device), "cudaGetDevice");
  if (w_.dtype != DType::kBf16 || w_.layers.empty() || !wgmma_gemm_available(device)) return *layernorm_tiles_;
  MatmulShape attn_proj = attn_proj_mm_->shape(), fc_proj = fc_proj_mm_->shape();
  attn_proj.k_splits = fc_proj.k_splits = 0;
  for (const int tile_n : kLayerNormTiles) {
    if (wgmma_residual_layernorm_ready(attn_proj, tile_n) && wgmma_residual_layernorm_ready(fc_proj, tile_n)) {
      layernorm_tiles_->push_back(tile_n);
    }
  }
  return *layernorm_tiles_;
}

void GptForward::make_transposed_weights(cudaStream_t stream) {
  if (!transposed_.empty()) return;
  for (const DeviceLayer& l : w_.layers) {  // W [K][N] -> Wt [N][K], the K-major operand wgmma reads
    const std::pair<const DeviceBuffer*, const Matmul*> gemms[] = {
        {&l.attn_w, qkv_mm_.get()}, {&l.attn_proj_w, attn_proj_mm_.get()}, {&l.fc_w, fc_mm_.get()},
        {&l.fc_proj_w, fc_proj_mm_.get()}};
    for (const auto& [w, mm] : gemms) {
      DeviceBuffer t(w->bytes(), "a transposed layer weight");
      transpose_bf16(t.as<__nv_bfloat16>(), w->as<__nv_bfloat16>(), mm->shape().K, mm->shape().N, stream);
      transposed_.push_back(std::move(t));
    }
  }
  check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize", "the weight transposes");
}

void GptForward::poison_activations(cudaStream_t stream) const {
  for (const DeviceBuffer* b : {&residual_, &ln_, &qkv_, &attn_, &partials_, &fc_, &logits_, &ln_split_}) {
    if (b->bytes() > 0) {
      check_cuda(cudaMemsetAsync(b->get(), 0xFF, b->bytes(), stream), "cudaMemsetAsync", "NaN activations");
    }
  }
}

void GptForward::enqueue(cudaStream_t stream) const {
  if (w_.dtype == DType::kBf16) {
    enqueue_as<__nv_bfloat16>(stream);
  } else {
    enqueue_as<float>(stream);
  }
}

template <typename A>
void GptForward::enqueue_as(cudaStream_t stream) const {
  if (fused_) return enqueue_fused<A>(stream);
  if (persistent_on_) {  // bf16 only (use_persistent checks)
    fork_head_prefetch(stream);
    persistent_->enqueue(stream);
    join_head_prefetch(stream);
    enqueue_head(stream);
    return;
  }
  const GptConfig& cfg = w_.config;
  const int R = B_ * T_, C = cfg.n_embd;
  void* ws = workspace_.get();
  A* ln = ln_.as<A>();
  float* partials = partials_.as<float>();
  float* residual = residual_.as<float>();
  fork_head_prefetch(stream);
  // The sublayer output not yet added to the residual; first the embeddings, computed by the encoder kernel or by
  // the first layer norm.
  SublayerOutput<A> pending;
  if (embedding_layernorm_) {
    pending = SublayerOutput<A>::embeddings(d_tokens(), w_.wte.as<A>(), w_.wpe.as<A>(), T_);
  } else {
    encoder_forward(residual, d_tokens(), w_.wte.as<A>(), w_.wpe.as<A>(), B_, T_, C, stream, programmatic_);
  }
  std::size_t layer = 0;
  // The i-th GEMM of the layer (0 qkv, 1 attention projection, 2 fc, 3 fc projection): cuBLASLt's or the own wgmma.
  auto gemm = [&](int i, const Matmul& mm, void* y, const void* x, const DeviceBuffer& w, const DeviceBuffer* bias) {
    const void* b = bias != nullptr ? bias->get() : nullptr;
    if constexpr (std::is_same_v<A, __nv_bfloat16>) {
      if (wgmma_ && (wgmma_gemms_ == WgmmaGemms::kAll || i == 1 || i == 3)) {
        return wgmma_gemm_forward(mm.shape(), mm.epilogue(), *wgmma_, y, static_cast<const A*>(x),
                                  transposed_[4 * layer + i].as<A>(), static_cast<const A*>(b), stream);
      }
    }
    mm.run(y, x, w.get(), b, ws, stream);
  };
  // With layernorm_projections_ (bf16 only), the i-th GEMM (1 or 3) adds its product and bias to the residual and
  // writes the layer norm of the result with ln_w, ln_b into ln: one kernel instead of a GEMM and a layer norm.
  const bool fused_attn_ln = layernorm_projections_ != LayerNormProjections::kNone;
  const bool fused_fc_ln = layernorm_projections_ == LayerNormProjections::kBoth;
  auto projection_layernorm = [&](int i, const Matmul& mm, const void* x, const DeviceBuffer& bias,
                                  const DeviceBuffer& ln_w, const DeviceBuffer& ln_b) {
    if constexpr (std::is_same_v<A, __nv_bfloat16>) {
      MatmulShape shape = mm.shape();
      shape.k_splits = 0;
      wgmma_residual_layernorm_forward(shape, layernorm_tile_, static_cast<const A*>(x),
                                       transposed_[4 * layer + i].as<A>(), bias.as<A>(), residual, ln_w.as<float>(),
                                       ln_b.as<float>(), ln, stream);
    }
  };
  for (const DeviceLayer& l : w_.layers) {
    if (!fused_fc_ln || layer == 0) {
      layernorm_forward(ln, residual, pending, l.ln1_w.as<float>(), l.ln1_b.as<float>(), R, C, stream, programmatic_,
                        layernorm_blocks_);
    }
    if constexpr (std::is_same_v<A, __nv_bfloat16>) {
      if (qkv_attention_) {
        wgmma_qkv_attention_forward(attn_.as<A>(), ln, transposed_[4 * layer].as<A>(), l.attn_b.as<A>(), B_, T_, C,
                                    cfg.n_head, stream);
      }
    }
    if (!qkv_attention_) {
      gemm(0, *qkv_mm_, qkv_.get(), ln, l.attn_w, &l.attn_b);
      attention_forward(attn_.as<A>(), qkv_.as<A>(), B_, T_, C, cfg.n_head, stream, programmatic_);
    }
    if (fused_attn_ln) {
      projection_layernorm(1, *attn_proj_mm_, attn_.get(), l.attn_proj_b, l.ln2_w, l.ln2_b);
    } else {
      gemm(1, *attn_proj_mm_, partials, attn_.get(), l.attn_proj_w, nullptr);
      layernorm_forward(ln, residual, SublayerOutput<A>{partials, attn_proj_splits_, l.attn_proj_b.as<A>()},
                        l.ln2_w.as<float>(), l.ln2_b.as<float>(), R, C, stream, programmatic_, layernorm_blocks_);
    }
    gemm(2, *fc_mm_, fc_.get(), ln, l.fc_w, &l.fc_b);
    if (fused_fc_ln) {  // the next layer's first layer norm, or the final one
      const bool last = layer + 1 == w_.layers.size();
      projection_layernorm(3, *fc_proj_mm_, fc_.get(), l.fc_proj_b, last ? w_.lnf_w : w_.layers[layer + 1].ln1_w,
                           last ? w_.lnf_b : w_.layers[layer + 1].ln1_b);
    } else {
      gemm(3, *fc_proj_mm_, partials, fc_.get(), l.fc_proj_w, nullptr);
      pending = SublayerOutput<A>{partials, fc_proj_splits_, l.fc_proj_b.as<A>()};
    }
    ++layer;
  }
  if constexpr (std::is_same_v<A, float>) {  // split_head() is false for every other A
    if (split_head()) {
      layernorm_forward_split_tf32(ln_split_.as<float>(), residual, pending, w_.lnf_w.as<float>(),
                                   w_.lnf_b.as<float>(), R, C, stream, layernorm_blocks_);
    }
  }
  if (!split_head() && !fused_fc_ln) {
    layernorm_forward(ln, residual, pending, w_.lnf_w.as<float>(), w_.lnf_b.as<float>(), R, C, stream,
                      programmatic_, layernorm_blocks_);
  }
  join_head_prefetch(stream);
  enqueue_head(stream);
}

template <typename A>
void GptForward::enqueue_fused(cudaStream_t stream) const {
  const GptConfig& cfg = w_.config;
  const int L = cfg.n_layer;
  const std::size_t plane = static_cast<std::size_t>(B_) * T_ * 3 * cfg.n_embd;
  float* const qkv[2] = {fused_qkv_.as<float>(), fused_qkv_.as<float>() + plane};
  fork_head_prefetch(stream);
  for (int i = 0; i <= L; ++i) {  // step i: layer i - 1's second half (the encoder for i = 0), layer i's first half
    FusedLayerStep<A> step;
    step.B = B_, step.T = T_, step.C = cfg.n_embd, step.NH = cfg.n_head, step.layout = *fused_;
    step.residual = residual_.as<float>();
    if (i == 0) {
      step.tokens = d_tokens(), step.wte = w_.wte.as<A>(), step.wpe = w_.wpe.as<A>();
    } else {
      const DeviceLayer& l = w_.layers[i - 1];
      step.qkv_in = qkv[(i - 1) % 2];
      step.attn_proj_w = l.attn_proj_w.as<A>(), step.attn_proj_b = l.attn_proj_b.as<A>();
      step.ln2_w = l.ln2_w.as<float>(), step.ln2_b = l.ln2_b.as<float>();
      step.fc_w = l.fc_w.as<A>(), step.fc_b = l.fc_b.as<A>();
      step.fc_proj_w = l.fc_proj_w.as<A>(), step.fc_proj_b = l.fc_proj_b.as<A>();
    }
    if (i < L) {
      const DeviceLayer& next = w_.layers[i];
      step.ln_w = next.ln1_w.as<float>(), step.ln_b = next.ln1_b.as<float>();
      step.attn_w = next.attn_w.as<A>(), step.attn_b = next.attn_b.as<A>();
      step.qkv_out = qkv[i % 2];
    } else {
      step.ln_w = w_.lnf_w.as<float>(), step.ln_b = w_.lnf_b.as<float>();
      step.head_out = split_head() ? ln_split_.as<A>() : ln_.as<A>();
      step.split_head = split_head();
    }
    fused_layer_forward(step, stream);
  }
  join_head_prefetch(stream);
  enqueue_head(stream);
}

}  // namespace vtools::vbench::cuda
