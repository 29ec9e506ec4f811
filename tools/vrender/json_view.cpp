#include "tools/vrender/json_view.hpp"

#include <cmath>
#include <cstdint>

#include "libcommon/error.hpp"
#include "libcommon/field_reader.hpp"

namespace vtools::vrender {

namespace {
constexpr std::size_t kNoIndex = static_cast<std::size_t>(-1);

std::string join_path(const std::string& base, std::string_view key) {
  return base.empty() ? std::string(key) : base + "." + std::string(key);
}

}  // namespace

JsonView::JsonView(const OrderedJson* value, std::string doc, std::string path)
    : value_(value), doc_(std::make_shared<const std::string>(std::move(doc))), key_(std::move(path)) {}

JsonView::JsonView(const OrderedJson* value, std::shared_ptr<const std::string> doc,
                   std::shared_ptr<const std::string> parent, std::string key, std::size_t index)
    : value_(value), doc_(std::move(doc)), parent_(std::move(parent)), key_(std::move(key)), index_(index) {}

bool JsonView::present() const { return value_ != nullptr && !value_->is_null(); }

std::string JsonView::path() const {
  std::string base = parent_ ? *parent_ : "";
  if (index_ != kNoIndex) return base + "[" + std::to_string(index_) + "]";
  return join_path(base, key_);
}

std::shared_ptr<const std::string> JsonView::shared_path() const { return std::make_shared<const std::string>(path()); }

const OrderedJson* JsonView::member(std::string_view key) const {
  if (!present()) return nullptr;
  if (!value_->is_object()) fail("", "an object");
  auto it = value_->find(key);
  return it == value_->end() || it->is_null() ? nullptr : &*it;
}

void JsonView::fail(std::string_view key, std::string_view expected) const {
  const OrderedJson* v = value_;
  if (!key.empty()) v = value_ && value_->is_object() && value_->contains(key) ? &(*value_)[std::string(key)] : nullptr;
  std::string where = key.empty() ? path() : join_path(path(), key);
  // libcommon FieldReader's wording, as every document reader words it; null reads as absent.
  const std::string what = !v || v->is_null() ? "missing, expected " + std::string(expected)
                                              : "expected " + std::string(expected) + ", got " + describe_json_value(*v);
  throw Error(ExitCode::kDataError, where + ": " + what, SourceLocation{doc_ ? *doc_ : std::string(), 0, 0});
}

JsonView JsonView::at(std::string_view key) const {
  const OrderedJson* v = nullptr;
  if (present()) {
    if (!value_->is_object()) fail("", "an object");
    auto it = value_->find(key);
    if (it != value_->end()) v = &*it;
  }
  return JsonView(v, doc_, shared_path(), std::string(key), kNoIndex);
}

std::optional<double> JsonView::number(std::string_view key) const {
  const OrderedJson* v = member(key);
  if (!v) return std::nullopt;
  if (!v->is_number()) fail(key, "a number");
  return v->get<double>();
}

std::optional<std::string> JsonView::string(std::string_view key) const {
  const OrderedJson* v = member(key);
  if (!v) return std::nullopt;
  if (!v->is_string()) fail(key, "a string");
  return v->get<std::string>();
}

std::optional<bool> JsonView::boolean(std::string_view key) const {
  const OrderedJson* v = member(key);
  if (!v) return std::nullopt;
  if (!v->is_boolean()) fail(key, "true or false");
  return v->get<bool>();
}

double JsonView::number_or(std::string_view key, double fallback) const { return number(key).value_or(fallback); }

std::string JsonView::string_or(std::string_view key, std::string fallback) const {
  return string(key).value_or(std::move(fallback));
}

double JsonView::required_number(std::string_view key) const {
  if (const auto v = number(key)) return *v;
  fail(key, "a number");
}

std::string JsonView::required_string(std::string_view key) const {
  if (auto v = string(key)) return std::move(*v);
  fail(key, "a string");
}

bool JsonView::required_boolean(std::string_view key) const {
  if (const auto v = boolean(key)) return *v;
  fail(key, "true or false");
}

JsonView JsonView::required_object(std::string_view key) const {
  const OrderedJson* v = member(key);
  if (!v || !v->is_object()) fail(key, "an object");
  return at(key);
}

std::vector<JsonView> JsonView::required_items(std::string_view key) const {
  if (!member(key)) fail(key, "an array");
  return items(key);
}

std::vector<JsonView> JsonView::items(std::string_view key) const {
  JsonView v = key.empty() ? *this : at(key);
  std::vector<JsonView> out;
  if (!v.present()) return out;
  if (!v.value_->is_array()) v.fail("", "an array");
  auto parent = v.shared_path();
  out.reserve(v.value_->size());
  std::size_t i = 0;
  for (const auto& e : *v.value_) out.push_back(JsonView(&e, doc_, parent, std::string(), i++));
  return out;
}

}  // namespace vtools::vrender
