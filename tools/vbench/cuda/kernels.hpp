// Launchers of vbench's own CUDA kernels, the cuda:: peers of the cpu:: references (tools/vbench/ops/<op>.cu beside
// <op>.cpp). A is the activation type and P the parameter type: float (fp32, tf32) or __nv_bfloat16 (bf16). Every
// launcher enqueues on `stream` (graph-capture safe: no sync, no allocation) and throws vtools::Error on a bad launch.
// Layouts are row-major: [B][T][C] activations, [V][C] token embeddings, [block][C] position embeddings.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstddef>

namespace vtools::vbench::cuda {

/// Largest head size attention_forward supports (its per-lane accumulators and shared tiles are sized by it).
inline constexpr int kMaxHeadSize = 128;

/// False when the environment sets VTOOLS_VBENCH_PROGRAMMATIC=0: then no kernel is launched as a programmatic
/// dependent (read once). For profiling: a dependent's time in a trace includes its early-launch wait for the kernel
/// before, so per-kernel times (vtrace) mean something only without them.
bool programmatic_launches_allowed();

/// residual[b][t][:] = wte[tokens[b][t]][:] + wpe[t][:] in fp32. Tokens must be < the rows of wte (checked by the
/// caller on the host). `programmatic` here and in layernorm_forward and attention_forward: launched as a
/// programmatic dependent of the kernel before (programmatic.cuh).
template <typename P>
void encoder_forward(float* d_residual, const int* d_tokens, const P* d_wte, const P* d_wpe, int B, int T, int C,
                     cudaStream_t stream, bool programmatic = false);

/// Up to this many split-K partial products are summed by layernorm_forward.
constexpr int kMaxSublayerSplits = 4;

/// The previous sublayer's output that layernorm_forward adds to the residual: its projection GEMM split along K
/// into `splits` fp32 partial products [splits][rows][C] (Matmul's k_splits), plus the projection's bias[C] (in
/// the weights' storage type). No partials: nothing is added. Or, before the first layer, the embeddings
/// (`tokens` set): the residual is not read but written, residual[r] = wte[tokens[r]] + wpe[r % T] as
/// encoder_forward computes it, so the encoder needs no kernel of its own.
template <typename A>
struct SublayerOutput {
  const float* partials = nullptr;
  int splits = 0;  ///< 1..kMaxSublayerSplits when partials is set
  const A* bias = nullptr;
  const int* tokens = nullptr;  ///< [rows] token ids; with wte [V][C], wpe [T][C]
  const A* wte = nullptr;
  const A* wpe = nullptr;
  int T = 0;

  /// The embeddings of `tokens` as the sublayer output.
  static SublayerOutput embeddings(const int* tokens, const A* wte, const A* wpe, int T) {
    SublayerOutput e;
    e.tokens = tokens, e.wte = wte, e.wpe = wpe, e.T = T;
    return e;
  }
};

/// How layernorm_forward spreads its rows (one block each) where a row is up to 1024 values, a multiple of 4 (others
/// always kWide). Which is faster depends on the model (H100, bf16, B=4 T=64, bench/RESULTS.md session 16: kFitted
/// 1-9% faster forwards at widths 128-256, 2% slower at gpt2's 768), so CudaBackend times both.
enum class LayerNormBlocks {
  kWide,    ///< 256 threads per row, as many blocks per SM as fit
  kFitted,  ///< as many warps as the row's groups of 4 values need; at most 2 blocks per SM (padded shared memory)
};

/// Whether LayerNormBlocks::kFitted launches differently from kWide for rows of C values.
inline bool fitted_layernorm_applies(int C) { return C % 4 == 0 && C <= 1024; }

/// Per row r of [rows][C]: residual[r] += sum of the partials[s][r] + bias first (the residual add of the previous
/// sublayer and its split-K reduction, fused here), or residual[r] = the embeddings of token r; then
/// out[r] = (residual[r] - mean) / sqrt(var + 1e-5) * weight + bias, with mean and the biased variance in fp32.
/// Parameters stay fp32 in every dtype (they are tiny).
template <typename A>
void layernorm_forward(A* d_out, float* d_residual, SublayerOutput<A> add, const float* d_weight,
                       const float* d_bias, int rows, int C, cudaStream_t stream, bool programmatic = false,
                       LayerNormBlocks blocks = LayerNormBlocks::kWide);

/// layernorm_forward for fp32 with each output row written as the 3C values [lo | hi | hi], hi = tf32(y),
/// lo = tf32(y - hi): the left operand of a 3xTF32 GEMM against weight rows [hi | lo | hi] (d_out3 is [rows][3C]).
void layernorm_forward_split_tf32(float* d_out3, float* d_residual, SublayerOutput<float> add,
                                  const float* d_weight, const float* d_bias, int rows, int C, cudaStream_t stream,
                                  LayerNormBlocks blocks = LayerNormBlocks::kWide);

/// Causal multi-head attention, fused (flash-style: key tiles in shared memory, online softmax in fp32, no T x T
/// matrix; bf16 with head size 16, 32 or 64 runs on tensor cores, P.V in fp16): qkv is [B][T][3C] (q, k, v each
/// split into NH heads of C/NH), out is [B][T][C] with head h in columns [h*hs, (h+1)*hs). Any T; head size
/// hs = C/NH must divide C and be at most kMaxHeadSize.
template <typename A>
void attention_forward(A* d_out, const A* d_qkv, int B, int T, int C, int NH, cudaStream_t stream,
                       bool programmatic = false);

/// x[r][n] = gelu_tanh(x[r][n] + bias[n]) (bias optional, gelu optional): the GEMM epilogue for shapes where
/// cuBLASLt offers no fused one.
template <typename A>
void bias_gelu_forward(A* d_x, const A* d_bias, bool gelu, int rows, int N, cudaStream_t stream);

/// How many (a, b) with 0 <= a < a_end and 0 < b < b_end kernel_math.cuh's small_div (the fused step's fast
/// division) gets wrong against integer division, computed on the device: its GPU test.
long long small_div_mismatches(int a_end, int b_end);

/// Starts fetching d_bytes[0..bytes) (cudaMalloc'd) into L2, marked evict-last, and returns at once: a tiny kernel
/// issues bulk prefetches and ends; the lines arrive while later work runs. A hint: it changes no data.
void l2_prefetch(const void* d_bytes, std::size_t bytes, cudaStream_t stream);

/// Bytes of the buffer l2_flush needs on the current device: twice its L2.
std::size_t l2_flush_bytes();
/// Leaves L2 holding only clean, evict-normal lines of d_buffer[0..bytes) (zero-filled, at least l2_flush_bytes()):
/// reads it marked evict-last, so that earlier evict-last lines go too, then sets its lines back to evict-normal.
/// d_sink: one unsigned of device memory the reads may write (they do not, on zeros), so that they are kept.
void l2_flush(const void* d_buffer, std::size_t bytes, unsigned* d_sink, cudaStream_t stream);
/// Reads d_bytes[0..bytes) once with plain loads (what tests time to see where the bytes come from).
void l2_read(const void* d_bytes, std::size_t bytes, unsigned* d_sink, cudaStream_t stream);

/// Widest model fused_layer_forward takes: each CTA holds 6 C x 16 floats of rows in shared memory.
inline constexpr int kMaxFusedWidth = 384;
/// Longest sequence it takes: a warp keeps one query row's attention probabilities in shared memory.
inline constexpr int kMaxFusedSeq = 512;

/// How fused_layer_forward spreads a step's rows over CTAs. Each keeps a CTA's rows in shared memory for the whole
/// step; they differ in how many rows a CTA holds and who computes which GEMM columns.
enum class FusedLayout {
  /// A thread-block cluster of 8 CTAs owns 16 rows; each CTA computes 1/8 of every GEMM's columns and writes them
  /// into every CTA's shared memory (DSMEM), meeting the others at 5 cluster barriers per step.
  kClusterColumns,
  /// A CTA of 512 threads owns 4 rows and computes every column, its step's weights copied whole into its shared
  /// memory (bulk copies) as it starts where they fit (up to width 64 in fp32, 80 in bf16), else read from global
  /// memory: no cluster, each CTA reads the whole layer from L2. A GEMM wider than 512 columns takes more passes.
  kBlockRows,
  /// Block rows with 2 rows per CTA: twice the CTAs (and twice the weight reads from L2), half the work each.
  kBlockRowPairs,
};
inline constexpr FusedLayout kFusedLayouts[] = {FusedLayout::kClusterColumns, FusedLayout::kBlockRows,
                                                 FusedLayout::kBlockRowPairs};
/// "cluster columns", "block rows" or "block row pairs".
const char* fused_layout_name(FusedLayout layout);

/// One launch of fused_layer_forward (fused_layer.cu): layer l's second half (attention, projection, residual add,
/// layer norm 2, MLP, residual add; or the encoder when `tokens` is set), then layer l + 1's first half (layer
/// norm 1 and the qkv GEMM into qkv_out; when attn_w is set) or the final layer norm into head_out. P is the
/// weights' storage type; layer-norm parameters are fp32; q, k, v and the residual are fp32.
template <typename P>
struct FusedLayerStep {
  const int* tokens = nullptr;  ///< [B][T], with wte and wpe: the first step starts with the encoder
  const P* wte = nullptr;
  const P* wpe = nullptr;
  const float* qkv_in = nullptr;  ///< [B][T][3C]: layer l's q, k, v
  const P* attn_proj_w = nullptr;
  const P* attn_proj_b = nullptr;
  const float* ln2_w = nullptr;
  const float* ln2_b = nullptr;
  const P* fc_w = nullptr;
  const P* fc_b = nullptr;
  const P* fc_proj_w = nullptr;
  const P* fc_proj_b = nullptr;
  const float* ln_w = nullptr;  ///< layer l + 1's layer norm 1, or the final one
  const float* ln_b = nullptr;
  const P* attn_w = nullptr;  ///< layer l + 1's qkv weights; null: the final layer norm instead
  const P* attn_b = nullptr;
  float* qkv_out = nullptr;  ///< [B][T][3C], not qkv_in
  P* head_out = nullptr;     ///< [B][T][C], or [B][T][3C] rows [lo | hi | hi] when split_head (fp32 only)
  bool split_head = false;
  float* residual = nullptr;  ///< [B][T][C]: read at the start (not by the first step), written at the end
  int B = 0, T = 0, C = 0, NH = 0;
  FusedLayout layout = FusedLayout::kClusterColumns;
};

/// Whether fused_layer_forward takes `layout` with width C, NH heads and sequences of T for weights of type P on the
/// current device (head size 16, 32 or 64, C a multiple of 8 up to kMaxFusedWidth, T up to kMaxFusedSeq, the
/// cluster fits); when it does, the kernel is made ready (its shared memory size set). Host only, outside stream
/// capture.
template <typename P>
bool fused_layer_ready(FusedLayout layout, int C, int NH, int T);

/// Enqueues one step; the forward is n_layer + 1 of them, the first with the encoder, the last with the final layer
/// norm, qkv_in/qkv_out alternating between two buffers. Needs fused_layer_ready for its shape.
template <typename P>
void fused_layer_forward(const FusedLayerStep<P>& step, cudaStream_t stream);

}  // namespace vtools::vbench::cuda
