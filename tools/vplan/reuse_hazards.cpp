#include "tools/vplan/reuse_hazards.hpp"

#include <algorithm>
#include <map>
#include <string>

#include "tools/vplan/op_effects.hpp"

namespace vtools::vplan {

namespace {

enum class SyncRole { kNone, kArrive, kWait };

SyncRole role_of(std::string_view op_name) {
  const std::string_view base = op_base_name(op_name);
  if (base == "wait_barrier") return SyncRole::kWait;
  if (base == "init_barrier" || base == "inval_barrier") return SyncRole::kNone;
  return SyncRole::kArrive;  // arrive_barrier, barrier_expect, tc_gen5_commit, copies and MMAs completing on it
}

struct SyncEvent {
  int op = 0;
  int partition = kNoPartition;
};

struct BarrierEvents {
  std::vector<SyncEvent> arrives, waits;
};

class Checker {
 public:
  explicit Checker(const Plan& plan) : plan_(plan) {
    for (const Buffer& b : plan.buffers) {
      if (!b.barrier) continue;
      BarrierEvents ev;
      for (int op : b.users) {
        if (op < 0 || op >= static_cast<int>(plan.ops.size())) continue;  // a plan read from JSON
        const SyncRole r = role_of(plan.ops[op].name);
        if (r == SyncRole::kArrive) ev.arrives.push_back({op, plan.ops[op].partition});
        if (r == SyncRole::kWait) ev.waits.push_back({op, plan.ops[op].partition});
      }
      if (!ev.arrives.empty() && !ev.waits.empty()) barriers_.push_back(std::move(ev));
    }
  }

  /// Whether `x`'s last access happens before `y`'s first access.
  bool ordered(const Buffer& x, const Buffer& y) {
    if (x.users.empty() || y.users.empty()) return true;  // a member nothing touches cannot race
    const int last = last_use(x), first = first_use(y);
    const int p = partition_of(last), q = partition_of(first);
    if (p == q || p == kNoPartition || q == kNoPartition) return last < first;  // program order
    const std::map<int, int>& reach = reach_from(last, p);
    auto r = reach.find(q);
    return r != reach.end() && r->second < first;
  }

  /// Earliest op reached in each partition after op `last` of partition `p`: everything from there on comes after
  /// it. Cached per op: members of many groups share their last access.
  const std::map<int, int>& reach_from(int last, int p) {
    auto cached = reach_cache_.find(last);
    if (cached != reach_cache_.end()) return cached->second;
    std::map<int, int> reach{{p, last}};
    for (bool changed = true; changed;) {
      changed = false;
      for (const BarrierEvents& b : barriers_)
        for (const SyncEvent& a : b.arrives) {
          auto r = reach.find(a.partition);
          if (r == reach.end() || a.op < r->second) continue;
          for (const SyncEvent& w : b.waits) {
            if (w.partition == a.partition || w.partition == kNoPartition) continue;
            auto t = reach.find(w.partition);
            if (t == reach.end() || w.op < t->second) {
              reach[w.partition] = w.op;
              changed = true;
            }
          }
        }
    }
    return reach_cache_.emplace(last, std::move(reach)).first->second;
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
    h.first_partition = partition_of(h.first_op);
    h.second_partition = partition_of(h.second_op);
    out.push_back(h);
  }

 private:
  static int last_use(const Buffer& b) { return *std::max_element(b.users.begin(), b.users.end()); }
  static int first_use(const Buffer& b) { return *std::min_element(b.users.begin(), b.users.end()); }
  int partition_of(int op) const {
    return op >= 0 && op < static_cast<int>(plan_.ops.size()) ? plan_.ops[op].partition : kNoPartition;
  }

  const Plan& plan_;
  std::vector<BarrierEvents> barriers_;
  std::map<int, std::map<int, int>> reach_cache_;
};

}  // namespace

std::vector<ReuseHazard> find_reuse_hazards(const Plan& plan) {
  std::vector<ReuseHazard> out;
  Checker checker(plan);
  // The planner's groups: members share memory whatever vplan's liveness says, so either order will do.
  std::map<std::pair<int, int>, std::vector<int>> groups;  // (space, buffer.id) -> members
  for (const Buffer& b : plan.buffers)
    if (b.planner_id >= 0) groups[{static_cast<int>(b.space), b.planner_id}].push_back(b.id);
  for (const auto& [key, members] : groups)
    for (std::size_t i = 0; i < members.size(); ++i)
      for (std::size_t j = i + 1; j < members.size(); ++j)
        checker.check_pair("buffer.id " + std::to_string(key.second), plan.buffers[members[i]],
                           plan.buffers[members[j]], true, out);
  // Buffers placed over each other (the compiler's offsets when known, else vplan's) with disjoint lifetimes: the
  // earlier must be done before the later starts. Swept by offset, so only overlapping pairs are visited.
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
        if (size(a) == 0 || size(b) == 0 || (a->start < b->end && b->start < a->end)) continue;  // live together
        const Buffer* x = a->end <= b->start ? a : b;
        const Buffer* y = x == a ? b : a;
        const std::int64_t lo = b->placed_offset(), hi = std::min(a_end, b->placed_offset() + size(b));
        checker.check_pair("offsets " + std::to_string(lo) + "-" + std::to_string(hi), *x, *y, false, out);
      }
    }
  }
  return out;
}

}  // namespace vtools::vplan
