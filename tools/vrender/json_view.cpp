#include "tools/vrender/json_view.hpp"

#include <limits>

#include "libcommon/error.hpp"

namespace vtools::vrender {

namespace {
std::string join_path(const std::string& base, std::string_view key) {
  return base.empty() ? std::string(key) : base + "." + std::string(key);
}
std::string type_phrase(const OrderedJson& v) {
  if (v.is_string()) return "a string";
  if (v.is_number()) return "a number";
  if (v.is_boolean()) return "a boolean";
  if (v.is_array()) return "an array";
  if (v.is_object()) return "an object";
  return "null";
}
}  // namespace

JsonView::JsonView(const OrderedJson* value, std::string doc, std::string path)
    : value_(value), doc_(std::move(doc)), path_(std::move(path)) {}

bool JsonView::present() const { return value_ != nullptr && !value_->is_null(); }

void JsonView::fail(std::string_view key, std::string_view expected) const {
  std::string path = key.empty() ? path_ : join_path(path_, key);
  const OrderedJson* v = key.empty() ? value_ : (value_ && value_->is_object() && value_->contains(key) ? &(*value_)[std::string(key)] : nullptr);
  std::string actual = v ? type_phrase(*v) : "missing";
  throw Error(ExitCode::kDataError, "field '" + path + "' is " + actual + ", expected " + std::string(expected),
              SourceLocation{doc_, 0, 0});
}

JsonView JsonView::at(std::string_view key) const {
  if (!present()) return JsonView(nullptr, doc_, join_path(path_, key));
  if (!value_->is_object()) fail("", "an object");
  auto it = value_->find(key);
  return JsonView(it == value_->end() ? nullptr : &*it, doc_, join_path(path_, key));
}

std::optional<double> JsonView::as_number() const {
  if (!present()) return std::nullopt;
  if (!value_->is_number()) fail("", "a number");
  return value_->get<double>();
}

std::string JsonView::as_text() const {
  if (!present()) return "";
  if (value_->is_string()) return value_->get<std::string>();
  if (value_->is_number_integer()) return std::to_string(value_->get<long long>());
  if (value_->is_array()) {
    std::string out;
    for (const auto& e : *value_) {
      if (!e.is_string()) fail("", "a string or an array of strings");
      out += (out.empty() ? "" : " ") + e.get<std::string>();
    }
    return out;
  }
  fail("", "a string");
}

std::optional<double> JsonView::number(std::string_view key) const { return at(key).as_number(); }

std::optional<std::string> JsonView::string(std::string_view key) const {
  JsonView v = at(key);
  if (!v.present()) return std::nullopt;
  if (!v.value_->is_string()) v.fail("", "a string");
  return v.value_->get<std::string>();
}

std::optional<bool> JsonView::boolean(std::string_view key) const {
  JsonView v = at(key);
  if (!v.present()) return std::nullopt;
  if (!v.value_->is_boolean()) v.fail("", "a boolean");
  return v.value_->get<bool>();
}

double JsonView::number_or(std::string_view key, double fallback) const { return number(key).value_or(fallback); }

std::string JsonView::string_or(std::string_view key, std::string fallback) const {
  return string(key).value_or(std::move(fallback));
}

std::string JsonView::text_or(std::string_view key, std::string fallback) const {
  JsonView v = at(key);
  return v.present() ? v.as_text() : fallback;
}

std::vector<double> JsonView::numbers(std::string_view key) const {
  std::vector<double> out;
  for (const auto& item : items(key)) {
    auto n = item.as_number();
    out.push_back(n.value_or(std::numeric_limits<double>::quiet_NaN()));
  }
  return out;
}

std::vector<JsonView> JsonView::items(std::string_view key) const {
  JsonView v = key.empty() ? *this : at(key);
  std::vector<JsonView> out;
  if (!v.present()) return out;
  if (!v.value_->is_array()) v.fail("", "an array");
  out.reserve(v.value_->size());
  std::size_t i = 0;
  for (const auto& e : *v.value_) out.emplace_back(&e, doc_, v.path_ + "[" + std::to_string(i++) + "]");
  return out;
}

std::vector<std::pair<std::string, JsonView>> JsonView::members(std::string_view key) const {
  JsonView v = key.empty() ? *this : at(key);
  std::vector<std::pair<std::string, JsonView>> out;
  if (!v.present()) return out;
  if (!v.value_->is_object()) v.fail("", "an object");
  for (auto it = v.value_->begin(); it != v.value_->end(); ++it)
    out.emplace_back(it.key(), JsonView(&it.value(), doc_, join_path(v.path_, it.key())));
  return out;
}

}  // namespace vtools::vrender
