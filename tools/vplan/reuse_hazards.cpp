#include "tools/vplan/reuse_hazards.hpp"

#include <algorithm>
#include <limits>
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

constexpr int kNever = std::numeric_limits<int>::max();  ///< no chain reaches the context

// The warp_specialize op enclosing each op (-1 outside any): the nearest ancestor of that name. Parents come from
// the document in plans read from JSON, so a parent out of range or a cycle ends the walk (-1).
std::vector<int> enclosing_warp_specialize(const Plan& plan) {
  constexpr int kUnknown = -2, kVisiting = -3;
  const int n = static_cast<int>(plan.ops.size());
  std::vector<int> ws(static_cast<std::size_t>(n), kUnknown);
  std::vector<int> path;
  for (int i = 0; i < n; ++i) {
    path.clear();
    int found = -1;
    for (int v = i;;) {
      path.push_back(v);
      ws[v] = kVisiting;
      const int p = plan.ops[v].parent;
      if (p < 0 || p >= n || ws[p] == kVisiting) break;
      if (plan.ops[p].name == "ttg.warp_specialize") {
        found = p;
        break;
      }
      if (ws[p] != kUnknown) {
        found = ws[p];
        break;
      }
      v = p;
    }
    for (int v : path) ws[v] = found;
  }
  return ws;
}

// Happens-before across partitions as a closure over the few contexts, not a walk over every barrier per query. A
// context is a partition of one warp_specialize (partition ids are reused by every warp_specialize; ops with a
// partition but no enclosing warp_specialize, known from attributes only, form one more). A warp_specialize starts
// after what precedes it and every partition joins at its end, so two contexts of different warp_specializes, like
// an op outside any region, are ordered by program order; chains are followed within one warp_specialize only.
// A barrier with an arrive in context P at or after op r and a wait in context Q != P takes Q's earliest reached op
// down to that wait; per (P, Q) the barriers sorted by their last arrive in P with a suffix minimum of their first
// wait in Q answer "earliest wait in Q reachable from op r of P" by one binary search.
class Checker {
 public:
  explicit Checker(const Plan& plan) : plan_(plan) {
    const int n_ops = static_cast<int>(plan.ops.size());
    const std::vector<int> ws = enclosing_warp_specialize(plan);
    context_.assign(plan.ops.size(), kNoPartition);
    std::map<std::pair<int, int>, int> dense;  // (warp_specialize, partition) -> context
    for (int op = 0; op < n_ops; ++op) {
      if (plan.ops[op].partition == kNoPartition) continue;
      auto [it, fresh] = dense.emplace(std::make_pair(ws[op], plan.ops[op].partition),
                                       static_cast<int>(context_ws_.size()));
      if (fresh) context_ws_.push_back(ws[op]);
      context_[op] = it->second;
    }
    // Per barrier: last arrive per context, first wait per context (only barriers with both, as a chain needs).
    std::map<std::pair<int, int>, std::vector<std::pair<int, int>>> entries;  // (P, Q) -> (last arrive, first wait)
    std::vector<std::pair<int, int>> last_arrive, first_wait;  // (context, op), small per barrier
    for (const Buffer& b : plan.buffers) {
      if (!b.barrier) continue;
      last_arrive.clear();
      first_wait.clear();
      bool any_arrive = false, any_wait = false;
      for (int op : b.users) {
        if (op < 0 || op >= n_ops) continue;  // a plan read from JSON
        const SyncRole r = role_of(plan.ops[op].name);
        if (r == SyncRole::kNone) continue;
        const int d = context_[op];
        (r == SyncRole::kArrive ? any_arrive : any_wait) = true;
        if (d == kNoPartition) continue;  // an arrive there is never reached; a wait there orders nothing
        auto& list = r == SyncRole::kArrive ? last_arrive : first_wait;
        auto it = std::find_if(list.begin(), list.end(), [d](const auto& e) { return e.first == d; });
        if (it == list.end()) list.emplace_back(d, op);
        else it->second = r == SyncRole::kArrive ? std::max(it->second, op) : std::min(it->second, op);
      }
      if (!any_arrive || !any_wait) continue;
      for (const auto& a : last_arrive)
        for (const auto& w : first_wait)
          if (!program_ordered(a.first, w.first)) entries[{a.first, w.first}].push_back({a.second, w.second});
    }
    edges_.resize(context_ws_.size());
    for (auto& [pq, list] : entries) {
      std::sort(list.begin(), list.end());
      Edge e;
      e.to = pq.second;
      for (const auto& [arrive, wait] : list) e.arrive.push_back(arrive), e.wait_min.push_back(wait);
      for (std::size_t i = e.wait_min.size(); i-- > 1;) e.wait_min[i - 1] = std::min(e.wait_min[i - 1], e.wait_min[i]);
      edges_[pq.first].push_back(std::move(e));
    }
    reach_.assign(context_ws_.size(), kNever);
  }

  /// Whether `x`'s last access happens before `y`'s first access.
  bool ordered(const Buffer& x, const Buffer& y) {
    if (x.users.empty() || y.users.empty()) return true;  // a member nothing touches cannot race
    const int last = last_use(x), first = first_use(y);
    return reach_from(last, context_of(first)) < first;
  }

  /// What `ordered` compares a first access in context `q` with: a member whose last access is op `last` is
  /// not ordered before one whose first access `first` lies in `q` exactly when first <= reach_from(last, q).
  int reach_from(int last, int q) {
    const int p = context_of(last);
    if (program_ordered(p, q)) return last;
    return reach(last, p, q);
  }

  /// Whether accesses in contexts `p` and `q` are ordered by program order: one context, an op outside any
  /// partition, or two warp_specializes.
  bool program_ordered(int p, int q) const {
    return p == q || p == kNoPartition || q == kNoPartition || context_ws_[p] != context_ws_[q];
  }

  /// Earliest op of context `q` that a chain from op `last` of context `p` reaches (kNever when none does).
  int reach(int last, int p, int q) {
    if (p == kNoPartition || q == kNoPartition) return kNever;
    if (last != cached_last_ || p != cached_context_) {
      close(last, p);
      cached_last_ = last, cached_context_ = p;
    }
    return reach_[q];
  }

  ReuseHazard hazard(const std::string& group, const Buffer& x, const Buffer& y) const {
    ReuseHazard h;
    h.group = group;
    h.first = x.id;
    h.second = y.id;
    h.first_op = last_use(x);
    h.second_op = first_use(y);
    h.first_partition = partition_of(h.first_op);
    h.second_partition = partition_of(h.second_op);
    return h;
  }

  static int last_use(const Buffer& b) { return *std::max_element(b.users.begin(), b.users.end()); }
  static int first_use(const Buffer& b) { return *std::min_element(b.users.begin(), b.users.end()); }
  int partition_of(int op) const {
    return op >= 0 && op < static_cast<int>(plan_.ops.size()) ? plan_.ops[op].partition : kNoPartition;
  }
  /// The context of op `op` (kNoPartition outside any partition).
  int context_of(int op) const {
    return op >= 0 && op < static_cast<int>(context_.size()) ? context_[op] : kNoPartition;
  }

 private:
  struct Edge {
    int to = 0;
    std::vector<int> arrive;    ///< last arrive in the source context, ascending
    std::vector<int> wait_min;  ///< min first wait in `to` over this entry and every later one
  };

  // The least fixpoint of "an arrive at or after the earliest reached op of P reaches the first wait in Q", from
  // op `last` of context `p`: the same closure, in the same order-free sense, as walking every chain.
  void close(int last, int p) {
    std::fill(reach_.begin(), reach_.end(), kNever);
    reach_[p] = last;
    work_.assign(1, p);
    while (!work_.empty()) {
      const int from = work_.back();
      work_.pop_back();
      const int r = reach_[from];
      for (const Edge& e : edges_[from]) {
        auto it = std::lower_bound(e.arrive.begin(), e.arrive.end(), r);
        if (it == e.arrive.end()) continue;
        const int w = e.wait_min[static_cast<std::size_t>(it - e.arrive.begin())];
        if (w < reach_[e.to]) {
          reach_[e.to] = w;
          work_.push_back(e.to);
        }
      }
    }
  }

  const Plan& plan_;
  std::vector<int> context_;     ///< op id -> context (kNoPartition outside any partition)
  std::vector<int> context_ws_;  ///< context -> its warp_specialize op (-1: partitions known from attributes only)
  std::vector<std::vector<Edge>> edges_;  ///< per context
  std::vector<int> reach_, work_;
  int cached_last_ = -1, cached_context_ = kNoPartition;
};

// Max over a fixed array: every index below `limit` whose value is at least `floor`, in O(log n) per index found.
class MaxTree {
 public:
  explicit MaxTree(const std::vector<int>& values) {
    while (size_ < values.size()) size_ *= 2;
    tree_.assign(2 * size_, std::numeric_limits<int>::min());
    std::copy(values.begin(), values.end(), tree_.begin() + static_cast<std::ptrdiff_t>(size_));
    for (std::size_t i = size_; i-- > 1;) tree_[i] = std::max(tree_[2 * i], tree_[2 * i + 1]);
  }
  template <class F>
  void each_at_least(std::size_t limit, int floor, F&& found) const {
    visit(1, 0, size_, limit, floor, found);
  }

 private:
  template <class F>
  void visit(std::size_t node, std::size_t lo, std::size_t hi, std::size_t limit, int floor, F& found) const {
    if (lo >= limit || tree_[node] < floor) return;
    if (node >= size_) return found(lo);
    visit(2 * node, lo, (lo + hi) / 2, limit, floor, found);
    visit(2 * node + 1, (lo + hi) / 2, hi, limit, floor, found);
  }
  std::size_t size_ = 1;
  std::vector<int> tree_;
};

// The pairs (i < j, ascending) of one planner group that no chain orders either way. x and y are unordered exactly
// when first(y) <= reach_from(last(x), context of first(y)) and first(x) <= reach_from(last(y), context of
// first(x)). Rather than test every pair (quadratic in a group, even one partition's program-ordered members), the
// members are grouped by their first access's context (Checker); per two such classes A, C, an x of A is the point (first,
// reach into C) and a y of C the point (first, reach into A), and the y sorted by first with a max tree over their
// reach give each x its partners: O(classes^2 * n log n + pairs log n), the pairs being the output.
std::vector<std::pair<int, int>> unordered_members(const Plan& plan, const std::vector<int>& members,
                                                   Checker& checker) {
  struct Member {
    int index = 0;             ///< in `members`
    int first = 0, last = 0;   ///< first and last access
    std::vector<int> reach;    ///< reach_from(last, class q) per class
  };
  std::vector<Member> ms;
  std::vector<int> classes;  ///< contexts of first accesses, ascending
  for (std::size_t i = 0; i < members.size(); ++i) {
    const Buffer& b = plan.buffers[members[i]];
    if (b.users.empty()) continue;  // a member nothing touches cannot race
    ms.push_back({static_cast<int>(i), Checker::first_use(b), Checker::last_use(b), {}});
    classes.push_back(checker.context_of(ms.back().first));
  }
  std::sort(classes.begin(), classes.end());
  classes.erase(std::unique(classes.begin(), classes.end()), classes.end());
  auto class_of = [&](const Member& m) {
    return static_cast<std::size_t>(
        std::lower_bound(classes.begin(), classes.end(), checker.context_of(m.first)) - classes.begin());
  };
  std::vector<std::vector<int>> by_class(classes.size());  // indices into ms, sorted by first access
  for (std::size_t k = 0; k < ms.size(); ++k) {
    for (int q : classes) ms[k].reach.push_back(checker.reach_from(ms[k].last, q));
    by_class[class_of(ms[k])].push_back(static_cast<int>(k));
  }
  for (auto& list : by_class)
    std::stable_sort(list.begin(), list.end(), [&](int u, int v) { return ms[u].first < ms[v].first; });
  std::vector<std::pair<int, int>> pairs;
  std::vector<int> firsts, reaches;
  for (std::size_t a = 0; a < classes.size(); ++a)
    for (std::size_t c = a; c < classes.size(); ++c) {
      const std::vector<int>& ys = by_class[c];
      firsts.clear(), reaches.clear();
      for (int y : ys) firsts.push_back(ms[y].first), reaches.push_back(ms[y].reach[a]);
      const MaxTree tree(reaches);
      for (int x : by_class[a]) {
        const auto limit = static_cast<std::size_t>(
            std::upper_bound(firsts.begin(), firsts.end(), ms[x].reach[c]) - firsts.begin());
        tree.each_at_least(limit, ms[x].first, [&](std::size_t k) {
          const int i = ms[x].index, j = ms[ys[k]].index;
          if (a != c) pairs.emplace_back(std::min(i, j), std::max(i, j));
          else if (i < j) pairs.emplace_back(i, j);  // within one class each pair is met both ways (and x with x)
        });
      }
    }
  std::sort(pairs.begin(), pairs.end());
  return pairs;
}

// One SMEM or TMEM buffer placed over others, with what the sweep needs precomputed.
struct Placed {
  const Buffer* b = nullptr;
  std::int64_t lo = 0, hi = 0;  ///< [offset, offset + size)
  int first = 0, last = 0;      ///< first and last user (when it has users)
  int first_context = kNoPartition;
  // Normal: a positive size, liveness non-empty and every user inside it, so "x ends before y starts" implies
  // program order of the accesses; anything else (plans read from documents) is checked pair by pair as before.
  bool normal = false;
};

// Buffers placed over each other (the compiler's offsets when known, else vplan's) with disjoint lifetimes: the one
// that ends first must be done before the other starts. In offset order (offset, id), pairs (i < j) whose offset
// ranges overlap. Rather than visit every such pair (quadratic where many buffers share offsets over time), for
// each buffer x it visits only the later-starting buffers whose first access could precede what x's chains reach.
void placed_over_each_other(const Plan& plan, MemorySpace space, Checker& checker, std::vector<ReuseHazard>& out) {
  std::vector<const Buffer*> sorted;
  for (const Buffer& b : plan.buffers)
    if (b.space == space && !b.is_scratch() && !b.barrier && b.planner_id < 0) sorted.push_back(&b);
  auto size = [&](const Buffer* b) -> std::int64_t { return space == MemorySpace::kSmem ? b->bytes : b->cols; };
  std::sort(sorted.begin(), sorted.end(), [](const Buffer* a, const Buffer* b) {
    return a->placed_offset() != b->placed_offset() ? a->placed_offset() < b->placed_offset() : a->id < b->id;
  });
  std::vector<Placed> placed;
  placed.reserve(sorted.size());
  for (const Buffer* b : sorted) {
    Placed p;
    p.b = b;
    p.lo = b->placed_offset();
    p.hi = p.lo + size(b);
    if (!b->users.empty()) {
      p.first = Checker::first_use(*b), p.last = Checker::last_use(*b);
      p.first_context = checker.context_of(p.first);
    }
    p.normal = size(b) > 0 && b->start < b->end && (b->users.empty() || (b->start <= p.first && p.last < b->end));
    placed.push_back(p);
  }
  // Hazards as (i, j) in offset order, sorted at the end into the order the plain sweep reports them.
  std::vector<std::pair<std::pair<int, int>, ReuseHazard>> found;
  auto report = [&](int i, int j) {  // i < j; the pair is known to be live apart and to overlap in memory
    const Buffer* a = placed[i].b;
    const Buffer* b = placed[j].b;
    const Buffer* x = a->end <= b->start ? a : b;
    const Buffer* y = x == a ? b : a;
    if (checker.ordered(*x, *y)) return;
    const std::int64_t lo = placed[j].lo, hi = std::min(placed[i].hi, placed[j].hi);
    found.push_back({{i, j}, checker.hazard("offsets " + std::to_string(lo) + "-" + std::to_string(hi), *x, *y)});
  };
  auto candidate = [&](int i, int j) {  // the plain sweep's test for i < j
    const Buffer* a = placed[i].b;
    const Buffer* b = placed[j].b;
    if (placed[j].lo >= placed[i].hi || size(a) == 0 || size(b) == 0) return false;
    return !(a->start < b->end && b->start < a->end);
  };
  // Pairs with an odd member: the plain sweep, pair by pair (each pair once).
  const int n = static_cast<int>(placed.size());
  for (int i = 0; i < n; ++i) {
    if (placed[i].normal || size(placed[i].b) == 0) continue;  // a zero-size buffer overlaps nothing
    for (int j = 0; j < n; ++j) {
      if (j == i || (!placed[j].normal && j < i)) continue;
      const int lo = std::min(i, j), hi = std::max(i, j);
      if (candidate(lo, hi)) report(lo, hi);
    }
  }
  // Pairs of normal members: x ends before y starts, so x's last access precedes y's first in program order. Only
  // when they fall in different partitions of one warp_specialize can a pair be unordered, and only when y's first
  // access is no later than the earliest op the chains from x reach in y's context. Per context, y sorted by start.
  std::map<int, std::vector<int>> by_context;  // first access's context -> indices by start
  for (int i = 0; i < n; ++i)
    if (placed[i].normal && !placed[i].b->users.empty() && placed[i].first_context != kNoPartition)
      by_context[placed[i].first_context].push_back(i);
  for (auto& [q, list] : by_context)
    std::stable_sort(list.begin(), list.end(), [&](int u, int v) { return placed[u].b->start < placed[v].b->start; });
  for (int xi = 0; xi < n; ++xi) {
    const Placed& x = placed[xi];
    if (!x.normal || x.b->users.empty()) continue;
    const int p = checker.context_of(x.last);
    if (p == kNoPartition) continue;
    for (const auto& [q, list] : by_context) {
      if (checker.program_ordered(p, q)) continue;
      const int limit = checker.reach(x.last, p, q);  // y with first access <= limit are not ordered after x
      auto it = std::lower_bound(list.begin(), list.end(), x.b->end,
                                 [&](int u, int end) { return placed[u].b->start < end; });
      for (; it != list.end() && placed[*it].b->start <= limit; ++it) {
        const Placed& y = placed[*it];
        if (y.first > limit || y.lo >= x.hi || x.lo >= y.hi) continue;
        const int lo = std::min(xi, *it), hi = std::max(xi, *it);
        if (candidate(lo, hi)) report(lo, hi);
      }
    }
  }
  std::sort(found.begin(), found.end(), [](const auto& u, const auto& v) { return u.first < v.first; });
  for (auto& f : found) out.push_back(std::move(f.second));
}

}  // namespace

std::vector<ReuseHazard> find_reuse_hazards(const Plan& plan) {
  std::vector<ReuseHazard> out;
  Checker checker(plan);
  // The planner's groups: members share memory whatever vplan's liveness says, so either order will do.
  std::map<std::pair<int, int>, std::vector<int>> groups;  // (space, buffer.id) -> members
  for (const Buffer& b : plan.buffers)
    if (b.planner_id >= 0) groups[{static_cast<int>(b.space), b.planner_id}].push_back(b.id);
  for (const auto& [key, members] : groups) {
    const std::string group = "buffer.id " + std::to_string(key.second);
    for (const auto& [i, j] : unordered_members(plan, members, checker))
      out.push_back(checker.hazard(group, plan.buffers[members[i]], plan.buffers[members[j]]));
  }
  for (MemorySpace space : {MemorySpace::kSmem, MemorySpace::kTmem}) placed_over_each_other(plan, space, checker, out);
  return out;
}

}  // namespace vtools::vplan
