// The one document path of vtools: the common envelope {format, version, tool{name, version}, created}, JSON parse
// errors with line:column, format/version checks on read, atomic pretty-printed writes. Tools fill the body.
// Documents of 10^5+ records (vtrace traces) are streamed through json_writer.hpp instead of built as a tree.
#pragma once

#include <nlohmann/json.hpp>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "libcommon/json_scanner.hpp"

namespace vtools {

using Json = nlohmann::json;
using OrderedJson = nlohmann::ordered_json;

/// A document format and the newest version this build reads and writes.
struct DocumentFormat {
  std::string_view name;
  int version;
};

// Keep each version in sync with the "version" const of schemas/<name>.schema.json.
inline constexpr DocumentFormat kTraceFormat{"vtools.trace", 3};
inline constexpr DocumentFormat kPlanFormat{"vtools.plan", 1};
inline constexpr DocumentFormat kBenchFormat{"vtools.bench", 1};
inline constexpr DocumentFormat kCompareFormat{"vtools.compare", 1};
inline constexpr DocumentFormat kTraceDiffFormat{"vtools.tracediff", 1};  ///< written by vtrace diff
inline constexpr DocumentFormat kPlanDiffFormat{"vtools.plandiff", 1};    ///< written by vplan diff
inline constexpr DocumentFormat kAllFormats[] = {kTraceFormat,     kPlanFormat,     kBenchFormat, kCompareFormat,
                                                 kTraceDiffFormat, kPlanDiffFormat};

/// Deepest array/object nesting accepted; deeper input is refused before parsing (no stack exhaustion).
inline constexpr int kMaxJsonDepth = 256;

/// "0.1.0" (+ " (git describe)" when the build knew it).
std::string tool_version();

/// Current UTC time as ISO 8601 with seconds ("2026-11-22T14:55:38Z").
std::string iso8601_now();

/// A new document with the envelope filled; keys keep insertion order so output reads top-down.
OrderedJson new_document(const DocumentFormat& format, std::string_view tool_name);

/// Parses JSON text; on error throws Error(kDataError) at "name:line:col" with nlohmann's reason.
OrderedJson parse_json(std::string_view text, std::string_view name);

/// Parses and checks the envelope: `format` must be one of `accepted` and `version` an integer no newer than ours.
OrderedJson parse_document(std::string_view text, std::string_view name, std::vector<DocumentFormat> accepted);

/// Receives one element of a top-level array: the array's key, the element's index, the element.
using ElementReader = std::function<void(std::string_view key, std::size_t index, OrderedJson&& element)>;

/// Told the key of each top-level array as it opens, before its elements (a key given twice: the last one counts).
using ArrayStart = std::function<void(std::string_view key)>;

/// parse_document without the whole tree: the elements of every top-level array go to `element` one at a time as
/// they are parsed (each array stays in the result, empty), so a reader holds one record at a time, not a 10^6-record
/// tree (~5x the text). Every other member is in the result. Errors are parse_document's; the envelope is checked
/// before the first element where it comes first (as vtools writes it: "format" and "version" both before it), else
/// at the end. The text is read by json_scanner.hpp (nlohmann's parser only words the error of invalid JSON);
/// `passed` hears how far it got; `array_start`, where given, hears each top-level array open. An element that
/// `element` leaves in place is written over by the next one (fewer allocations per record).
OrderedJson parse_document_streamed(std::string_view text, std::string_view name,
                                    std::vector<DocumentFormat> accepted, const ElementReader& element,
                                    const ReadProgress& passed = {}, const ArrayStart& array_start = {});

/// parse_document_streamed over a text read in passes, never held whole (a compressed input's: InputText::open).
/// `open` is called for each pass: one for the records; where that fails, one more for the depth check (so that
/// "nested deeper" comes before any other error), and two more where the text is not valid JSON (for the error's
/// words and its line:column).
OrderedJson parse_document_streamed(const OpenText& open, std::string_view name, std::vector<DocumentFormat> accepted,
                                    const ElementReader& element, const ArrayStart& array_start = {});

/// read_input(path) + parse_document.
OrderedJson read_document(const std::string& path, std::vector<DocumentFormat> accepted);

/// The "format" of a document whose first member is "format" with a plain string value (as vtools writes every
/// document), read without parsing the rest; "" for anything else (the caller then parses the whole to know).
std::string leading_document_format(std::string_view text);

/// The `format` string of a parsed document ("" when absent).
std::string document_format(const OrderedJson& doc);

/// Serialises with 2-space indent and a trailing newline; invalid UTF-8 in strings is replaced, never thrown on.
std::string dump_json(const OrderedJson& doc);

/// dump_json + write_output (atomic; "-" = stdout).
void write_document(const OrderedJson& doc, const std::string& path);

/// v as a T where v is a JSON integer that T holds; nullopt for anything else (a float, an integer out of T's range,
/// a non-number). Readers take integers from documents through this, never nlohmann's get<T>(), which casts: 1e80
/// to int is undefined behaviour, 2^32 to a uint32 wraps.
template <class T>
std::optional<T> json_integer(const OrderedJson& v) {
  if (v.is_number_unsigned()) {
    const auto u = v.get<std::uint64_t>();
    if (std::in_range<T>(u)) return static_cast<T>(u);
  } else if (v.is_number_integer()) {
    const auto x = v.get<std::int64_t>();
    if (std::in_range<T>(x)) return static_cast<T>(x);
  }
  return std::nullopt;
}

}  // namespace vtools
