#include "formats/trace/access_reader.hpp"

#include <limits>

namespace vtools::vtrace::reader {

const OrderedJson kNoFields = OrderedJson::object();

/// `key`, when there, is an array of 3 integers (a grid, block, cluster, thread).
void get_dim3(const FieldReader& f, std::string_view key, Dim3& out) {
  const OrderedJson* v = f.find(key);
  if (!v) return;
  if (!v->is_array() || v->size() != 3) f.expected(key, "an array of 3 integers", *v);
  for (std::size_t i = 0; i < 3; ++i)
    out[i] = f.integer_value<std::int64_t>((*v)[i], key, i, 0, std::numeric_limits<std::int64_t>::max());
}

/// `id` (field kernel_id of accesses[index]) indexes access_kernels.
void check_kernel_id(const FieldReader& f, std::uint64_t id, std::size_t names) {
  if (id >= names)
    f.fail("kernel_id", "expected an index into access_kernels (" + std::to_string(names) + " names), got " +
                            std::to_string(id));
}

namespace {

/// Version 2 names the kernel by `kernel_id` (returned in `id`) into access_kernels (`names`; null when not read
/// yet: the caller resolves it later); version 1 by name (`last`: the name of the record before, so that records of
/// one kernel share its copy).
Access read_access(const FieldReader& f, const std::vector<SharedName>* names, SharedName& last, std::uint64_t& id) {
  Access a;
  if (f.find("kernel_id")) {
    f.get("kernel_id", id);
    if (names) check_kernel_id(f, id, names->size());
    if (names) a.kernel = (*names)[id];
  } else {
    std::string kernel;
    f.get("kernel", kernel);
    if (last.str() != kernel) last = SharedName(std::move(kernel));
    a.kernel = last;
  }
  f.get("process_id", a.process_id);  // absent before access rows named their process
  f.get("launch", a.launch);
  get_dim3(f, "block", a.block);
  f.get("allocation", a.allocation);
  f.get("argument", a.argument);
  f.get("argument_type", a.argument_type);
  if (const OrderedJson* r = f.array("ranges")) {
    for (std::size_t i = 0; i < r->size(); ++i) {
      const OrderedJson& p = (*r)[i];
      if (!p.is_array() || p.size() != 2 || !p[0].is_number_unsigned() || !p[1].is_number_unsigned() ||
          p[1].get<std::uint64_t>() < p[0].get<std::uint64_t>())
        f.expected("ranges", "[lo, hi) of two integers from 0 to 18446744073709551615 with lo <= hi", p, i);
      a.ranges.push_back({p[0].get<std::uint64_t>(), p[1].get<std::uint64_t>()});
    }
  }
  f.get("ranges_exact", a.ranges_exact);
  f.get("ranges_merged", a.ranges_merged);
  f.get("loads", a.loads);
  f.get("stores", a.stores);
  f.get("atomics", a.atomics);
  f.get("bytes_loaded", a.bytes_loaded);
  f.get("bytes_stored", a.bytes_stored);
  f.get("bulk_copies", a.bulk_copies);
  f.get("sectors_per_request", a.sectors_per_request);
  f.get("active_lanes_per_request", a.active_lanes_per_request);
  return a;
}

}  // namespace

bool AccessReader::element(std::string_view key, std::size_t index, const OrderedJson& v) {
  if (key == "access_columns") {
    if (!v.is_string()) FieldReader(kNoFields, "", file_).expected(key, "a string", v, index);
    // Index 0 after names were read: the key given twice (JSON keys should be unique), and which of the two lists
    // the rows follow could not be told.
    if (index == 0 && (columns_done_ || !column_names_.empty()))
      FieldReader(kNoFields, "", file_).fail(key, "given twice, expected once");
    column_names_.push_back(v.get<std::string>());
    return true;
  }
  if (!column_names_.empty() && !columns_done_) columns_complete();  // the elements of one array come together
  if (key == "access_kernels") {
    if (!v.is_string()) FieldReader(kNoFields, "", file_).expected(key, "a string", v, index);
    kernels_.emplace_back(v.get<std::string>());
    kernels_seen_ = true;
    return true;
  }
  if (key != "accesses") return false;
  if (!v.is_array()) {
    read(FieldReader(v, key, index, file_), index);
  } else if (columns_) {
    read(FieldReader(v, *columns_, key, index, file_), index);
  } else {  // the columns may come later: the row keeps its place in t_.accesses, filled once they do
    kept_.push_back({t_.accesses.size(), index, kept_bytes_.size()});
    t_.accesses.emplace_back();
    OrderedJson::to_msgpack(v, kept_bytes_);
  }
  return true;
}

void AccessReader::read(const FieldReader& f, std::size_t index, std::size_t slot) {
  std::uint64_t id = 0;
  Access a = read_access(f, kernels_seen_ ? &kernels_ : nullptr, last_kernel_, id);
  if (slot == FieldReader::npos) {
    slot = t_.accesses.size();
    t_.accesses.push_back(std::move(a));
  } else {
    t_.accesses[slot] = std::move(a);
  }
  if (!kernels_seen_ && f.find("kernel_id")) unresolved_.push_back({slot, index, id});
}

OrderedJson AccessReader::kept_row(std::size_t k) const {
  const std::size_t end = k + 1 < kept_.size() ? kept_[k + 1].offset : kept_bytes_.size();
  return OrderedJson::from_msgpack(kept_bytes_.data() + kept_[k].offset, kept_bytes_.data() + end);
}

void AccessReader::columns_complete() {
  columns_done_ = true;
  if (!column_names_.empty()) columns_.emplace(std::move(column_names_));
  if (kept_.empty() || !columns_) return;
  for (std::size_t k = 0; k < kept_.size(); ++k) {
    const OrderedJson row = kept_row(k);
    read(FieldReader(row, *columns_, "accesses", kept_[k].index, file_), kept_[k].index, kept_[k].access);
  }
  kept_ = {};
  kept_bytes_ = {};
}

void AccessReader::finish() {
  if (!columns_done_) columns_complete();
  if (!kept_.empty()) no_columns(kept_row(0), kept_[0].index);
  for (const Unresolved& u : unresolved_) {
    check_kernel_id(FieldReader(kNoFields, "accesses", u.index, file_), u.id, kernels_.size());
    t_.accesses[u.access].kernel = kernels_[u.id];
  }
}

}  // namespace vtools::vtrace::reader
