// Defensive reading of document bodies: a view of one JSON value with its dotted path, so a missing optional field
// reads as "absent" and a field of the wrong type throws Error(kDataError) naming the document and the path.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "libcommon/document.hpp"

namespace vtools::vrender {

class JsonView {
 public:
  JsonView() = default;
  /// `value` may be null (absent); `doc` names the input in messages; `path` is the dotted path of `value`.
  JsonView(const OrderedJson* value, std::string doc, std::string path);

  /// True when the value exists and is not JSON null.
  [[nodiscard]] bool present() const;
  /// Dotted path for messages ("benchmarks.gpt_nano.timing"), built on demand.
  [[nodiscard]] std::string path() const;
  [[nodiscard]] const OrderedJson* raw() const { return value_; }

  /// Member `key` (absent when this view is absent). Throws when this view is present but not an object.
  [[nodiscard]] JsonView at(std::string_view key) const;

  /// Typed members: nullopt when absent or null; Error(kDataError) when present with another type.
  [[nodiscard]] std::optional<double> number(std::string_view key) const;
  [[nodiscard]] std::optional<std::string> string(std::string_view key) const;
  [[nodiscard]] std::optional<bool> boolean(std::string_view key) const;
  [[nodiscard]] double number_or(std::string_view key, double fallback) const;
  [[nodiscard]] std::string string_or(std::string_view key, std::string fallback) const;
  /// Members every document of a format has: Error(kDataError) "<path.key>: missing, expected a number" when absent
  /// or null, "<path.key>: expected a number, got \"x\"" when present with another type.
  [[nodiscard]] double required_number(std::string_view key) const;
  [[nodiscard]] std::string required_string(std::string_view key) const;
  [[nodiscard]] bool required_boolean(std::string_view key) const;
  [[nodiscard]] JsonView required_object(std::string_view key) const;
  [[nodiscard]] std::vector<JsonView> required_items(std::string_view key) const;
  /// Elements of an array member (empty when absent); each element's path is "key[i]".
  [[nodiscard]] std::vector<JsonView> items(std::string_view key) const;

  /// Throws Error(kDataError) in libcommon FieldReader's wording: "<doc>: <path.key>: expected <expected>, got <value>"
  /// ("missing, expected <expected>" where absent or null).
  [[noreturn]] void fail(std::string_view key, std::string_view expected) const;

 private:
  // Paths are built only for messages: a view keeps its parent's path (shared) plus its own key or index, so walking
  // 100k array elements allocates nothing per element.
  JsonView(const OrderedJson* value, std::shared_ptr<const std::string> doc, std::shared_ptr<const std::string> parent,
           std::string key, std::size_t index);
  [[nodiscard]] const OrderedJson* member(std::string_view key) const;  ///< null when absent or JSON null
  [[nodiscard]] std::shared_ptr<const std::string> shared_path() const;

  const OrderedJson* value_ = nullptr;
  std::shared_ptr<const std::string> doc_;
  std::shared_ptr<const std::string> parent_;
  std::string key_;
  std::size_t index_ = static_cast<std::size_t>(-1);
};

}  // namespace vtools::vrender
