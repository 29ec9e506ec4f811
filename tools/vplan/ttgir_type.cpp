#include "tools/vplan/ttgir_type.hpp"

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

namespace vtools::vplan {

namespace {

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// Splits the body of `name<...>` at top-level commas.
std::vector<std::string_view> split_params(std::string_view body) {
  std::vector<std::string_view> out;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i < body.size(); ++i) {
    char c = body[i];
    if (c == '<' || c == '(' || c == '[' || c == '{') ++depth;
    if (c == '>' || c == ')' || c == ']' || c == '}') --depth;
    if (c == ',' && depth == 0) {
      out.push_back(trim(body.substr(start, i - start)));
      start = i + 1;
    }
  }
  out.push_back(trim(body.substr(start)));
  return out;
}

bool is_element_type(std::string_view t) {
  if (t == "index" || t == "bf16" || t == "tf32") return true;
  if (starts_with(t, "f8") || starts_with(t, "f6") || starts_with(t, "f4")) return t.size() > 2;
  std::string_view digits;
  if (starts_with(t, "si") || starts_with(t, "ui")) digits = t.substr(2);
  else if (starts_with(t, "i") || starts_with(t, "f")) digits = t.substr(1);
  else return starts_with(t, "!");  // e.g. !tt.ptr<f16> as a tensor element
  if (digits.empty()) return false;
  for (char c : digits)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

// "3x64x64xf16" -> shape {3,64,64}, element "f16". `what` names the type in messages.
void parse_shape(std::string_view dims, Type& type, std::string_view what, const SourceLocation& where) {
  std::size_t pos = 0;
  while (true) {
    std::size_t x = dims.find('x', pos);
    std::string_view part = dims.substr(pos, x == std::string_view::npos ? std::string_view::npos : x - pos);
    bool is_dim = !part.empty() && (part == "?" || std::all_of(part.begin(), part.end(), [](char c) {
                                      return std::isdigit(static_cast<unsigned char>(c));
                                    }));
    if (is_dim && x != std::string_view::npos) {
      if (part == "?") {
        type.shape.push_back(-1);
      } else {
        if (part.size() > 12)
          throw Error(ExitCode::kDataError, "expected a dimension below 10^12 in " + std::string(what) + " shape '" +
                                                std::string(dims) + "', got '" + std::string(part) + "'", where);
        type.shape.push_back(std::stoll(std::string(part)));
      }
      pos = x + 1;
      continue;
    }
    std::string_view rest = dims.substr(pos);
    if (!is_element_type(rest))
      throw Error(ExitCode::kDataError,
                  "expected element type after " + std::string(what) + " shape '" + std::string(dims) + "', got " +
                      (rest.empty() ? std::string("end of shape") : "'" + std::string(rest) + "'"),
                  where);
    type.element_type = std::string(rest);
    return;
  }
}

}  // namespace

int element_bits(std::string_view t) {
  if (t == "bf16" || t == "f16") return 16;
  if (t == "tf32") return 32;
  if (t == "index") return 64;
  if (starts_with(t, "f8")) return 8;
  if (starts_with(t, "f6")) return 6;
  if (starts_with(t, "f4")) return 4;
  std::string_view digits = starts_with(t, "si") || starts_with(t, "ui") ? t.substr(2) : t.substr(t.empty() ? 0 : 1);
  if (digits.empty() || digits.size() > 4) return 0;
  for (char c : digits)
    if (!std::isdigit(static_cast<unsigned char>(c))) return 0;
  return std::stoi(std::string(digits));
}

Type parse_type_text(std::string_view text, const SourceLocation& where) {
  Type type;
  type.text = std::string(text);
  std::size_t lt = text.find('<');
  std::string_view head = text.substr(0, lt);
  std::string_view body;
  if (lt != std::string_view::npos) {
    if (text.back() != '>')
      throw Error(ExitCode::kDataError, "expected '>' to end type '" + std::string(text) + "'", where);
    body = text.substr(lt + 1, text.size() - lt - 2);
  }
  if (head == "!ttg.memdesc") {
    type.kind = Type::Kind::kMemDesc;
    auto params = split_params(body);
    parse_shape(params[0], type, "memdesc", where);
    if (params.size() < 2)
      throw Error(ExitCode::kDataError, "expected ',' and an encoding after memdesc shape in '" + std::string(text) + "'",
                  where);
    type.encoding = std::string(params[1]);
    for (std::size_t i = 2; i < params.size(); ++i) {
      if (params[i] == "mutable") type.mutable_memory = true;
      if (params[i].find("tensor_memory") != std::string_view::npos || params[i] == "#tmem_space")
        type.tensor_memory = true;
    }
  } else if (head == "tensor" || head == "vector" || head == "memref") {
    type.kind = Type::Kind::kTensor;
    auto params = split_params(body);
    parse_shape(params[0], type, std::string(head), where);
    if (params.size() > 1) type.encoding = std::string(params[1]);
  } else if (head == "!tt.ptr") {
    type.kind = Type::Kind::kPointer;
    type.element_type = std::string(split_params(body)[0]);
  } else if (head == "!tt.tensordesc") {
    type.kind = Type::Kind::kTensorDesc;
    if (starts_with(body, "tensor<")) {
      Type inner = parse_type_text(body, where);
      type.shape = inner.shape;
      type.element_type = inner.element_type;
      type.encoding = inner.encoding;
    }
  } else if (head == "tuple") {
    type.kind = Type::Kind::kTuple;
  } else if (starts_with(text, "(")) {
    type.kind = Type::Kind::kFunction;
  } else if (lt == std::string_view::npos && is_element_type(text)) {
    type.kind = Type::Kind::kScalar;
    type.element_type = std::string(text);
  }
  return type;
}

}  // namespace vtools::vplan
