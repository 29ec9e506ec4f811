// Typed reads of the fields of one JSON object of a vtools document, named by their path from the document root
// ("benchmarks.gpt2.timing.median", "kernels[3].grid"): the one reader and the one wording of every document error
// (`<path>: expected <what>, got <value>`, `<path>: missing, expected <what>`). Each format's reader (formats/*)
// decides what is required and what each field means; this file only checks types and ranges.
#pragma once

#include <cstddef>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "libcommon/document.hpp"

namespace vtools {

/// `v` as an error message quotes it: as JSON writes it (1e+300, "x", [1,2], {}), strings cut after about 40 bytes,
/// longer arrays and objects by kind ("an array of 200 elements", "an object"); never raw input bytes.
std::string describe_json_value(const OrderedJson& v);

/// The column names of a table of rows (a trace's "access_columns"): a FieldReader over a row (a JSON array, one
/// value per column) reads its elements as the members these columns name, so a format reads a row as it reads an
/// object of the same keys.
class Columns {
 public:
  explicit Columns(std::vector<std::string> names);
  Columns(const Columns&) = delete;  // positions_ views names_
  Columns& operator=(const Columns&) = delete;
  /// The position of column `name`, npos when there is none.
  [[nodiscard]] std::size_t position(std::string_view name) const;
  [[nodiscard]] const std::vector<std::string>& names() const { return names_; }

 private:
  std::vector<std::string> names_;
  std::unordered_map<std::string_view, std::size_t> positions_;
};

/// A view of one JSON object and its path. Optional reads give their fallback where the field is absent or null;
/// required reads refuse that; a present field of the wrong type or out of range is always refused. Every refusal is
/// Error(kDataError) at the document: "<file>: <path>: expected an integer from 0 to 4294967295, got 1e+300".
/// Holds references: the object and the file name outlive the reader.
class FieldReader {
 public:
  /// `obj` at `path` ("" for the document root) of document `file`; refused unless `obj` is an object.
  FieldReader(const OrderedJson& obj, std::string path, std::string_view file);
  /// Element `index` of the array at `array_path`; the path string is built only for a message.
  FieldReader(const OrderedJson& obj, std::string_view array_path, std::size_t index, std::string_view file);
  /// Row `index` of the table at `array_path`, read as the object of `columns`: refused unless an array of one value
  /// per column; member paths name the column ("accesses[5].loads").
  FieldReader(const OrderedJson& row, const Columns& columns, std::string_view array_path, std::size_t index,
              std::string_view file);

  /// This object's path ("kernels[3]"; "" for the root).
  [[nodiscard]] std::string path() const;
  /// The path of member `key` ("kernels[3].grid"); element `index` of it when index is not npos ("...grid[1]").
  [[nodiscard]] std::string path(std::string_view key, std::size_t index = npos) const;
  [[nodiscard]] std::string_view file() const { return file_; }
  /// The object itself, for members a format reads by iterating.
  [[nodiscard]] const OrderedJson& json() const { return obj_; }

  /// Member `key`, or null where it is absent or JSON null.
  [[nodiscard]] const OrderedJson* find(std::string_view key) const;
  [[nodiscard]] bool has(std::string_view key) const { return find(key) != nullptr; }

  /// Error(kDataError) "<path(key, index)>: <what>"; an empty key names this object.
  [[noreturn]] void fail(std::string_view key, std::string_view what, std::size_t index = npos) const;
  /// Error(kDataError) "<path(key, index)>: expected <what>, got <describe_json_value(got)>".
  [[noreturn]] void expected(std::string_view key, std::string_view what, const OrderedJson& got,
                             std::size_t index = npos) const;
  /// Error(kDataError) "<path(key)>: missing, expected <what>".
  [[noreturn]] void missing(std::string_view key, std::string_view what) const;

  /// An integer of type T from `min` to `max` (T's range by default): a JSON integer within them. 1.0, 1e300, and
  /// 2^32 for a uint32 are refused, never cast.
  template <class T>
  [[nodiscard]] std::optional<T> optional_integer(std::string_view key, T min = std::numeric_limits<T>::min(),
                                                  T max = std::numeric_limits<T>::max()) const {
    const OrderedJson* v = find(key);
    if (!v) return std::nullopt;
    return integer_value<T>(*v, key, npos, min, max);
  }
  template <class T>
  [[nodiscard]] T integer(std::string_view key, T fallback, T min = std::numeric_limits<T>::min(),
                          T max = std::numeric_limits<T>::max()) const {
    return optional_integer<T>(key, min, max).value_or(fallback);
  }
  template <class T>
  [[nodiscard]] T required_integer(std::string_view key, T min = std::numeric_limits<T>::min(),
                                   T max = std::numeric_limits<T>::max()) const {
    const OrderedJson* v = find(key);
    if (!v) missing(key, "an integer");
    return integer_value<T>(*v, key, npos, min, max);
  }
  /// The integers of array `key` (none where absent or null).
  template <class T>
  [[nodiscard]] std::vector<T> integers(std::string_view key) const {
    std::vector<T> out;
    if (const OrderedJson* a = array(key))
      for (std::size_t i = 0; i < a->size(); ++i) out.push_back(integer_value<T>((*a)[i], key, i));
    return out;
  }
  /// `v`, member `key` (element `index` of it where given), as an integer of type T from `min` to `max`.
  template <class T>
  [[nodiscard]] T integer_value(const OrderedJson& v, std::string_view key, std::size_t index = npos,
                                T min = std::numeric_limits<T>::min(), T max = std::numeric_limits<T>::max()) const {
    static_assert(std::is_integral_v<T> && !std::is_same_v<T, bool>);
    if (const std::optional<T> x = json_integer<T>(v); x && *x >= min && *x <= max) return *x;
    expected(key, integer_range(std::to_string(min), std::to_string(max)), v, index);
  }

  /// Member `key` into `out` (an integer type, double, bool or std::string), read as the typed reads below; `out`
  /// left as it is where absent or null.
  template <class T>
  void get(std::string_view key, T& out) const {
    if constexpr (std::is_same_v<T, std::string>) {
      if (std::optional<std::string> s = optional_string(key)) out = std::move(*s);
    } else if constexpr (std::is_same_v<T, bool>) {
      out = boolean(key, out);
    } else if constexpr (std::is_floating_point_v<T>) {
      out = number(key, out);
    } else {
      out = integer<T>(key, out);
    }
  }

  /// A number (integer or not), as a double.
  [[nodiscard]] std::optional<double> optional_number(std::string_view key) const;
  [[nodiscard]] double number(std::string_view key, double fallback) const;
  /// The numbers of array `key` (none where absent or null); a null element reads as `null_as` where given.
  [[nodiscard]] std::vector<double> numbers(std::string_view key, std::optional<double> null_as = std::nullopt) const;

  [[nodiscard]] std::optional<std::string> optional_string(std::string_view key) const;
  [[nodiscard]] std::string string(std::string_view key, std::string fallback = {}) const;
  [[nodiscard]] std::string required_string(std::string_view key) const;
  /// The strings of array `key` (none where absent or null).
  [[nodiscard]] std::vector<std::string> strings(std::string_view key) const;
  /// A string from a fixed set (refused with "did you mean" where one is close); `fallback` where absent or null.
  [[nodiscard]] std::string one_of(std::string_view key, const std::vector<std::string>& names,
                                   std::string fallback = {}) const;

  [[nodiscard]] std::optional<bool> optional_boolean(std::string_view key) const;
  [[nodiscard]] bool boolean(std::string_view key, bool fallback) const;

  /// Object `key` as a reader at path(key); nullopt where absent or null.
  [[nodiscard]] std::optional<FieldReader> object(std::string_view key) const;
  [[nodiscard]] FieldReader required_object(std::string_view key) const;
  /// Array `key`; null where absent or null.
  [[nodiscard]] const OrderedJson* array(std::string_view key) const;
  [[nodiscard]] const OrderedJson& required_array(std::string_view key) const;

  /// Calls each(FieldReader) for every element of array `key` (none where absent or null), each refused unless an
  /// object, at path "key[i]".
  template <class F>
  void for_each(std::string_view key, F each) const {
    const OrderedJson* a = array(key);
    if (!a) return;
    const std::string base = path(key);
    for (std::size_t i = 0; i < a->size(); ++i) each(FieldReader((*a)[i], base, i, file_));
  }
  /// Calls each(name, FieldReader) for every member of object `key` (none where absent or null), in document order,
  /// each refused unless an object, at path "key.name".
  template <class F>
  void for_each_member(std::string_view key, F each) const {
    const std::optional<FieldReader> o = object(key);
    if (!o) return;
    for (const auto& item : o->obj_.items()) each(item.key(), FieldReader(item.value(), o->path(item.key()), file_));
  }

  static constexpr std::size_t npos = static_cast<std::size_t>(-1);

 private:
  static std::string integer_range(const std::string& min, const std::string& max);

  const OrderedJson& obj_;
  std::string base_;                ///< the path, or the array's path when index_ is set
  std::size_t index_ = npos;        ///< this object's index in the array at base_
  const Columns* columns_ = nullptr;  ///< set when obj_ is a row of these columns
  std::string_view file_;
  mutable std::size_t next_ = 0;    ///< where find() starts: after the member it found last
};

}  // namespace vtools
