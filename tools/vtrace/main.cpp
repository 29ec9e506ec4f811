// vtrace CLI: parses flags and calls the library; see tools/vtrace/README.md.
#include "libcommon/cli.hpp"

namespace vtools::vtrace {
[[noreturn]] void not_built(const char* subcommand);
}

int main(int argc, char** argv) {
  auto app = vtools::make_app("vtrace", "trace the CUDA kernels of any program to JSON", "  vtrace run -o t.json -- python my_kernel.py\n");
  app->add_subcommand("run", "(not built yet)");
  app->add_subcommand("summary", "(not built yet)");
  app->add_subcommand("check", "(not built yet)");
  app->add_subcommand("export", "(not built yet)");
  return vtools::run_main(*app, argc, argv, [&] {
    for (auto* sub : app->get_subcommands()) vtools::vtrace::not_built(sub->get_name().c_str());
    std::cout << app->help();
    return 2;
  });
}
