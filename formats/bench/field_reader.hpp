// Typed reads of the fields of one part of a vtools.bench or vtools.compare document ("benchmark 'gpt2'",
// "metadata"): the one wording of both formats' readers. Internal to formats/bench.
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "libcommon/document.hpp"
#include "libcommon/error.hpp"

namespace vtools::vbench {

/// Typed reads of one part of a document ("benchmark 'x'", "metadata"), each mistyped field an Error(kDataError) at
/// the document naming the part and the field.
class FieldReader {
 public:
  FieldReader(std::string_view doc, std::string part) : doc_(doc), part_(std::move(part)) {}

  [[noreturn]] void fail(const std::string& what) const {
    throw Error(ExitCode::kDataError, part_.empty() ? what : part_ + ": " + what,
                SourceLocation{std::string(doc_), 0, 0});
  }

  /// obj[f] as T; `fallback` when absent or null. Integers must be JSON integers (get<int>() of 1e80 is undefined).
  template <typename T>
  T get(const OrderedJson& obj, const char* f, T fallback) const {
    if (!obj.contains(f) || obj[f].is_null()) return fallback;
    const OrderedJson& v = obj[f];
    bool ok = v.is_number();
    if constexpr (std::is_same_v<T, std::string>) {
      ok = v.is_string();
    } else if constexpr (std::is_same_v<T, bool>) {
      ok = v.is_boolean();
    } else if constexpr (std::is_integral_v<T>) {
      ok = json_integer<T>(v).has_value();
      if (!ok && v.is_number()) fail("field '" + std::string(f) + "' " + integer_out_of_range<T>(v));
    }
    if (!ok) fail("field '" + std::string(f) + "' has the wrong type");
    return v.template get<T>();
  }

  /// obj[f] as an int; nullopt when absent or null.
  std::optional<int> integer(const OrderedJson& obj, const char* f) const {
    if (!obj.contains(f) || obj[f].is_null()) return std::nullopt;
    return get(obj, f, 0);
  }

  /// A string, or an array of strings joined by spaces (the seed wrote commands as arrays); "" when absent.
  std::string text(const OrderedJson& obj, const char* f) const {
    if (!obj.contains(f) || !obj[f].is_array()) return get(obj, f, std::string());
    std::string out;
    for (const OrderedJson& w : obj[f]) {
      if (!w.is_string()) fail("'" + std::string(f) + "' holds a non-string");
      out += (out.empty() ? "" : " ") + w.get<std::string>();
    }
    return out;
  }

  /// obj[f] when it is an object; an empty object when absent or null; fails when it is something else.
  const OrderedJson& object(const OrderedJson& obj, const char* f) const {
    static const OrderedJson kEmpty = OrderedJson::object();
    if (!obj.contains(f) || obj[f].is_null()) return kEmpty;
    if (!obj[f].is_object()) fail("'" + std::string(f) + "' is not an object");
    return obj[f];
  }

  /// The elements of array obj[f] (none when absent or null); fails when it is something else.
  std::vector<const OrderedJson*> array(const OrderedJson& obj, const char* f) const {
    std::vector<const OrderedJson*> out;
    if (!obj.contains(f) || obj[f].is_null()) return out;
    if (!obj[f].is_array()) fail("'" + std::string(f) + "' is not an array");
    for (const OrderedJson& x : obj[f]) out.push_back(&x);
    return out;
  }

  /// The strings of array obj[f].
  std::vector<std::string> strings(const OrderedJson& obj, const char* f) const {
    std::vector<std::string> out;
    for (const OrderedJson* v : array(obj, f)) {
      if (!v->is_string()) fail("'" + std::string(f) + "' holds a non-string");
      out.push_back(v->get<std::string>());
    }
    return out;
  }

  /// obj[f], a name from a fixed set (dtype, caches); "" when absent.
  std::string one_of(const OrderedJson& obj, const char* f, const std::vector<std::string>& names) const {
    const std::string v = get(obj, f, std::string());
    if (!v.empty() && std::find(names.begin(), names.end(), v) == names.end()) {
      fail(with_suggestion("unknown " + std::string(f) + " '" + v + "'", v, names));
    }
    return v;
  }

  /// The document's name, for a reader of a nested part.
  [[nodiscard]] std::string_view document() const { return doc_; }

 private:
  std::string_view doc_;
  std::string part_;
};

}  // namespace vtools::vbench
