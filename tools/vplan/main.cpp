// vplan CLI: parses flags and calls the library; see tools/vplan/README.md.
#include "libcommon/cli.hpp"

namespace vtools::vplan {
[[noreturn]] void not_built(const char* subcommand);
}

int main(int argc, char** argv) {
  auto app = vtools::make_app("vplan", "memory-planner graphs (SMEM, TMEM, channels) from Triton TTGIR", "  vplan analyze kernel.ttgir -o plan.json\n");
  app->add_subcommand("analyze", "(not built yet)");
  app->add_subcommand("dot", "(not built yet)");
  app->add_subcommand("table", "(not built yet)");
  app->add_subcommand("check", "(not built yet)");
  app->add_subcommand("extract", "(not built yet)");
  app->add_subcommand("import", "(not built yet)");
  return vtools::run_main(*app, argc, argv, [&] {
    for (auto* sub : app->get_subcommands()) vtools::vplan::not_built(sub->get_name().c_str());
    std::cout << app->help();
    return 2;
  });
}
