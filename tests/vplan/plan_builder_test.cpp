// Fixture assertions checked by reading the IR in tests/data/ttgir (see the comments by each check).
#include "tools/vplan/plan_builder.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <numeric>

#include "libcommon/error.hpp"
#include "libcommon/input_file.hpp"
#include "tools/vplan/ttgir_reader.hpp"

using namespace vtools;
using namespace vtools::vplan;

namespace {

Plan plan_of(const char* stem, std::optional<std::int64_t> shared = std::nullopt) {
  std::string name = std::string(VTOOLS_TEST_DATA) + "/ttgir/" + stem + ".ttgir";
  PlanOptions o;
  o.triton_shared = shared;
  return build_plan(read_ttgir(read_input(name), name), o);
}

std::vector<const Buffer*> buffers_in(const Plan& p, MemorySpace space, bool barriers) {
  std::vector<const Buffer*> out;
  for (const auto& b : p.buffers)
    if (b.space == space && b.barrier == barriers && !b.is_scratch()) out.push_back(&b);
  return out;
}

const Buffer& by_value(const Plan& p, const std::string& value) {
  for (const auto& b : p.buffers)
    if (b.value == value) return b;
  FAIL("no buffer " << value);
  return p.buffers.front();
}

}  // namespace

TEST_CASE("plan_builder: matmul_ws_sm90 buffers, partitions and channels") {
  Plan p = plan_of("matmul_ws_sm90", 131544);
  CHECK(p.kernel.name == "matmul_ws");
  CHECK(p.kernel.target == "cuda:90");
  CHECK(p.kernel.total_warps == 12);  // metadata.json num_warps: 4 default + 4 + 4
  REQUIRE(p.partitions.size() == 3);
  CHECK(p.partitions[1].region == "partition0");
  CHECK(p.partitions[2].num_warps == 4);
  // %0 %4 %8 %12 %13 %20 %21 %28 %29 %36 %37: 3x1xi64 mbarrier arrays, 24 bytes each.
  auto barriers = buffers_in(p, MemorySpace::kSmem, true);
  CHECK(barriers.size() == 11);
  for (auto* b : barriers) CHECK(b->bytes == 24);
  // %44, %45: 3x64x64xf16 (A halves), %46: 3x128x64xf16 (B), %52/%53: 64x128xf16 epilogue tiles per consumer.
  auto data = buffers_in(p, MemorySpace::kSmem, false);
  CHECK(data.size() == 5);
  CHECK(by_value(p, "%44").bytes == 24576);
  CHECK(by_value(p, "%44").copies == 3);
  CHECK(by_value(p, "%46").bytes == 49152);
  CHECK(by_value(p, "%52").bytes == 16384);
  CHECK(p.ops[by_value(p, "%52").alloc_op].partition == 1);
  CHECK(p.ops[by_value(p, "%53").alloc_op].partition == 2);
  CHECK(buffers_in(p, MemorySpace::kTmem, false).empty());
  // Channels: A halves go from the producer (partition 0) to one consumer each; B goes to both consumers.
  REQUIRE(p.channels.size() == 3);
  auto check_channel = [&](const std::string& value, std::vector<int> consumer_partitions) {
    const Buffer& b = by_value(p, value);
    REQUIRE(b.channels.size() == 1);
    const Channel& c = p.channels[b.channels[0]];
    CHECK(c.producer.partition == 0);
    CHECK(p.ops[c.producer.op].name == "ttng.async_tma_copy_global_to_local");
    std::vector<int> got;
    for (const auto& e : c.consumers) {
      got.push_back(e.partition);
      CHECK(p.ops[e.op].name == "ttng.warp_group_dot");
    }
    CHECK(got == consumer_partitions);
  };
  check_channel("%44", {1});
  check_channel("%45", {2});
  check_channel("%46", {1, 2});
  // Captures packed tightly (a pointer 8, three i32 12, one 3D memdesc 20, nine 2D memdescs 144 + 8); placed as
  // Triton places buffers, the total is Triton's own.
  CHECK(p.summary.capture_bytes == 192);
  CHECK(p.summary.smem_total_bytes == 131544);
  CHECK(p.summary.fits);
  REQUIRE(!p.summary.notes.empty());
  CHECK(p.summary.notes.back().find("Triton reports 131544 bytes") != std::string::npos);
}

TEST_CASE("plan_builder: matmul_ws_sm90 SMEM liveness is Triton's, and the peak counts partitions at once") {
  Plan p = plan_of("matmul_ws_sm90");
  auto op_named = [&](int first, const std::string& name) {
    for (int i = first; i < static_cast<int>(p.ops.size()); ++i)
      if (p.ops[i].name == name) return i;
    FAIL("no " << name << " from op " << first);
    return -1;
  };
  // partition0's epilogue tile (line 219): its local_alloc, then the TMA store that reads it (line 221), both in
  // partition 1, in program order. Live from the one to the other, not for the whole warp_specialize.
  const Buffer& tile = by_value(p, "%52");
  const int store = op_named(tile.alloc_op, "ttng.async_tma_copy_local_to_global");
  CHECK(p.ops[store].partition == 1);
  CHECK(tile.start == tile.alloc_op);
  CHECK(tile.end == store + 1);
  const int ws = op_named(0, "ttg.warp_specialize");
  CHECK(tile.end < ws);
  // The same partition's tensormap_create scratch (line 188) ends before the tile starts, and the capture area
  // lives at the warp_specialize op only: both may take the tile's bytes, as Triton gives them (98304 each).
  for (const Buffer& b : p.buffers) {
    if (b.scratch_op != "ttng.tensormap_create" && b.scratch_op != "ttg.warp_specialize") continue;
    if (b.offset != tile.offset) continue;
    CAPTURE(b.id);
    CHECK((b.end <= tile.start || tile.end <= b.start));
  }
  // Peak: what lives across the warp_specialize (7 barrier arrays 168, %44 %45 %46 98304, warp indices 8) plus
  // each region at its own peak at once (default: a tensormap scratch 128; partitions: their 16384-byte tiles).
  CHECK(p.summary.smem_peak_bytes == 168 + 98304 + 8 + 128 + 16384 + 16384);
  CHECK(p.summary.smem_peak_op == ws);
  std::vector<int> live = p.summary.smem_live_at_peak;
  CHECK(std::find(live.begin(), live.end(), tile.id) != live.end());
  CHECK(std::find(live.begin(), live.end(), by_value(p, "%53").id) != live.end());
  std::int64_t sum = 0;
  for (int id : live) sum += p.buffers[id].bytes;
  CHECK(sum == p.summary.smem_peak_bytes);
}

TEST_CASE("plan_builder: attn_ws_sm100 TMEM sizes, OperandD and channel endpoints") {
  Plan p = plan_of("attn_ws_sm100", 231056);
  CHECK(p.kernel.total_warps == 12);  // 4 + 1 + 2 + 4 = 11, launched as 12
  REQUIRE(p.partitions.size() == 4);
  CHECK(p.partitions[1].num_warps == 1);
  CHECK(p.partitions[3].num_warps == 4);
  auto tmem = buffers_in(p, MemorySpace::kTmem, false);
  REQUIRE(tmem.size() == 3);
  // %acc_20: 1x128x128xf32 -> 128 x 128; %qk_52: 2x128x128xf32 -> 2 copies x 128 = 256; %acc_53: f16 packed
  // (colStride = 1) -> 128 / 2 = 64 columns.
  CHECK(by_value(p, "%acc_20").cols == 128);
  CHECK(by_value(p, "%acc_20").rows == 128);
  CHECK(by_value(p, "%qk_52").cols == 256);
  CHECK(by_value(p, "%qk_52").copies == 2);
  CHECK(by_value(p, "%acc_53").cols == 64);
  CHECK(p.summary.tmem_peak_cols == 448);
  CHECK(p.summary.tmem_limit_cols == 512);
  // %acc_20 is the P@V accumulator: tc_gen5_mma reads and writes it (use_acc = %true_90).
  CHECK(by_value(p, "%acc_20").operand_d > 0);
  CHECK(by_value(p, "%qk_52").operand_d == 0);  // QK^T MMAs run with use_acc = %false
  // K tiles (%qk_26) are loaded by TMA in partition 2 (region partition1) and read by MMAs in partition 1.
  const Buffer& k = by_value(p, "%qk_26");
  REQUIRE(!k.channels.empty());
  for (int cid : k.channels) {
    const Channel& c = p.channels[cid];
    CHECK(c.producer.partition == 2);
    CHECK(p.ops[c.producer.op].name == "ttng.async_tma_copy_global_to_local");
    for (const auto& e : c.consumers) CHECK(p.ops[e.op].name == "ttng.tc_gen5_mma");
  }
  // S = QK^T in TMEM: written by the MMA partition (1), read by tmem_load in the softmax partition (0).
  for (int cid : by_value(p, "%qk_52").channels) {
    const Channel& c = p.channels[cid];
    CHECK(c.producer.partition == 1);
    REQUIRE(c.consumers.size() == 1);
    CHECK(p.ops[c.consumers[0].op].name == "ttng.tmem_load");
    CHECK(c.consumers[0].partition == 0);
  }
  // P (f16) in TMEM: tmem_store in partition 0 -> the P@V MMA in partition 1.
  const Buffer& pbuf = by_value(p, "%acc_53");
  REQUIRE(pbuf.channels.size() == 1);
  CHECK(p.ops[p.channels[pbuf.channels[0]].producer.op].name == "ttng.tmem_store");
  // Scratch of conversions and reductions vplan cannot size is left out at the low end of its range.
  CHECK(std::abs(p.summary.smem_total_min_bytes - 231056) <= 64);
  CHECK(p.summary.smem_total_bytes > p.summary.smem_total_min_bytes);
  CHECK(p.summary.fits);
}

TEST_CASE("plan_builder: attn_nows_sm90 has no partitions or channels and matches Triton's total") {
  Plan p = plan_of("attn_nows_sm90", 65592);
  CHECK(p.partitions.empty());
  CHECK(p.channels.empty());
  CHECK(p.kernel.total_warps == 4);
  CHECK(buffers_in(p, MemorySpace::kSmem, true).size() == 3);   // %q_10 1xi64, %acc and %acc_14 3x1xi64
  CHECK(buffers_in(p, MemorySpace::kSmem, false).size() == 4);  // q 128x64, k/v 3x64x64, epilogue %1 128x64 f16
  CHECK(by_value(p, "%k").bytes == 24576);
  CHECK(by_value(p, "%q_9").bytes == 16384);
  // The epilogue tile %1 reuses k/v's memory: it is allocated after the loop, when they are dead.
  const Buffer& epi = by_value(p, "%1");
  CHECK(epi.start >= by_value(p, "%k").end);
  // The epilogue's convert_layout may need up to 16384 bytes of scratch (Triton gave it none): a range whose low
  // end is Triton's total.
  CHECK(p.summary.smem_total_min_bytes == 65592);
  CHECK(p.summary.smem_total_bytes == 65592 + 16384);
  CHECK(p.summary.unknown_scratch_bytes == 16384);
}

namespace {

// The warp_specialize op holding the op that owns `b` (its allocation or its scratch op), -1 for none.
int ws_of(const Plan& p, const Buffer& b) {
  for (int q = p.ops[b.alloc_op].parent; q >= 0; q = p.ops[q].parent)
    if (p.ops[q].name == "ttg.warp_specialize") return q;
  return -1;
}

}  // namespace

TEST_CASE("plan_builder: invariants over every fixture") {
  for (const char* stem : {"matmul_ws_sm90", "attn_ws_sm100", "attn_nows_sm90"}) {
    CAPTURE(stem);
    Plan p = plan_of(stem);
    for (std::size_t i = 0; i < p.ops.size(); ++i) {
      CHECK(p.ops[i].id == static_cast<int>(i));
      if (p.ops[i].parent >= 0) CHECK(p.ops[i].parent > p.ops[i].id);  // post-order: parents come after
    }
    int op_sum = 0;
    for (const auto& part : p.partitions) op_sum += part.op_count;
    CHECK(op_sum <= static_cast<int>(p.ops.size()));
    for (const auto& b : p.buffers) {
      CHECK(b.start < b.end);
      CHECK(b.offset % b.alignment == 0);
      for (int u : b.users) CHECK((b.start <= u && u < b.end));
      // The liveness shown and the offsets agree: no two buffers alive at once share memory, and (Triton's rule
      // for concurrent partitions) no two SMEM buffers of different partitions of one warp_specialize ever do.
      for (const auto& o : p.buffers) {
        if (o.id >= b.id || o.space != b.space) continue;
        const bool live_at_once = o.start < b.end && b.start < o.end;
        const bool concurrent = b.space == MemorySpace::kSmem && ws_of(p, b) >= 0 && ws_of(p, b) == ws_of(p, o) &&
                                p.ops[b.alloc_op].partition != p.ops[o.alloc_op].partition;
        if (!live_at_once && !concurrent) continue;
        CAPTURE(b.id);
        CAPTURE(o.id);
        const std::int64_t bs = b.space == MemorySpace::kSmem ? b.bytes : b.cols;
        const std::int64_t os = o.space == MemorySpace::kSmem ? o.bytes : o.cols;
        CHECK((b.offset + bs <= o.offset || o.offset + os <= b.offset));
      }
    }
    // vplan's own layout (no compiler offsets in these fixtures) never places live buffers over each other.
    CHECK_FALSE(p.summary.compiler_layout);
    CHECK(p.summary.smem_peak_bytes <= p.summary.smem_total_bytes);
    for (const auto& c : p.channels) {
      CHECK(!c.consumers.empty());
      for (const auto& e : c.consumers) CHECK(e.partition != c.producer.partition);
    }
  }
}

TEST_CASE("plan_builder: over-budget kernels do not fit and name the buffers at the peak") {
  std::string text =
      "#s = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>\n#smem = #ttg.shared_memory\n"
      "module attributes {\"ttg.num-warps\" = 4 : i32, ttg.target = \"cuda:90\"} {\n  tt.func public @big() {\n"
      "    %a = ttg.local_alloc : () -> !ttg.memdesc<65536xf16, #s, #smem, mutable>\n"
      "    %b = ttg.local_alloc : () -> !ttg.memdesc<65536xf16, #s, #smem, mutable>\n"
      "    %x = ttg.local_load %a : !ttg.memdesc<65536xf16, #s, #smem, mutable> -> tensor<65536xf16>\n"
      "    %y = ttg.local_load %b : !ttg.memdesc<65536xf16, #s, #smem, mutable> -> tensor<65536xf16>\n"
      "    %z = ttg.local_load %a : !ttg.memdesc<65536xf16, #s, #smem, mutable> -> tensor<65536xf16>\n"
      "    tt.return\n  }\n}\n";
  Plan p = build_plan(read_ttgir(text, "big.ttgir"), {});
  CHECK_FALSE(p.summary.fits);
  CHECK(p.summary.smem_peak_bytes == 262144);
  CHECK(p.summary.smem_live_at_peak == std::vector<int>{0, 1});
  REQUIRE(!p.summary.notes.empty());
  CHECK(p.summary.notes[0] == "SMEM over budget: 262144 > 232448 bytes; live at the peak (op 1): %a (B0), %b (B1)");
}

TEST_CASE("plan_builder: a missing function is a located error with a suggestion") {
  Module m = read_ttgir("module {\n  tt.func public @matmul() {\n    tt.return\n  }\n}\n", "m.ttgir");
  PlanOptions o;
  o.function = "matmu";
  try {
    build_plan(m, o);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(std::string(e.what()) == "m.ttgir: no function 'matmu' in the module; did you mean 'matmul'?");
  }
}

// It said "e.ttgir: expected a 'tt.func' ...", the one vplan error without line:col.
TEST_CASE("plan_builder: a module without functions is reported at the module op, else at the end of the input") {
  auto error_of = [](const std::string& text) {
    try {
      build_plan(read_ttgir(text, "e.ttgir"), PlanOptions{});
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(error_of("") == "e.ttgir:1:1: expected a 'tt.func' in the module, got none");
  CHECK(error_of("#blocked = #ttg.blocked<{}>\n") == "e.ttgir:2:1: expected a 'tt.func' in the module, got none");
  CHECK(error_of("#blocked = #ttg.blocked<{}>\n  module {\n  }\n") ==
        "e.ttgir:2:3: expected a 'tt.func' in the module, got none");
}

TEST_CASE("plan_builder: a memdesc with a 0 dimension holds 0 bytes") {
  const std::string text =
      "#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>\n"
      "#smem = #ttg.shared_memory\n"
      "module attributes {\"ttg.num-ctas\" = 1 : i32, \"ttg.num-warps\" = 4 : i32, ttg.target = \"cuda:90\", "
      "\"ttg.threads-per-warp\" = 32 : i32} {\n"
      "  tt.func public @k() attributes {noinline = false} {\n"
      "    %a = ttg.local_alloc : () -> !ttg.memdesc<0x16xf32, #shared, #smem, mutable>\n"
      "    tt.return\n"
      "  }\n"
      "}\n";
  const Plan p = build_plan(read_ttgir(text, "empty.ttgir"), PlanOptions{});
  const auto smem = buffers_in(p, MemorySpace::kSmem, false);
  REQUIRE(smem.size() == 1);
  CHECK(smem[0]->bytes == 0);  // not 16 x 4 as if the 0 were a 1
}
