// Finds the buffers of a function — every ttg.local_alloc (SMEM) and ttng.tmem_alloc (TMEM) — with their sizes,
// and every op that touches one, following views (memdesc_index, trans, subviews, reinterprets) and
// warp_specialize captures (operand i is argument i of each partition region) back to the allocation.
#pragma once

#include <string>
#include <vector>

#include "tools/vplan/op_effects.hpp"
#include "tools/vplan/op_order.hpp"
#include "formats/plan/plan_model.hpp"
#include "tools/vplan/ttgir_module.hpp"

namespace vtools::vplan {

struct BufferAccess {
  int buffer = 0;
  int op = 0;  ///< op id
  Access access = Access::kUse;
};

struct UnknownScratch {
  int buffer = 0;
  std::string why;  ///< what vplan could not know about its size
};

struct BufferTrace {
  std::vector<Buffer> buffers;  ///< sizes, alloc op, barrier flag, users; liveness/offsets not yet set
  std::vector<BufferAccess> accesses;
  std::vector<UnknownScratch> unknown_scratch;  ///< scratch whose size is an upper bound
  std::vector<std::pair<int, int>> captures;    ///< (buffer, warp_specialize op id): a buffer (or a view of it)
                                                ///< passed to a warp_specialize, a use there for MLIR liveness
};

/// The integers of an attribute value: "98304 : i32" -> {98304}, "array<i32: 0, 1024>" -> {0, 1024}.
std::vector<std::int64_t> parse_int_list(const std::string& value);

/// Reads the compiler's attributes of an allocating op into `b`: allocation.offset (or tensor_memory_col_offset,
/// tensor_memory_row_offset) and the WS planner's buffer.id / buffer.copy / buffer.offset. Throws Error(kDataError)
/// at the op (in `source`) for a value that is not a non-negative i32 (an array of them for allocation.offset).
void read_compiler_attributes(const Op& op, Buffer& b, const std::string& source);

/// Traces the buffers of `function`; `module` resolves encoding aliases (alignment, TMEM packing).
BufferTrace trace_buffers(const Op& function, const OpOrder& order, const Module& module);

/// SMEM bytes of a memdesc: product of the shape x element bits / 8, rounded up.
std::int64_t smem_bytes(const Type& type);  ///< -1: 2^50 elements or more (no GPU's shared memory)

/// TMEM lanes and 32-bit columns of a memdesc as Triton 3.6 sizes it (getTmemAllocSizes over the encoding's linear
/// layout, lib/Dialect/TritonNvidiaGPU/IR/Dialect.cpp, LinearLayoutConversions.cpp), per CTA (shape / CTASplitM,N):
/// 128 lanes, or 64 for an M = 64 block (blockM = 64) whose N fits one block; columns = N x M / 128 (N x 1, or N / 2,
/// for M = 64) x colStride x bits / 32 (f16 with colStride 1: packed, two per column), times the leading copies.
/// Scales (tensor_memory_scales_encoding): 128 lanes, 2 x ceil(M / 64) x ceil(K / 4) columns.
void tmem_size(const Type& type, const std::string& encoding_text, int& rows, int& cols, int& copies);

}  // namespace vtools::vplan
