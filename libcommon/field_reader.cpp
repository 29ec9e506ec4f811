#include "libcommon/field_reader.hpp"

#include <algorithm>

#include "libcommon/error.hpp"

namespace vtools {

namespace {

constexpr std::size_t kQuotedBytes = 40;  ///< longest string a message quotes before "..."

/// JSON text cut to about kQuotedBytes without splitting a UTF-8 sequence.
std::string cut(std::string text) {
  if (text.size() <= kQuotedBytes) return text;
  std::size_t n = kQuotedBytes;
  while (n > 0 && (static_cast<unsigned char>(text[n]) & 0xC0) == 0x80) --n;
  return text.substr(0, n) + "...";
}

/// A key written plainly in a path: the characters of vtools' own field and benchmark names ("gpt2-medium",
/// "small/B:2/T:4"). Any other key (a dot, a space, a control byte) is written ["<JSON-escaped>"].
bool plain_key(std::string_view key) {
  return !key.empty() && std::all_of(key.begin(), key.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
           c == '@' || c == '/' || c == ':' || c == '+';
  });
}

void append_key(std::string& path, std::string_view key) {
  if (plain_key(key)) {
    if (!path.empty()) path += '.';
    path += key;
  } else {
    path += "[" + cut(OrderedJson(std::string(key)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)) +
            "]";
  }
}

void append_index(std::string& path, std::size_t index) { path += "[" + std::to_string(index) + "]"; }

}  // namespace

std::string describe_json_value(const OrderedJson& v) {
  std::string text = v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (!v.is_structured() || text.size() <= kQuotedBytes) return cut(std::move(text));
  if (v.is_object()) return "an object";
  return "an array of " + std::to_string(v.size()) + " elements";
}

FieldReader::FieldReader(const OrderedJson& obj, std::string path, std::string_view file)
    : obj_(obj), base_(std::move(path)), file_(file) {
  if (!obj_.is_object()) expected("", "an object", obj_);
}

FieldReader::FieldReader(const OrderedJson& obj, std::string_view array_path, std::size_t index, std::string_view file)
    : obj_(obj), base_(array_path), index_(index), file_(file) {
  if (!obj_.is_object()) expected("", "an object", obj_);
}

Columns::Columns(std::vector<std::string> names) : names_(std::move(names)) {
  for (std::size_t i = 0; i < names_.size(); ++i) positions_.try_emplace(names_[i], i);  // the first of a repeat
}

std::size_t Columns::position(std::string_view name) const {
  const auto it = positions_.find(name);
  return it == positions_.end() ? FieldReader::npos : it->second;
}

FieldReader::FieldReader(const OrderedJson& row, const Columns& columns, std::string_view array_path,
                         std::size_t index, std::string_view file)
    : obj_(row), base_(array_path), index_(index), columns_(&columns), file_(file) {
  if (!obj_.is_array() || obj_.size() != columns.names().size())
    expected("", "an array of " + std::to_string(columns.names().size()) + " values (one per column)", obj_);
}

std::string FieldReader::path() const {
  std::string p = base_;
  if (index_ != npos) append_index(p, index_);
  return p;
}

std::string FieldReader::path(std::string_view key, std::size_t index) const {
  std::string p = path();
  if (!key.empty()) append_key(p, key);
  if (index != npos) append_index(p, index);
  return p;
}

const OrderedJson* FieldReader::find(std::string_view key) const {
  if (columns_) {
    const std::size_t at = columns_->position(key);
    return at == npos || obj_[at].is_null() ? nullptr : &obj_[at];
  }
  // A scan of the ordered members (tens of them; no key is copied) that starts after the member found last and wraps
  // around: format readers ask for fields in about the order vtools writes them, so most lookups compare one key.
  const OrderedJson::object_t::Container& members = obj_.get_ref<const OrderedJson::object_t&>();
  const std::size_t n = members.size();
  for (std::size_t k = 0, i = next_ < n ? next_ : 0; k < n; ++k, i = i + 1 < n ? i + 1 : 0) {
    if (members[i].first != key) continue;
    next_ = i + 1;
    return members[i].second.is_null() ? nullptr : &members[i].second;
  }
  return nullptr;
}

void FieldReader::fail(std::string_view key, std::string_view what, std::size_t index) const {
  std::string where = path(key, index);
  throw Error(ExitCode::kDataError, (where.empty() ? "" : where + ": ") + std::string(what),
              SourceLocation{std::string(file_)});
}

void FieldReader::expected(std::string_view key, std::string_view what, const OrderedJson& got,
                           std::size_t index) const {
  fail(key, "expected " + std::string(what) + ", got " + describe_json_value(got), index);
}

void FieldReader::missing(std::string_view key, std::string_view what) const {
  fail(key, "missing, expected " + std::string(what));
}

std::string FieldReader::integer_range(const std::string& min, const std::string& max) {
  return "an integer from " + min + " to " + max;
}

std::optional<double> FieldReader::optional_number(std::string_view key) const {
  const OrderedJson* v = find(key);
  if (!v) return std::nullopt;
  if (!v->is_number()) expected(key, "a number", *v);
  return v->get<double>();
}

double FieldReader::number(std::string_view key, double fallback) const {
  return optional_number(key).value_or(fallback);
}

std::vector<double> FieldReader::numbers(std::string_view key, std::optional<double> null_as) const {
  std::vector<double> out;
  const OrderedJson* a = array(key);
  if (!a) return out;
  for (std::size_t i = 0; i < a->size(); ++i) {
    const OrderedJson& v = (*a)[i];
    if (v.is_null() && null_as) {
      out.push_back(*null_as);
    } else {
      if (!v.is_number()) expected(key, null_as ? "a number or null" : "a number", v, i);
      out.push_back(v.get<double>());
    }
  }
  return out;
}

std::optional<std::string> FieldReader::optional_string(std::string_view key) const {
  const OrderedJson* v = find(key);
  if (!v) return std::nullopt;
  if (!v->is_string()) expected(key, "a string", *v);
  return v->get<std::string>();
}

std::string FieldReader::string(std::string_view key, std::string fallback) const {
  std::optional<std::string> s = optional_string(key);
  return s ? std::move(*s) : std::move(fallback);
}

std::string FieldReader::required_string(std::string_view key) const {
  if (!find(key)) missing(key, "a string");
  return *optional_string(key);
}

std::vector<std::string> FieldReader::strings(std::string_view key) const {
  std::vector<std::string> out;
  const OrderedJson* a = array(key);
  if (!a) return out;
  for (std::size_t i = 0; i < a->size(); ++i) {
    if (!(*a)[i].is_string()) expected(key, "a string", (*a)[i], i);
    out.push_back((*a)[i].get<std::string>());
  }
  return out;
}

std::string FieldReader::one_of(std::string_view key, const std::vector<std::string>& names,
                                std::string fallback) const {
  std::optional<std::string> s = optional_string(key);
  if (!s) return fallback;
  if (std::find(names.begin(), names.end(), *s) != names.end()) return std::move(*s);
  std::string list;
  for (std::size_t i = 0; i < names.size(); ++i)
    list += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + OrderedJson(names[i]).dump();
  std::string what = "expected " + list + ", got " + describe_json_value(*find(key));
  if (const std::string close = closest_match(*s, names); !close.empty())
    what += "; did you mean " + OrderedJson(close).dump() + "?";
  fail(key, what);
}

std::optional<bool> FieldReader::optional_boolean(std::string_view key) const {
  const OrderedJson* v = find(key);
  if (!v) return std::nullopt;
  if (!v->is_boolean()) expected(key, "true or false", *v);
  return v->get<bool>();
}

bool FieldReader::boolean(std::string_view key, bool fallback) const {
  return optional_boolean(key).value_or(fallback);
}

std::optional<FieldReader> FieldReader::object(std::string_view key) const {
  const OrderedJson* v = find(key);
  if (!v) return std::nullopt;
  if (!v->is_object()) expected(key, "an object", *v);
  return FieldReader(*v, path(key), file_);
}

FieldReader FieldReader::required_object(std::string_view key) const {
  if (!find(key)) missing(key, "an object");
  return *object(key);
}

const OrderedJson* FieldReader::array(std::string_view key) const {
  const OrderedJson* v = find(key);
  if (v && !v->is_array()) expected(key, "an array", *v);
  return v;
}

const OrderedJson& FieldReader::required_array(std::string_view key) const {
  if (!find(key)) missing(key, "an array");
  return *array(key);
}

}  // namespace vtools
