// The one error type of vtools: an exit category (DESIGN.md "Exit codes") plus an optional input location.
// Readers and analyses throw it; run_main() (cli.hpp) catches it once and prints `tool: error: file:line:col: what`.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace vtools {

/// Exit codes shared by every tool (sysexits-style, documented in vtools(7)).
enum class ExitCode : int {
  kOk = 0,
  kCheckFailed = 1,   ///< a check found problems (OOB access, regression, plan over budget)
  kUsage = 2,         ///< bad command line
  kDataError = 65,    ///< bad input data
  kNoInput = 66,      ///< input missing or unreadable
  kUnavailable = 69,  ///< a needed service is missing (no GPU, no CUPTI, no sanitizer)
  kInternal = 70,     ///< a bug in vtools
  kIoError = 74,      ///< output could not be written
  kInterrupted = 130, ///< SIGINT (143 for SIGTERM is 128 + signal)
};

/// Where in an input a problem is; line and column are 1-based, 0 when unknown.
struct SourceLocation {
  std::string file;
  int line = 0;
  int column = 0;

  /// "file:line:col", "file:line", "file" or "" depending on what is known.
  [[nodiscard]] std::string str() const;
};

class Error : public std::runtime_error {
 public:
  Error(ExitCode code, std::string message, SourceLocation where = {});

  [[nodiscard]] ExitCode code() const { return code_; }
  [[nodiscard]] const SourceLocation& where() const { return where_; }
  /// The message without location ("expected '>' after memdesc shape").
  [[nodiscard]] const std::string& message() const { return message_; }

 private:
  ExitCode code_;
  std::string message_;
  SourceLocation where_;
};

/// 1-based line and column of byte `offset` in `text` (column counts bytes, as compilers do).
SourceLocation location_of_offset(std::string_view text, std::size_t offset, std::string file);

/// `value` as messages quote a bad value: in single quotes, cut to `max_cols` terminal columns between characters
/// (cut_to_width: a UTF-8 sequence is never split, so the message stays valid UTF-8), control characters escaped
/// (printable) so that the value cannot drive the terminal.
std::string quoted_value(const std::string& value, std::size_t max_cols = 40);

/// The candidate closest to `name` by edit distance, or "" when none is close enough to suggest.
std::string closest_match(std::string_view name, const std::vector<std::string>& candidates);

/// "unknown config 'gpt_nan'" + "; did you mean 'gpt_nano'?" when a close candidate exists.
std::string with_suggestion(std::string message, std::string_view name, const std::vector<std::string>& candidates);

}  // namespace vtools
