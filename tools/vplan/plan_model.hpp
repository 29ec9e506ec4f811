// The plan: what vplan computes from a kernel and writes as vtools.plan — ops in a stable order with partitions,
// buffers (SMEM bytes, TMEM rows x cols) with liveness and offsets, channels between partitions, and the budget
// summary. Plain data; analyses fill it (plan_builder), writers read it (plan_json, dot_writer, table_writer).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tools/vplan/ttgir_module.hpp"

namespace vtools::vplan {

inline constexpr int kNoPartition = -1;

/// What a key op does, for graphs and tables ("" = not a key op).
enum class KeyKind { kNone, kLoad, kStore, kMma, kMath };
enum class MemorySpace { kSmem, kTmem };

struct PlanKernel {
  std::string name;    ///< function name without '@'
  std::string target;  ///< "cuda:90"
  int num_warps = 0;   ///< the module's ttg.num-warps (the default partition)
  int total_warps = 0; ///< default + partition warps, rounded up to a warp group (4) as Triton launches them
  std::string source;  ///< input display name
};

struct Partition {
  int id = 0;              ///< default region = 0, partitionN = N + 1 (matches async_task_id / ttg.partition)
  std::string region;      ///< "default", "partition0", ... ("" when known only from attributes)
  int num_warps = 0;
  int op_count = 0;
};

struct PlanOp {
  int id = 0;                       ///< post-order walk index over the function (see op_order.hpp)
  std::string name;                 ///< "ttng.tc_gen5_mma"
  int partition = kNoPartition;
  std::string result;               ///< "%acc_26" or ""
  std::vector<std::string> operands;
  std::string shape;                ///< result tensor/memdesc shape "128x128xf32", or ""
  SourceLoc loc;
  KeyKind key = KeyKind::kNone;
  bool sync = false;                ///< barrier / fence / wait: synchronisation, not data
  int parent = -1;                  ///< id of the enclosing op (-1 at function level)
};

struct Buffer {
  int id = 0;
  std::string name;        ///< location name ("acc") or the value ("%44")
  std::string value;       ///< the allocating value ("%44")
  MemorySpace space = MemorySpace::kSmem;
  std::vector<std::int64_t> shape;
  std::string element_type;
  std::string encoding;
  std::int64_t bytes = 0;  ///< SMEM: shape x element bits / 8 (TMEM: rows x cols x 4)
  int rows = 0;            ///< TMEM lanes
  int cols = 0;            ///< TMEM 32-bit columns, all copies
  int copies = 1;          ///< leading dimension of a multi-buffered allocation (1 when rank <= 2)
  bool barrier = false;    ///< an mbarrier array (used by barrier ops), synchronisation storage
  int alloc_op = 0;
  int start = 0, end = 0;  ///< liveness [start, end) in op ids
  std::int64_t alignment = 16;
  std::int64_t offset = 0;          ///< bytes (SMEM) or columns (TMEM) from the allocator
  std::vector<int> channels;
  std::vector<int> users;           ///< op ids that access the buffer (views followed)
  int operand_d = 0;                ///< channels of this buffer that are MMA accumulators read and written
  SourceLoc loc;
};

struct ChannelEnd {
  int op = 0;
  int partition = kNoPartition;
};

struct Channel {
  int id = 0;
  int buffer = 0;
  MemorySpace space = MemorySpace::kSmem;
  ChannelEnd producer;
  std::vector<ChannelEnd> consumers;
  bool operand_d = false;
};

struct Summary {
  std::int64_t smem_peak_bytes = 0;       ///< most bytes live at one op
  std::int64_t smem_allocated_bytes = 0;  ///< end of the highest buffer after offset assignment
  std::int64_t smem_limit_bytes = 0;
  int smem_peak_op = 0;
  std::vector<int> smem_live_at_peak;     ///< buffer ids
  std::int64_t tmem_peak_cols = 0;
  std::int64_t tmem_allocated_cols = 0;
  std::int64_t tmem_limit_cols = 0;
  int tmem_peak_op = 0;
  std::vector<int> tmem_live_at_peak;
  bool fits = true;
  std::optional<std::int64_t> triton_shared_bytes;  ///< Triton's own total when known (metadata or flag)
  std::int64_t capture_bytes = 0;                   ///< warp_specialize capture area (see budget.hpp)
  std::vector<std::string> notes;                   ///< reconciliation and limit notes, one sentence each
};

struct Plan {
  PlanKernel kernel;
  std::vector<Partition> partitions;
  std::vector<PlanOp> ops;  ///< indexed by id
  std::vector<Buffer> buffers;
  std::vector<Channel> channels;
  Summary summary;
};

/// "load", "store", "mma", "math" or "".
std::string_view key_kind_name(KeyKind kind);
KeyKind key_kind_from_name(std::string_view name);
std::string_view space_name(MemorySpace space);

}  // namespace vtools::vplan
