#include "tools/vplan/op_order.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>

namespace vtools::vplan {

int first_array_int(const std::string& value) {
  auto colon = value.find(':');
  if (colon == std::string::npos) return -1;
  std::size_t i = colon + 1;
  while (i < value.size() && value[i] == ' ') ++i;
  int v = 0;
  bool any = false;
  while (i < value.size() && value[i] >= '0' && value[i] <= '9' && v < 1000000) {
    v = v * 10 + (value[i++] - '0');
    any = true;
  }
  return any ? v : -1;
}

std::size_t OpIds::add_region(const std::vector<Op>& ops) {
  const std::size_t first = ids_.size();
  if (ops.empty()) return first;
  ranges_.push_back({ops.data(), ops.data() + ops.size(), first});
  ids_.resize(first + ops.size(), -1);
  return first;
}

void OpIds::seal() {
  std::sort(ranges_.begin(), ranges_.end(), [](const Range& a, const Range& b) { return a.begin < b.begin; });
}

std::size_t OpIds::slot(const Op* op) const {
  auto it = std::upper_bound(ranges_.begin(), ranges_.end(), op,
                             [](const Op* p, const Range& x) { return p < x.begin; });
  if (it == ranges_.begin() || op >= (--it)->end) throw std::out_of_range("op of no numbered region");
  return it->first_slot + static_cast<std::size_t>(op - it->begin);
}

namespace {

int region_partition(const std::string& label) {
  if (label == "default") return 0;
  int n = 0;
  for (char c : label.substr(9))
    if (c >= '0' && c <= '9' && n < 1000000) n = n * 10 + (c - '0');
  return n + 1;
}

class Walker {
 public:
  Walker(OpOrder& out, int default_num_warps) : out_(out), default_num_warps_(default_num_warps) {}

  // Returns the id given to `op`.
  int visit(const Op& op, int inherited_partition, int scope) {
    int partition = inherited_partition;
    for (const char* key : {"async_task_id", "ttg.partition"})
      if (const std::string* v = op.attribute(key)) {
        int p = first_array_int(*v);
        if (p >= 0) partition = p;
      }
    const int first = next_id_;
    std::vector<int> children;
    const bool is_ws = op.name == "ttg.warp_specialize";
    for (const Region& region : op.regions) {
      int region_partition_id = partition;
      int region_scope = scope;
      if (is_ws && !region.label.empty()) {
        region_partition_id = region_partition(region.label);
        if (region.label != "default") region_scope = ++scope_count_;
        note_partition(region_partition_id, region.label,
                       region.label == "default" ? default_num_warps_ : region.num_warps);
      }
      std::size_t slot = out_.id_of.add_region(region.ops);
      for (const Op& inner : region.ops) {
        children.push_back(visit(inner, region_partition_id, region_scope));
        out_.id_of.set(slot++, children.back());
      }
    }
    OrderedOp entry;
    entry.op = &op;
    entry.id = next_id_++;
    entry.subtree_first = first;
    entry.partition = partition;
    entry.scope = scope;
    out_.ops.push_back(entry);
    for (int c : children) out_.ops[c].parent = entry.id;
    if (partition != kNoPartition) note_partition(partition, "", 0);
    return entry.id;
  }

  void finish() {
    for (const auto& e : out_.ops)
      if (e.partition != kNoPartition) ++partitions_[e.partition].op_count;
    for (auto& [id, p] : partitions_) {
      p.id = id;
      out_.partitions.push_back(p);
    }
  }

 private:
  void note_partition(int id, const std::string& region, int num_warps) {
    Partition& p = partitions_[id];
    if (!region.empty()) p.region = region;
    if (num_warps > 0) p.num_warps = num_warps;
  }

  OpOrder& out_;
  int default_num_warps_;
  int next_id_ = 0;
  int scope_count_ = 0;
  std::map<int, Partition> partitions_;
};

}  // namespace

OpOrder order_ops(const Op& function, int default_num_warps) {
  OpOrder order;
  Walker walker(order, default_num_warps);
  // The function op itself is not numbered: ids cover its body only.
  for (const Region& region : function.regions) {
    std::size_t slot = order.id_of.add_region(region.ops);
    for (const Op& op : region.ops) order.id_of.set(slot++, walker.visit(op, kNoPartition, 0));
  }
  order.id_of.seal();
  walker.finish();
  return order;
}

}  // namespace vtools::vplan
