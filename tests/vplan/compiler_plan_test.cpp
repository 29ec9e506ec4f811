// The compiler's plan read back from post-allocation IR (tests/data/vplan/compiler: stock Triton 3.6 dumps) and from
// the WS planner's attributes (tests/data/vplan/planner), and Triton's scratch rules (scratch.hpp).
#include <nlohmann/json.hpp>
#include <regex>
#include <string>

#include "doctest/doctest.h"
#include "libcommon/input_file.hpp"
#include "formats/plan/budget_figures.hpp"
#include "tools/vplan/buffers.hpp"
#include "tools/vplan/ir_dump_log.hpp"
#include "tools/vplan/plan_builder.hpp"
#include "tools/vplan/scratch.hpp"
#include "tools/vplan/ttgir_reader.hpp"

namespace vtools::vplan {
namespace {

const char* const kKernels[] = {"matmul_pipelined_s4_sm90", "matmul_pipelined_s3_sm80", "matmul_tma_sm90",
                                "matmul_tma_ws_sm90",       "matmul_tma_ws_sm100",      "softmax_sm90",
                                "row_col_sums_sm90",        "cumsum_sm90",              "atomic_sm90",
                                "attn_d64_sm90",            "attn_ws_d128_sm100"};

std::string compiler_dir() { return std::string(VTOOLS_TEST_DATA) + "/vplan/compiler/"; }

std::int64_t triton_shared(const std::string& stem) {
  auto md = nlohmann::json::parse(read_input(compiler_dir() + "metadata.json"));
  return md.at(stem).at("shared").get<std::int64_t>();
}

Plan plan_text(const std::string& text, const std::string& name) {
  std::string ir = looks_like_ir_dump_log(text) ? last_ttgir_dump(text, name) : text;
  return build_plan(read_ttgir(ir, name), {});
}

// The same IR as it was before allocation: the compiler's attributes taken out.
std::string strip_allocation(const std::string& text) {
  std::string s = std::regex_replace(text, std::regex(R"( \{allocation\.offset = [0-9]+ : i32\})"), "");
  s = std::regex_replace(s, std::regex(R"(allocation\.offset = [0-9]+ : i32, ?)"), "");
  s = std::regex_replace(s, std::regex(R"(ttg\.shared = [0-9]+ : i32, )"), "");
  s = std::regex_replace(s, std::regex(R"(ttg\.tensor_memory_size = [0-9]+ : i32, )"), "");
  return std::regex_replace(s, std::regex(R"(tensor_memory_col_offset = [0-9]+ : i32, tensor_memory_row_offset = [0-9]+ : i32)"), "");
}

}  // namespace

TEST_CASE("compiler plan: every SMEM buffer takes the compiler's offset and the total equals Triton's shared") {
  for (const char* stem : kKernels) {
    CAPTURE(stem);
    const std::string name = compiler_dir() + stem + ".ttgir";
    Plan p = plan_text(read_input(name), name);
    const std::int64_t shared = triton_shared(stem);
    REQUIRE(p.summary.compiler_shared_bytes);
    CHECK(*p.summary.compiler_shared_bytes == shared);
    CHECK(p.summary.compiler_layout);
    CHECK(p.summary.smem_total_bytes == shared);
    int scratch = 0;
    for (const Buffer& b : p.buffers) {
      CAPTURE(b.name);
      if (b.space != MemorySpace::kSmem) continue;
      REQUIRE_FALSE(b.compiler_offsets.empty());
      CHECK(b.placed_offset() == b.compiler_offsets[0]);
      CHECK(b.compiler_offsets[0] + b.bytes <= shared);  // nothing the compiler placed ends past its total
      scratch += b.is_scratch();
    }
    CHECK(scratch > 0);  // every kernel here has scratch (conversions, reductions, TMA descriptors, captures)
  }
}

TEST_CASE("compiler plan: buffers the compiler placed over each other are never live at once") {
  // The liveness vplan shows is the interval Triton's allocator placed by, so the compiler's own offsets never
  // contradict it (matmul_tma_ws_sm90: partition0's epilogue tile, its tensormap scratch and the captures all at
  // 98304, each live at other ops).
  int shared_pairs = 0;
  for (const char* stem : kKernels) {
    CAPTURE(stem);
    const std::string name = compiler_dir() + stem + ".ttgir";
    Plan p = plan_text(read_input(name), name);
    for (const Buffer& a : p.buffers)
      for (const Buffer& b : p.buffers) {
        if (a.id >= b.id || a.space != MemorySpace::kSmem || b.space != MemorySpace::kSmem) continue;
        if (a.compiler_offsets.empty() || b.compiler_offsets.empty() || a.bytes == 0 || b.bytes == 0) continue;
        const std::int64_t ao = a.compiler_offsets[0], bo = b.compiler_offsets[0];
        if (ao + a.bytes <= bo || bo + b.bytes <= ao) continue;
        CAPTURE(a.name);
        CAPTURE(b.name);
        CHECK((a.end <= b.start || b.end <= a.start));
        ++shared_pairs;
      }
  }
  CHECK(shared_pairs > 0);
}

TEST_CASE("compiler plan: scratch ops are exactly the ops the compiler gave an offset") {
  const std::string name = compiler_dir() + "softmax_sm90.ttgir";
  Plan p = plan_text(read_input(name), name);
  int reduces = 0;
  for (const Buffer& b : p.buffers)
    if (b.scratch_op == "tt.reduce") {
      ++reduces;
      CHECK(b.bytes == 16);  // 1024 f32 over 4 warps on the axis: 4 partial results of 4 bytes
      CHECK(b.size_exact);
      CHECK(b.end == b.start + 1);  // live at its op only
    }
  CHECK(reduces == 2);
}

TEST_CASE("compiler plan: TMEM columns from tensor_memory_col_offset, and the module's TMEM size") {
  const std::string name = compiler_dir() + "matmul_tma_ws_sm100.ttgir";
  Plan p = plan_text(read_input(name), name);
  REQUIRE(p.summary.compiler_tmem_cols);
  CHECK(*p.summary.compiler_tmem_cols == 128);
  int tmem = 0;
  for (const Buffer& b : p.buffers)
    if (b.space == MemorySpace::kTmem) {
      ++tmem;
      REQUIRE(b.compiler_offsets.size() == 1);
      CHECK(b.compiler_offsets[0] == 0);
    }
  CHECK(tmem == 1);
}

TEST_CASE("compiler plan: from the IR before allocation, vplan's own totals are Triton's") {
  for (const char* stem : kKernels) {
    CAPTURE(stem);
    const std::string name = compiler_dir() + stem + ".ttgir";
    Plan p = plan_text(strip_allocation(read_input(name)), name);
    const std::int64_t shared = triton_shared(stem);
    CHECK_FALSE(p.summary.compiler_layout);
    CHECK_FALSE(p.summary.compiler_shared_bytes);
    // Exact where every scratch size is known; with conversions and atomics vplan cannot size (atomic_sm90,
    // row_col_sums_sm90), Triton's total lies between the low end (those at 0 bytes) and the high end.
    if (p.summary.unknown_scratch_bytes == 0) CHECK(p.summary.smem_total_bytes == shared);
    CHECK(p.summary.smem_total_min_bytes <= shared);
    CHECK(shared <= p.summary.smem_total_bytes);
  }
}

TEST_CASE("compiler plan: vplan's own placement puts every buffer at the compiler's offset") {
  // On the post-allocation IR every buffer and scratch size is the compiler's, so vplan's own offsets (Triton's
  // placement, triton_placement.hpp) can be compared buffer by buffer.
  int buffers = 0;
  for (const char* stem : kKernels) {
    CAPTURE(stem);
    const std::string name = compiler_dir() + stem + ".ttgir";
    Plan p = plan_text(read_input(name), name);
    for (const Buffer& b : p.buffers) {
      if (b.space != MemorySpace::kSmem) continue;
      CAPTURE(b.name);
      REQUIRE(b.compiler_offsets.size() == 1);
      CHECK(b.offset == b.compiler_offsets[0]);
      ++buffers;
    }
    // The same offsets from the IR before allocation, for the buffers both plans have (scratch Triton sized 0
    // is absent from the post-allocation plan).
    Plan stock = plan_text(strip_allocation(read_input(name)), name);
    if (stock.summary.unknown_scratch_bytes > 0) continue;  // upper-bound sizes move the buffers above them
    for (const Buffer& b : stock.buffers) {
      if (b.space != MemorySpace::kSmem) continue;
      for (const Buffer& c : p.buffers)
        if (c.alloc_op == b.alloc_op && c.scratch_op == b.scratch_op && c.space == b.space) {
          CAPTURE(b.name);
          CHECK(b.offset == c.compiler_offsets[0]);
        }
    }
  }
  CHECK(buffers == 94);  // every SMEM buffer of the 11 fixtures
}

TEST_CASE("compiler plan: vplan's own TMEM columns, rows and total are the compiler's on every sm100 fixture") {
  // Triton's TensorMemoryAllocation.cpp rule (tmem_placement.hpp): program order, lowest aligned column among the
  // allocations still live. On the post-allocation IR vplan places beside the compiler's attributes; on the IR with
  // them taken out it places alone; both must give tensor_memory_col_offset / _row_offset and the module's size.
  const auto md = nlohmann::json::parse(read_input(compiler_dir() + "metadata.json"));
  int tmem = 0;
  for (const char* stem : {"matmul_tma_ws_sm100", "attn_ws_d128_sm100"}) {
    CAPTURE(stem);
    const std::string name = compiler_dir() + stem + ".ttgir";
    const std::string text = read_input(name);
    Plan p = plan_text(text, name);
    Plan stripped = plan_text(strip_allocation(text), name);
    const std::int64_t tmem_size = md.at(stem).at("tmem_size").get<std::int64_t>();
    REQUIRE(p.summary.compiler_tmem_cols);
    CHECK(*p.summary.compiler_tmem_cols == tmem_size);
    CHECK(tmem_total_cols(p.summary) == tmem_size);
    CHECK(p.summary.tmem_allocated_cols == tmem_size);
    CHECK_FALSE(stripped.summary.compiler_tmem_cols);
    CHECK(stripped.summary.tmem_allocated_cols == tmem_size);
    std::vector<const Buffer*> own_tmem;  // scratch may differ without the compiler's offsets; TMEM buffers do not
    for (const Buffer& b : stripped.buffers)
      if (b.space == MemorySpace::kTmem) own_tmem.push_back(&b);
    std::size_t next = 0;
    for (const Buffer& b : p.buffers) {
      if (b.space != MemorySpace::kTmem) continue;
      CAPTURE(b.name);
      REQUIRE(b.compiler_offsets.size() == 1);
      CHECK(b.compiler_row_offset == 0);
      CHECK(b.offset == b.compiler_offsets[0]);
      CHECK(b.row_offset == b.compiler_row_offset);
      CHECK(b.compiler_offsets[0] + b.cols <= tmem_size);
      REQUIRE(next < own_tmem.size());
      const Buffer& own = *own_tmem[next++];
      CHECK(own.name == b.name);
      CHECK(own.compiler_offsets.empty());
      CHECK(own.compiler_row_offset == -1);
      CHECK(own.offset == b.compiler_offsets[0]);
      ++tmem;
    }
  }
  CHECK(tmem == 4);  // matmul's accumulator; attn's acc (f32), qk (2 x f32), acc (f16, packed)
}

TEST_CASE("compiler plan: TMEM sizes per Triton's getTmemAllocSizes") {
  auto size = [](const std::string& memdesc, const std::string& encoding) {
    const std::string ir = "#tmem = " + encoding +
                           "\nmodule attributes {ttg.target = \"cuda:100\"} {\n  tt.func public @k() {\n"
                           "    %a = ttng.tmem_alloc : () -> !ttg.memdesc<" +
                           memdesc + ", #tmem, #ttng.tensor_memory, mutable>\n    tt.return\n  }\n}\n";
    Plan p = build_plan(read_ttgir(ir, "k.ttgir"), {});
    REQUIRE(p.buffers.size() == 1);
    return std::to_string(p.buffers[0].rows) + "x" + std::to_string(p.buffers[0].cols);
  };
  const std::string m128 = "#ttng.tensor_memory_encoding<blockM = 128, blockN = 128, colStride = 1>";
  CHECK(size("128x128xf32", m128) == "128x128");
  CHECK(size("2x128x128xf32", m128) == "128x256");  // copies side by side
  CHECK(size("256x128xf32", m128) == "128x256");    // a second block of M in more columns
  CHECK(size("128x128xf16", m128) == "128x64");     // colStride 1: two f16 per 32-bit column
  CHECK(size("128x128xf16", "#ttng.tensor_memory_encoding<blockM = 128, blockN = 128, colStride = 2>") == "128x128");
  CHECK(size("128x128xf16", "#ttng.tensor_memory_encoding<blockM = 128, blockN = 128, unpacked = true>") == "128x128");
  CHECK(size("128x128xf8E4M3FN", m128) == "128x32");
  // M = 64: lanes 0-15 of each warp; one block of N leaves lanes 16-31 free (64 rows), two fill them.
  CHECK(size("64x128xf32", "#ttng.tensor_memory_encoding<blockM = 64, blockN = 128, colStride = 1>") == "64x128");
  CHECK(size("64x256xf32", "#ttng.tensor_memory_encoding<blockM = 64, blockN = 128, colStride = 1>") == "128x128");
  CHECK(size("128x128xf32", "#ttng.tensor_memory_encoding<blockM = 64, blockN = 128, colStride = 1>") == "128x128");
  // One CTA's share when split over a CTA pair.
  CHECK(size("256x128xf32", "#ttng.tensor_memory_encoding<blockM = 128, blockN = 128, colStride = 1, CTASplitM = 2>") ==
        "128x128");
  // Scales: 2 x ceil(M / 64) x ceil(K / 4) columns over all lanes.
  CHECK(size("128x8xi8", "#ttng.tensor_memory_scales_encoding<>") == "128x8");
}

TEST_CASE("compiler plan: scan and reduction scratch per Triton's rules on blocked layouts") {
  const std::string name = compiler_dir() + "cumsum_sm90.ttgir";
  Plan p = plan_text(strip_allocation(read_input(name)), name);
  bool found = false;
  for (const Buffer& b : p.buffers)
    if (b.scratch_op == "tt.scan") {
      found = true;
      // 128x32 f32, axis 0, blocked [1,4] x [4,8] x [4,1]: 4 warps x (8 x 4) non-axis x 8 axis blocks x 4 bytes.
      CHECK(b.bytes == 4096);
      CHECK(b.size_exact);
    }
  CHECK(found);
  BlockedLayout l;
  CHECK(parse_blocked_layout("#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], "
                             "order = [1, 0]}>",
                             l));
  CHECK(l.warps_per_cta == std::vector<std::int64_t>{4, 1});
  CHECK_FALSE(parse_blocked_layout("#ttg.nvidia_mma<{versionMajor = 3, warpsPerCTA = [4, 1]}>", l));
  CHECK_FALSE(parse_blocked_layout("#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4], warpsPerCTA = [4, 1]}>", l));
}

TEST_CASE("compiler plan: an unsized conversion is named with its bytes, and the verdict uses the known sizes") {
  const std::string name = compiler_dir() + "row_col_sums_sm90.ttgir";
  Plan p = plan_text(strip_allocation(read_input(name)), name);
  CHECK(p.summary.unknown_scratch_bytes > 0);
  bool named = false;
  for (const auto& n : p.summary.notes)
    named = named || (n.find("scratch of ttg.convert_layout") != std::string::npos &&
                      n.find("32768 bytes, an upper bound") != std::string::npos);
  CHECK(named);
  CHECK(p.summary.fits);
}

TEST_CASE("compiler plan: the WS planner's buffer.id / buffer.copy / buffer.offset and array offsets") {
  const std::string name = std::string(VTOOLS_TEST_DATA) + "/vplan/planner/reuse_groups.mlir";
  Plan p = plan_text(read_input(name), name);
  REQUIRE(p.buffers.size() == 5);
  const Buffer& a = p.buffers[0];
  CHECK(a.name == "a");
  CHECK(a.planner_id == 0);
  CHECK(a.planner_copy == 2);
  CHECK(a.planner_offset == -1);
  CHECK(a.compiler_offsets == std::vector<std::int64_t>{0, 0});
  CHECK(p.buffers[1].planner_id == 0);
  CHECK(p.buffers[2].compiler_offsets == std::vector<std::int64_t>{32768, 32768});
  CHECK(p.buffers[3].planner_id == 2);
  CHECK(p.buffers[4].planner_offset == 64);
  CHECK(p.buffers[4].space == MemorySpace::kTmem);
  CHECK(p.summary.compiler_layout);
  CHECK(p.summary.smem_total_bytes == 32768 + 8192);
}

TEST_CASE("compiler plan: attribute integers") {
  CHECK(parse_int_list("98304 : i32") == std::vector<std::int64_t>{98304});
  CHECK(parse_int_list("array<i32: 0, 1024>") == std::vector<std::int64_t>{0, 1024});
  CHECK(parse_int_list("array<i32>").empty());
  CHECK(parse_int_list("\"x\"").empty());
  CHECK(parse_int_list("-1 : i32") == std::vector<std::int64_t>{-1});
}

}  // namespace vtools::vplan
