// The streamed vtools.plan writer against the tree it replaced (dump_json(plan_document)): the same bytes on the
// fixtures and on random plans with every kind of field (nulls, empty arrays, escapes, invalid UTF-8).
#include "formats/plan/plan_writer.hpp"

#include <doctest/doctest.h>

#include <random>

#include "formats/plan/plan_json.hpp"
#include "tests/vplan/vplan_fixture.hpp"

using namespace vtools;
using namespace vtools::vplan;
using vtools::vplan::testing::fixture_plan;

namespace {

// The document without its "created" line: two writes a second apart differ there only.
std::string without_created(std::string text) {
  const std::size_t p = text.find("\n  \"created\": ");
  REQUIRE(p != std::string::npos);
  return text.erase(p, text.find('\n', p + 1) - p);
}

std::string random_text(std::mt19937& rng) {
  static const std::string kPieces[] = {"acc", "%44", "", "\"q\"", "back\\slash", "tab\t", "nl\n", "\x01",
                                        "caf\xC3\xA9", "bad\xFF", "cut\xE2\x82", "#shared1", "/tmp/k.py"};
  std::string out;
  for (int i = static_cast<int>(rng() % 3); i > 0; --i) out += kPieces[rng() % std::size(kPieces)];
  return out;
}

Plan random_plan(std::mt19937& rng) {
  Plan p;
  p.kernel = {random_text(rng), "cuda:90", 4, 12, random_text(rng)};
  for (int i = static_cast<int>(rng() % 3); i > 0; --i)
    p.partitions.push_back({static_cast<int>(rng() % 4), random_text(rng), 4, static_cast<int>(rng() % 100)});
  for (int i = static_cast<int>(rng() % 20); i > 0; --i) {
    PlanOp op;
    op.id = static_cast<int>(p.ops.size());
    op.name = random_text(rng);
    op.partition = static_cast<int>(rng() % 4) - 1;
    op.result = random_text(rng);
    for (int k = static_cast<int>(rng() % 4); k > 0; --k) op.operands.push_back(random_text(rng));
    op.shape = random_text(rng);
    if (rng() % 2) op.loc = {random_text(rng), random_text(rng), static_cast<int>(rng() % 90), 3};
    op.key = static_cast<KeyKind>(rng() % 5);
    op.sync = rng() % 2;
    op.parent = static_cast<int>(rng() % 5) - 1;
    p.ops.push_back(op);
  }
  for (int i = static_cast<int>(rng() % 10); i > 0; --i) {
    Buffer b;
    b.id = static_cast<int>(p.buffers.size());
    b.name = random_text(rng);
    b.value = random_text(rng);
    b.space = rng() % 2 ? MemorySpace::kSmem : MemorySpace::kTmem;
    for (int k = static_cast<int>(rng() % 4); k > 0; --k) b.shape.push_back(static_cast<std::int64_t>(rng() % 300) - 1);
    b.element_type = random_text(rng);
    b.encoding = random_text(rng);
    b.bytes = static_cast<std::int64_t>(rng()) << 12;
    b.rows = 128, b.cols = static_cast<int>(rng() % 512), b.copies = 1 + static_cast<int>(rng() % 3);
    b.barrier = rng() % 2;
    b.start = static_cast<int>(rng() % 50), b.end = b.start + 3;
    b.offset = static_cast<std::int64_t>(rng() % 100000);
    for (int k = static_cast<int>(rng() % 3); k > 0; --k) b.channels.push_back(static_cast<int>(rng() % 9));
    for (int k = static_cast<int>(rng() % 4); k > 0; --k) b.users.push_back(static_cast<int>(rng() % 50));
    if (rng() % 2) b.loc = {random_text(rng), "", 0, 0};
    if (rng() % 3 == 0) b.scratch_op = random_text(rng);
    b.size_exact = rng() % 2;
    if (rng() % 2) b.compiler_offsets = {0, static_cast<std::int64_t>(rng() % 1024)};
    b.planner_id = static_cast<int>(rng() % 3) - 1;
    b.planner_copy = static_cast<int>(rng() % 3);
    b.planner_offset = static_cast<std::int64_t>(rng() % 3) - 1;
    p.buffers.push_back(b);
  }
  for (int i = static_cast<int>(rng() % 4); i > 0; --i) {
    Channel c;
    c.id = static_cast<int>(p.channels.size());
    c.space = rng() % 2 ? MemorySpace::kSmem : MemorySpace::kTmem;
    c.producer = {static_cast<int>(rng() % 9), static_cast<int>(rng() % 3) - 1};
    for (int k = static_cast<int>(rng() % 3); k > 0; --k) c.consumers.push_back({3, static_cast<int>(rng() % 3) - 1});
    c.operand_d = rng() % 2;
    p.channels.push_back(c);
  }
  Summary& s = p.summary;
  s.smem_peak_bytes = static_cast<std::int64_t>(rng() % 300000);
  s.smem_live_at_peak = {1, 2};
  if (rng() % 2) s.triton_shared_bytes = 131544;
  if (rng() % 2) s.compiler_shared_bytes = 0;
  if (rng() % 2) s.compiler_tmem_cols = 256;
  s.fits = rng() % 2;
  for (int k = static_cast<int>(rng() % 3); k > 0; --k) s.notes.push_back(random_text(rng));
  for (int i = static_cast<int>(rng() % 3); i > 0; --i)
    p.reuse_hazards.push_back({random_text(rng), 1, 2, 3, 4, static_cast<int>(rng() % 3) - 1, kNoPartition});
  return p;
}

}  // namespace

TEST_CASE("plan_writer: the streamed document is dump_json's text on the fixtures") {
  for (const char* stem : {"matmul_ws_sm90", "attn_ws_sm100", "attn_nows_sm90"}) {
    CAPTURE(stem);
    const Plan p = fixture_plan(stem);
    CHECK(without_created(plan_document_text(p, "ttgir")) == without_created(dump_json(plan_document(p, "ttgir"))));
  }
}

TEST_CASE("plan_writer: the streamed document is dump_json's text on random plans") {
  std::mt19937 rng(1129);
  for (int round = 0; round < 300; ++round) {
    CAPTURE(round);
    const Plan p = random_plan(rng);
    CHECK(without_created(plan_document_text(p, "ws-dot")) == without_created(dump_json(plan_document(p, "ws-dot"))));
  }
}

TEST_CASE("plan_writer: a large plan goes out in pieces that join into the document") {
  Plan p = fixture_plan("attn_ws_sm100");
  const std::vector<PlanOp> ops = p.ops;
  while (p.ops.size() < 20000) p.ops.insert(p.ops.end(), ops.begin(), ops.end());
  std::vector<std::size_t> sizes;
  std::string joined;
  write_plan_document(p, "ttgir", [&](std::string_view piece) {
    sizes.push_back(piece.size());
    joined += piece;
  });
  CHECK(sizes.size() > 2);
  CHECK(without_created(joined) == without_created(dump_json(plan_document(p, "ttgir"))));
}
