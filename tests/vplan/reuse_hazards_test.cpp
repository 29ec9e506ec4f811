// The reuse-hazard check on hand-made planner MLIR (tests/data/vplan/planner/reuse_hazard.mlir): an ordered group is
// not reported, an unordered one is, with both buffers, their ops and partitions; real kernels report none.
#include "tools/vplan/reuse_hazards.hpp"

#include <algorithm>
#include <map>
#include <random>
#include <sstream>
#include <string>

#include "doctest/doctest.h"
#include "libcommon/input_file.hpp"
#include "tools/vplan/ir_dump_log.hpp"
#include "tools/vplan/op_effects.hpp"
#include "tools/vplan/plan_builder.hpp"
#include "tools/vplan/table_writer.hpp"
#include "tools/vplan/ttgir_reader.hpp"

namespace vtools::vplan {
namespace {

const std::string kHazard = "vplan/planner/reuse_hazard.mlir";

std::string text_of(const std::string& rel) { return read_input(std::string(VTOOLS_TEST_DATA) + "/" + rel); }

Plan plan_of_text(const std::string& text, const std::string& name) {
  std::string ir = looks_like_ir_dump_log(text) ? last_ttgir_dump(text, name) : text;
  return build_plan(read_ttgir(ir, name), {});
}

std::string without(std::string s, const std::string& line_part) {
  const std::size_t p = s.find(line_part);
  REQUIRE(p != std::string::npos);
  const std::size_t start = s.rfind('\n', p) + 1, end = s.find('\n', p) + 1;
  return s.erase(start, end - start);
}

}  // namespace

TEST_CASE("reuse_hazards: the unordered group is found, the ordered one is not") {
  Plan p = plan_of_text(text_of(kHazard), kHazard);
  REQUIRE(p.reuse_hazards.size() == 1);
  const ReuseHazard& h = p.reuse_hazards[0];
  CHECK(h.group == "buffer.id 1");
  CHECK(p.buffers[h.first].name == "c");
  CHECK(p.buffers[h.second].name == "d");
  CHECK(p.ops[h.first_op].name == "ttg.local_load");
  CHECK(p.ops[h.second_op].name == "ttg.local_store");
  CHECK(h.first_partition == 1);
  CHECK(h.second_partition == 2);
  std::ostringstream report;
  CHECK_FALSE(write_check_report(p, report));
  CHECK(report.str().find("hazard: reuse hazard in buffer.id 1: c (B2, last used by ttg.local_load op 11 in P1) and d "
                          "(B3, first used by ttg.local_store op 14 in P2) are not ordered") != std::string::npos);
}

TEST_CASE("reuse_hazards: without the wait (or the arrive) the ordered group is a hazard too") {
  const std::string text = text_of(kHazard);
  for (const char* sync : {"ttng.wait_barrier %bar1", "ttng.arrive_barrier %bar0"}) {
    CAPTURE(sync);
    Plan p = plan_of_text(without(text, sync), kHazard);
    CHECK(p.reuse_hazards.size() == 2);
  }
}

TEST_CASE("reuse_hazards: an arrive before the last access orders nothing") {
  // partition0 arrives first and reads a afterwards: the wait in partition1 no longer follows a's last access.
  std::string text = text_of(kHazard);
  const std::string read = "      %x = ttg.local_load %a0 : !ttg.memdesc<64x64xf16, #shared, #smem, mutable> -> tensor<64x64xf16, #blocked>\n";
  const std::size_t p = text.find(read);
  REQUIRE(p != std::string::npos);
  text.erase(p, read.size());
  const std::string marker = "      %y = ttg.local_load %c0";
  text.insert(text.find(marker), read);
  Plan plan = plan_of_text(text, kHazard);
  CHECK(plan.reuse_hazards.size() == 2);
}

TEST_CASE("reuse_hazards: none on the real kernels (program order and the pipelines' barriers)") {
  for (const char* rel : {"ttgir/matmul_ws_sm90.ttgir", "ttgir/attn_ws_sm100.ttgir", "ttgir/attn_nows_sm90.ttgir",
                          "vplan/compiler/matmul_tma_ws_sm90.ttgir", "vplan/compiler/matmul_tma_ws_sm100.ttgir",
                          "vplan/compiler/matmul_pipelined_s4_sm90.ttgir", "vplan/compiler/attn_ws_d128_sm100.ttgir"}) {
    CAPTURE(rel);
    CHECK(plan_of_text(text_of(rel), rel).reuse_hazards.empty());
  }
}

TEST_CASE("reuse_hazards: buffers in two warp_specializes are ordered by the first one's end") {
  // %t (partition0 of the first) and %e (default region of the second) share offsets, live apart, their partition
  // ids differ and no barrier links them: only the warp_specialize boundary orders them.
  const std::string rel = "vplan/ws_two.ttgir";
  const Plan p = plan_of_text(text_of(rel), rel);
  auto named = [&](const std::string& name) -> const Buffer& {
    auto it = std::find_if(p.buffers.begin(), p.buffers.end(), [&](const Buffer& b) { return b.name == name; });
    REQUIRE(it != p.buffers.end());
    return *it;
  };
  const Buffer& t = named("%t");
  const Buffer& e = named("%e");
  CHECK(t.placed_offset() < e.placed_offset() + e.bytes);
  CHECK(e.placed_offset() < t.placed_offset() + t.bytes);
  CHECK(t.end <= e.start);
  CHECK(p.ops[t.users.back()].partition != p.ops[e.users.front()].partition);
  CHECK(p.reuse_hazards.empty());
}

namespace {

// The check as first written: a fixpoint over every barrier per queried op, every pair of a planner group and every
// pair of buffers placed over each other visited (all quadratic). Kept as the reference the fast check must match
// hazard for hazard. Its partitions are (warp_specialize, partition) pairs, the enclosing warp_specialize found by a
// plain walk up the parents.
class ReferenceChecker {
 public:
  explicit ReferenceChecker(const Plan& plan) : plan_(plan) {
    const int n = static_cast<int>(plan.ops.size());
    for (int op = 0; op < n; ++op) {
      int ws = -1;
      for (int v = plan.ops[op].parent, steps = 0; v >= 0 && v < n && steps <= n; v = plan.ops[v].parent, ++steps)
        if (plan.ops[v].name == "ttg.warp_specialize") {
          ws = v;
          break;
        }
      ws_.push_back(ws);
    }
    for (const Buffer& b : plan.buffers) {
      if (!b.barrier) continue;
      Events ev;
      for (int op : b.users) {
        if (op < 0 || op >= static_cast<int>(plan.ops.size())) continue;
        const std::string_view base = op_base_name(plan.ops[op].name);
        if (base == "init_barrier" || base == "inval_barrier") continue;
        (base == "wait_barrier" ? ev.waits : ev.arrives).push_back({op, partition_of(op)});
      }
      if (!ev.arrives.empty() && !ev.waits.empty()) barriers_.push_back(std::move(ev));
    }
  }

  bool ordered(const Buffer& x, const Buffer& y) {
    if (x.users.empty() || y.users.empty()) return true;
    const int last = last_use(x), first = first_use(y);
    const Key p = partition_of(last), q = partition_of(first);
    if (p == q || p.second == kNoPartition || q.second == kNoPartition || p.first != q.first) return last < first;
    std::map<Key, int> reach{{p, last}};
    for (bool changed = true; changed;) {
      changed = false;
      for (const Events& b : barriers_)
        for (const auto& a : b.arrives) {
          auto r = reach.find(a.second);
          if (r == reach.end() || a.first < r->second) continue;
          for (const auto& w : b.waits) {
            if (w.second == a.second || w.second.second == kNoPartition || w.second.first != a.second.first) continue;
            auto t = reach.find(w.second);
            if (t == reach.end() || w.first < t->second) {
              reach[w.second] = w.first;
              changed = true;
            }
          }
        }
    }
    auto r = reach.find(q);
    return r != reach.end() && r->second < first;
  }

  void check_pair(const std::string& group, const Buffer& x, const Buffer& y, bool either_way,
                  std::vector<ReuseHazard>& out) {
    if (ordered(x, y) || (either_way && ordered(y, x))) return;
    ReuseHazard h;
    h.group = group;
    h.first = x.id;
    h.second = y.id;
    h.first_op = last_use(x);
    h.second_op = first_use(y);
    h.first_partition = partition_of(h.first_op).second;
    h.second_partition = partition_of(h.second_op).second;
    out.push_back(h);
  }

 private:
  using Key = std::pair<int, int>;  // (warp_specialize, partition)
  struct Events {
    std::vector<std::pair<int, Key>> arrives, waits;  // (op, partition)
  };
  static int last_use(const Buffer& b) { return *std::max_element(b.users.begin(), b.users.end()); }
  static int first_use(const Buffer& b) { return *std::min_element(b.users.begin(), b.users.end()); }
  Key partition_of(int op) const {
    if (op < 0 || op >= static_cast<int>(plan_.ops.size()) || plan_.ops[op].partition == kNoPartition)
      return {-1, kNoPartition};
    return {ws_[op], plan_.ops[op].partition};
  }
  const Plan& plan_;
  std::vector<int> ws_;  ///< op -> enclosing warp_specialize (-1: none)
  std::vector<Events> barriers_;
};

std::vector<ReuseHazard> reference_reuse_hazards(const Plan& plan) {
  std::vector<ReuseHazard> out;
  ReferenceChecker checker(plan);
  std::map<std::pair<int, int>, std::vector<int>> groups;
  for (const Buffer& b : plan.buffers)
    if (b.planner_id >= 0) groups[{static_cast<int>(b.space), b.planner_id}].push_back(b.id);
  for (const auto& [key, members] : groups)
    for (std::size_t i = 0; i < members.size(); ++i)
      for (std::size_t j = i + 1; j < members.size(); ++j)
        checker.check_pair("buffer.id " + std::to_string(key.second), plan.buffers[members[i]],
                           plan.buffers[members[j]], true, out);
  for (MemorySpace space : {MemorySpace::kSmem, MemorySpace::kTmem}) {
    std::vector<const Buffer*> placed;
    for (const Buffer& b : plan.buffers)
      if (b.space == space && !b.is_scratch() && !b.barrier && b.planner_id < 0) placed.push_back(&b);
    auto size = [&](const Buffer* b) -> std::int64_t { return space == MemorySpace::kSmem ? b->bytes : b->cols; };
    std::sort(placed.begin(), placed.end(), [](const Buffer* a, const Buffer* b) {
      return a->placed_offset() != b->placed_offset() ? a->placed_offset() < b->placed_offset() : a->id < b->id;
    });
    for (std::size_t i = 0; i < placed.size(); ++i) {
      const Buffer* a = placed[i];
      const std::int64_t a_end = a->placed_offset() + size(a);
      for (std::size_t j = i + 1; j < placed.size() && placed[j]->placed_offset() < a_end; ++j) {
        const Buffer* b = placed[j];
        if (size(a) == 0 || size(b) == 0 || (a->start < b->end && b->start < a->end)) continue;
        const Buffer* x = a->end <= b->start ? a : b;
        const Buffer* y = x == a ? b : a;
        const std::int64_t lo = b->placed_offset(), hi = std::min(a_end, b->placed_offset() + size(b));
        checker.check_pair("offsets " + std::to_string(lo) + "-" + std::to_string(hi), *x, *y, false, out);
      }
    }
  }
  return out;
}

std::string hazard_text(const ReuseHazard& h) {
  return h.group + " " + std::to_string(h.first) + "/" + std::to_string(h.second) + " ops " +
         std::to_string(h.first_op) + "/" + std::to_string(h.second_op) + " P" + std::to_string(h.first_partition) +
         "/P" + std::to_string(h.second_partition);
}

std::vector<std::string> texts(const std::vector<ReuseHazard>& hs) {
  std::vector<std::string> out;
  for (const auto& h : hs) out.push_back(hazard_text(h));
  return out;
}

// A random plan: ops in a few partitions (and none), barriers with arrives and waits, buffers whose users sit in
// their liveness (as build_plan makes them) or, now and then, anywhere (as a document may carry), at a handful of
// offsets so that many share memory over time. Some runs of partitioned ops are the regions of a warp_specialize op
// that follows them (post-order), their partition ids reused from one to the next. One buffer in `group_one_in` joins one of `group_ids` planner groups.
Plan random_plan(std::mt19937& rng, unsigned group_one_in = 8, unsigned group_ids = 3) {
  static const char* kNames[] = {"ttng.wait_barrier", "ttng.arrive_barrier", "ttng.barrier_expect",
                                 "ttng.init_barrier", "ttg.local_load",      "ttg.local_store",
                                 "ttng.tc_gen5_commit", "ttng.async_tma_copy_global_to_local"};
  Plan plan;
  const int n_ops = 20 + static_cast<int>(rng() % 200);
  const int n_partitions = 1 + static_cast<int>(rng() % 4);
  int partition = kNoPartition, region_start = 0;
  for (int i = 0; i < n_ops; ++i) {
    if (rng() % 8 == 0) partition = static_cast<int>(rng() % (n_partitions + 1)) - 1;  // runs of one partition
    PlanOp op;
    op.id = i;
    op.name = kNames[rng() % (sizeof kNames / sizeof kNames[0])];
    op.partition = partition;
    if (rng() % 24 == 0) {  // a warp_specialize over the partitioned ops since the last one
      op.name = "ttg.warp_specialize";
      op.partition = kNoPartition;
      for (int k = region_start; k < i; ++k)
        if (plan.ops[k].partition != kNoPartition) plan.ops[k].parent = i;
      region_start = i + 1;
    }
    plan.ops.push_back(op);
  }
  const int n_buffers = 2 + static_cast<int>(rng() % 60);
  for (int i = 0; i < n_buffers; ++i) {
    Buffer b;
    b.id = i;
    b.space = rng() % 4 == 0 ? MemorySpace::kTmem : MemorySpace::kSmem;
    b.barrier = rng() % 4 == 0;
    if (rng() % 10 == 0) b.scratch_op = "ttg.convert_layout";
    const int a = static_cast<int>(rng() % n_ops);
    const int len = 1 + static_cast<int>(rng() % 30);
    const int users = b.barrier ? 2 + static_cast<int>(rng() % 10) : static_cast<int>(rng() % 4);
    for (int u = 0; u < users; ++u) b.users.push_back(b.barrier ? static_cast<int>(rng() % n_ops)
                                                                : std::min(n_ops - 1, a + static_cast<int>(rng() % len)));
    std::sort(b.users.begin(), b.users.end());
    b.users.erase(std::unique(b.users.begin(), b.users.end()), b.users.end());
    b.start = b.users.empty() ? a : b.users.front();
    b.end = b.users.empty() ? a + 1 : b.users.back() + 1;
    if (rng() % 3 == 0) b.start = std::max(0, b.start - static_cast<int>(rng() % 5));  // lifted to a loop
    switch (rng() % 25) {  // what a document may carry
      case 0: b.start = static_cast<int>(rng() % n_ops), b.end = static_cast<int>(rng() % n_ops); break;
      case 1: b.users.push_back(n_ops + 3); break;
      case 2: b.end = b.start; break;
      default: break;
    }
    const std::int64_t size = rng() % 12 == 0 ? 0 : rng() % 20 == 0 ? -16 : 16 * (1 + static_cast<int>(rng() % 4));
    b.bytes = size;
    b.cols = static_cast<int>(size);
    b.offset = 16 * static_cast<std::int64_t>(rng() % 6);
    if (rng() % 8 == 0) b.compiler_offsets = {16 * static_cast<std::int64_t>(rng() % 6)};
    if (rng() % group_one_in == 0) b.planner_id = static_cast<int>(rng() % group_ids);
    plan.buffers.push_back(b);
  }
  return plan;
}

}  // namespace

TEST_CASE("reuse_hazards: the fast check matches the plain one on random plans") {
  std::mt19937 rng(43);
  std::size_t hazards = 0;
  for (int round = 0; round < 600; ++round) {
    CAPTURE(round);
    const Plan plan = random_plan(rng);
    const auto expected = reference_reuse_hazards(plan);
    hazards += expected.size();
    CHECK(texts(find_reuse_hazards(plan)) == texts(expected));
  }
  CHECK(hazards > 100);  // the rounds do exercise reporting, not only ordered pairs
}

TEST_CASE("reuse_hazards: the planner groups' sweep matches every pair on large random groups") {
  std::mt19937 rng(4343);
  std::size_t hazards = 0;
  for (int round = 0; round < 300; ++round) {
    CAPTURE(round);
    const Plan plan = random_plan(rng, 1 + rng() % 2, 1 + rng() % 2);  // half or all buffers, in one or two groups
    const auto expected = reference_reuse_hazards(plan);
    hazards += expected.size();
    CHECK(texts(find_reuse_hazards(plan)) == texts(expected));
  }
  CHECK(hazards > 1000);
}

TEST_CASE("reuse_hazards: the fast check matches the plain one on the fixtures") {
  for (const char* rel : {"ttgir/matmul_ws_sm90.ttgir", "ttgir/attn_ws_sm100.ttgir", "ttgir/attn_nows_sm90.ttgir",
                          "vplan/compiler/matmul_tma_ws_sm90.ttgir", "vplan/compiler/attn_ws_d128_sm100.ttgir",
                          "vplan/ws_two.ttgir", kHazard.c_str()}) {
    CAPTURE(rel);
    const Plan plan = plan_of_text(text_of(rel), rel);
    CHECK(texts(plan.reuse_hazards) == texts(reference_reuse_hazards(plan)));
  }
}

}  // namespace vtools::vplan
