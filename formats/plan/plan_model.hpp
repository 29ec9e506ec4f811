// The plan: what vplan computes from a kernel and writes as vtools.plan — ops in a stable order with partitions,
// buffers (SMEM bytes, TMEM rows x cols) with liveness and offsets, channels between partitions, and the budget
// summary. Plain data; analyses fill it (plan_builder), writers read it (plan_json, dot_writer, table_writer).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "formats/plan/source_loc.hpp"

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

struct PlanOp {  // the small fields together: a 10^6-op plan holds 10^6 of these
  int id = 0;                       ///< post-order walk index over the function (see op_order.hpp)
  int partition = kNoPartition;
  int parent = -1;                  ///< id of the enclosing op (-1 at function level)
  KeyKind key = KeyKind::kNone;
  bool sync = false;                ///< barrier / fence / wait: synchronisation, not data
  std::string name;                 ///< "ttng.tc_gen5_mma"
  std::string result;               ///< "%acc_26" or ""
  std::vector<std::string> operands;
  std::string shape;                ///< result tensor/memdesc shape "128x128xf32", or ""
  SourceLoc loc;
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
  int row_offset = 0;               ///< TMEM lane offset from the allocator: 0, or 16 for a 64-row second half
  std::vector<int> channels;
  std::vector<int> users;           ///< op ids that access the buffer (views followed)
  int operand_d = 0;                ///< channels of this buffer that are MMA accumulators read and written
  SourceLoc loc;
  // Scratch: memory Triton gives an op for its own use (scratch.hpp), live at that op only.
  std::string scratch_op;           ///< the op needing it ("ttg.convert_layout"); "" for allocations
  bool size_exact = true;           ///< false: `bytes` is vplan's upper bound (see the summary's notes)
  // The compiler's plan, when the IR carries it (post-allocation IR, the WS planner's attributes).
  std::vector<std::int64_t> compiler_offsets;  ///< allocation.offset (bytes; one per partition in WS code) or
                                               ///< tensor_memory_col_offset (TMEM columns); empty = not in the IR
  int compiler_row_offset = -1;     ///< tensor_memory_row_offset (TMEM lane offset); -1 = not in the IR
  int planner_id = -1;              ///< buffer.id: allocations sharing one form a reuse group (-1 = absent)
  int planner_copy = 0;             ///< buffer.copy: copies the planner gave it (0 = absent)
  std::int64_t planner_offset = -1; ///< buffer.offset within the group (-1 = absent)

  /// The compiler's offset when known, else vplan's own.
  [[nodiscard]] std::int64_t placed_offset() const { return compiler_offsets.empty() ? offset : compiler_offsets[0]; }
  [[nodiscard]] bool is_scratch() const { return !scratch_op.empty(); }
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
  std::int64_t smem_peak_bytes = 0;       ///< most bytes live at once (no alignment gaps), a warp_specialize's
                                          ///< regions counted at once (smem_peak_regions)
  std::int64_t smem_limit_bytes = 0;
  int smem_peak_op = 0;
  std::vector<int> smem_live_at_peak;     ///< buffer ids: live at smem_peak_op, or (smem_peak_regions) live across
                                          ///< that warp_specialize plus each region's set at its own peak
  bool smem_peak_regions = false;         ///< the peak is a warp_specialize's: smem_peak_op is that op, and its
                                          ///< regions are counted at once (its capture area, dead by then, is not)
  std::int64_t tmem_peak_cols = 0;
  std::int64_t tmem_allocated_cols = 0;   ///< vplan's own TMEM total: end of its highest TMEM allocation, rounded
                                          ///< as Triton rounds ttg.tensor_memory_size (32, 64, 128, 256, 512)
  std::int64_t tmem_limit_cols = 0;
  int tmem_peak_op = 0;
  std::vector<int> tmem_live_at_peak;
  bool fits = true;
  std::optional<std::int64_t> triton_shared_bytes;  ///< Triton's own total when known (metadata or flag)
  std::int64_t capture_bytes = 0;                   ///< warp_specialize capture area (see budget.hpp)
  std::vector<std::string> notes;                   ///< reconciliation and limit notes, one sentence each
  // The compiler's layout (post-allocation IR): its total and whether every SMEM buffer's offset came from it.
  std::optional<std::int64_t> compiler_shared_bytes;  ///< the module's ttg.shared
  std::optional<std::int64_t> compiler_tmem_cols;     ///< the module's ttg.tensor_memory_size
  bool compiler_layout = false;    ///< offsets are the compiler's (true) or vplan's own (false)
  std::int64_t smem_total_bytes = 0;  ///< vplan's figure for Triton's `shared`: end of the highest SMEM buffer,
                                      ///< scratch included, at the compiler's offsets when known, else vplan's own
                                      ///< (the names every output prints: budget_figures.hpp)
  std::int64_t smem_total_min_bytes = 0;  ///< the same with scratch of unknown size at 0 (= smem_total_bytes when
                                          ///< every size is known): Triton's total lies between the two
  std::int64_t scratch_bytes = 0;     ///< sum of scratch buffer sizes
  std::int64_t unknown_scratch_bytes = 0;  ///< of which upper bounds (sizes vplan could not know exactly)
};

/// Two members of a reuse group that no happens-before chain orders (reuse_hazards.hpp).
struct ReuseHazard {
  std::string group;               ///< "buffer.id 2", or "offsets 0-32768" for buffers placed over each other
  int first = 0, second = 0;       ///< buffer ids
  int first_op = 0, second_op = 0; ///< first's last access, second's first access (op ids)
  int first_partition = kNoPartition, second_partition = kNoPartition;
};

struct Plan {
  PlanKernel kernel;
  std::vector<Partition> partitions;
  std::vector<PlanOp> ops;  ///< indexed by id
  std::vector<Buffer> buffers;
  std::vector<Channel> channels;
  Summary summary;
  std::vector<ReuseHazard> reuse_hazards;  ///< empty when every reuse group is ordered
};

/// "load", "store", "mma", "math" or "".
std::string_view key_kind_name(KeyKind kind);
KeyKind key_kind_from_name(std::string_view name);
std::string_view space_name(MemorySpace space);

}  // namespace vtools::vplan
