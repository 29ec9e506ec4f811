// Reading a trace document's access records (trace_reader.cpp's part for access_columns, access_kernels and
// accesses), and the field checks the other record readers share with it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "formats/trace/trace_model.hpp"
#include "libcommon/field_reader.hpp"

namespace vtools::vtrace::reader {

/// An empty object: a FieldReader over it reports an error about a top-level key.
extern const OrderedJson kNoFields;

/// `key`, when there, is an array of 3 integers (a grid, block, cluster, thread).
void get_dim3(const FieldReader& f, std::string_view key, Dim3& out);

/// `id` (field kernel_id of accesses[index]) indexes access_kernels.
void check_kernel_id(const FieldReader& f, std::uint64_t id, std::size_t names);

/// The access records of a document, as the parser hands them over: objects (versions 1-2) or rows of
/// access_columns (version 3), naming their kernel by name (version 1) or by kernel_id into access_kernels.
/// JSON does not order an object's keys (RFC 8259 section 4), so any of access_columns, access_kernels and accesses
/// may come first; vtrace writes the columns and kernels first, and those documents are read one record at a time.
class AccessReader {
 public:
  AccessReader(Trace& t, std::string_view file) : t_(t), file_(file) {}

  /// Takes element `index` of the top-level array `key` where `key` is access_kernels, access_columns or accesses
  /// (true); any other key (false) tells it that access_columns, where it came, is complete.
  bool element(std::string_view key, std::size_t index, const OrderedJson& v);
  /// After the last element: the rows kept for columns that came after them are read; kernel ids read before
  /// access_kernels are resolved. Throws at the first bad row or id.
  void finish();

 private:
  struct Unresolved {
    std::size_t access, index;  ///< its place in t_.accesses; its index in the document's accesses
    std::uint64_t id;
  };
  struct KeptRow {
    std::size_t access, index, offset;  ///< as Unresolved's; where its encoding starts in kept_bytes_
  };

  /// Reads access record `index` into `slot`, or onto the end of t_.accesses where `slot` is npos.
  void read(const FieldReader& f, std::size_t index, std::size_t slot = FieldReader::npos);
  void columns_complete();
  [[nodiscard]] OrderedJson kept_row(std::size_t k) const;
  [[noreturn]] void no_columns(const OrderedJson& row, std::size_t index) const {
    FieldReader(kNoFields, "", file_).expected("accesses", "an object, or a row of access_columns (none given)", row,
                                               index);
  }

  Trace& t_;
  std::string_view file_;
  std::vector<SharedName> kernels_;
  bool kernels_seen_ = false;
  SharedName last_kernel_;
  std::vector<Unresolved> unresolved_;  // kernel_ids read before access_kernels (not where vtrace writes it)
  std::vector<std::string> column_names_;
  bool columns_done_ = false;  // access_columns complete (an element of another key came after it), or never given
  std::optional<Columns> columns_;
  // Rows read before their columns (not where vtrace writes them), each as MessagePack in one buffer until the
  // columns come: no larger than its JSON text (~40 bytes for a typical row of ~80), where a parsed row is ~5x the
  // text. Only this order costs memory per row; columns first, each row is read as it comes and dropped.
  std::vector<std::uint8_t> kept_bytes_;
  std::vector<KeptRow> kept_;
};

}  // namespace vtools::vtrace::reader
