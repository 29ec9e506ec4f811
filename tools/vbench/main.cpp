// vbench CLI: parses flags and calls the library; see tools/vbench/README.md.
#include "libcommon/cli.hpp"

namespace vtools::vbench {
[[noreturn]] void not_built(const char* subcommand);
}

int main(int argc, char** argv) {
  auto app = vtools::make_app("vbench", "benchmark GPT forward passes on CPU and CUDA", "  vbench run --config gpt_nano -o bench.json\n");
  app->add_subcommand("run", "(not built yet)");
  app->add_subcommand("list", "(not built yet)");
  app->add_subcommand("init", "(not built yet)");
  app->add_subcommand("compare", "(not built yet)");
  app->add_subcommand("merge", "(not built yet)");
  app->add_subcommand("verify", "(not built yet)");
  return vtools::run_main(*app, argc, argv, [&] {
    for (auto* sub : app->get_subcommands()) vtools::vbench::not_built(sub->get_name().c_str());
    std::cout << app->help();
    return 2;
  });
}
