// The CLI conventions every tool shares (DESIGN.md "CLI conventions"): app setup with --version and examples in
// --help, the common output flags (-o, -q, --format), and run_main(), the one place that turns errors into
// `tool: error: ...` lines and exit codes.
#pragma once

#include <CLI/CLI.hpp>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace vtools {

/// Flags most subcommands share. `format` is "" until the user picks one (see resolve_format).
struct OutputOptions {
  std::string output = "-";
  bool quiet = false;
  std::string format;
};

/// A CLI11 app named `tool` with --version, -q/--quiet (also before the subcommand) and an "Examples:" footer.
std::unique_ptr<CLI::App> make_app(std::string_view tool, std::string description, std::string examples);

/// Adds -o/--output, -q/--quiet and (when `formats` is not empty) --format with those choices; `also_accepted`
/// are older spellings --format still takes but --help does not offer.
void add_output_options(CLI::App* cmd, OutputOptions& opts, const std::vector<std::string>& formats,
                        const std::vector<std::string>& also_accepted = {});

/// The format to write: the one asked for; else "table" when `table_default_on_tty` and the output is a TTY
/// stdout; else `fallback`.
std::string resolve_format(const OutputOptions& opts, const std::string& fallback, bool table_default_on_tty);

/// Parses argv into `app`, then calls `dispatch`; returns the process exit code. Prints
/// `tool: error: <location>: <message>` for vtools::Error, usage errors (exit 2, worded by usage_errors.hpp) and
/// anything unexpected (exit 70).
/// Also installs the interrupt cleanup that removes half-written outputs on SIGINT/SIGTERM.
int run_main(CLI::App& app, int argc, char** argv, const std::function<int()>& dispatch);

/// `tool: error: <location>: <message>` on stderr, even when quiet(): run_main's line, for commands that report a
/// failed input and go on with the others (their exit code says some failed).
void print_error(const std::exception& e);
/// `tool: warning: message` on stderr unless quiet() (set from -q by add_output_options' callback users).
void print_warning(std::string_view message);
/// `tool: note: message` on stderr unless quiet().
void print_note(std::string_view message);
void set_quiet(bool quiet);
bool quiet();

/// The tool name given to run_main ("vtools" before that).
std::string_view tool_name();

}  // namespace vtools
