#include "cli.hpp"

#include <unistd.h>

#include <cstdio>
#include <iostream>

#include "document.hpp"
#include "error.hpp"
#include "output_file.hpp"
#include "usage_errors.hpp"

namespace vtools {

namespace {
std::string g_tool = "vtools";
bool g_quiet = false;
}  // namespace

std::string_view tool_name() { return g_tool; }
void set_quiet(bool q) { g_quiet = q; }
bool quiet() { return g_quiet; }

void print_error(const std::exception& e) { std::cerr << g_tool << ": error: " << e.what() << "\n"; }

void print_warning(std::string_view message) {
  if (!g_quiet) std::cerr << g_tool << ": warning: " << message << "\n";
}

void print_note(std::string_view message) {
  if (!g_quiet) std::cerr << g_tool << ": note: " << message << "\n";
}

std::unique_ptr<CLI::App> make_app(std::string_view tool, std::string description, std::string examples) {
  auto app = std::make_unique<CLI::App>(std::move(description), std::string(tool));
  app->set_version_flag("--version", std::string(tool) + " " + tool_version());
  if (!examples.empty()) app->footer("Examples:\n" + examples);
  app->require_subcommand(0, 1);
  // `vbench -q run ...` as well as `vbench run -q ...`.
  app->add_flag_callback("-q,--quiet", [] { set_quiet(true); }, "no progress or notes on stderr");
  return app;
}

void add_output_options(CLI::App* cmd, OutputOptions& opts, const std::vector<std::string>& formats,
                        const std::vector<std::string>& also_accepted) {
  cmd->add_option("-o,--output", opts.output, "output file ('-' = stdout; written atomically)");
  if (cmd->get_parent() != nullptr) {
    cmd->add_flag_callback("-q,--quiet", [&opts] { opts.quiet = true; set_quiet(true); },
                           "no progress or notes on stderr");
  }
  // A -q before the subcommand (make_app's) counts for it too; the root's callbacks run before the subcommand's.
  cmd->final_callback([&opts] { opts.quiet = opts.quiet || quiet(); });
  if (!formats.empty()) {
    std::string list;
    for (const auto& f : formats) list += (list.empty() ? "" : "|") + f;
    cmd->add_option("--format", opts.format, "output format: " + list)->check(one_of(formats, also_accepted));
  }
}

std::string resolve_format(const OutputOptions& opts, const std::string& fallback, bool table_default_on_tty) {
  if (!opts.format.empty()) return opts.format;
  if (table_default_on_tty && opts.output == "-" && ::isatty(STDOUT_FILENO)) return "table";
  return fallback;
}

/// app.exit(e) for --help/--version, then 74 when stdout could not take the text (`--help > /dev/full` said 0).
static int exit_after_printing(CLI::App& app, const CLI::Error& e) {
  const int code = app.exit(e);
  std::cout.flush();
  if (!std::cout || std::fflush(stdout) != 0 || std::ferror(stdout)) {
    std::cerr << g_tool << ": error: cannot write to standard output\n";
    return static_cast<int>(ExitCode::kIoError);
  }
  return code;
}

int run_main(CLI::App& app, int argc, char** argv, const std::function<int()>& dispatch) {
  g_tool = app.get_name();
  install_interrupt_cleanup();
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return exit_after_printing(app, e);
  } catch (const CLI::CallForAllHelp& e) {
    return exit_after_printing(app, e);
  } catch (const CLI::CallForVersion& e) {
    return exit_after_printing(app, e);
  } catch (const CLI::ParseError& e) {
    std::cerr << g_tool << ": error: " << usage_error_message(app, e) << "\n";
    return static_cast<int>(ExitCode::kUsage);
  }
  try {
    return dispatch();
  } catch (const Error& e) {
    print_error(e);
    return static_cast<int>(e.code());
  } catch (const CLI::ParseError& e) {
    std::cerr << g_tool << ": error: " << usage_error_message(app, e) << "\n";
    return static_cast<int>(ExitCode::kUsage);
  } catch (const std::bad_alloc&) {
    std::cerr << g_tool << ": error: out of memory\n";
    return static_cast<int>(ExitCode::kInternal);
  } catch (const std::exception& e) {
    std::cerr << g_tool << ": error: internal error: " << e.what() << "\n";
    return static_cast<int>(ExitCode::kInternal);
  }
}

}  // namespace vtools
