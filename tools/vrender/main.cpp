// vrender CLI: parses flags and calls the library; see tools/vrender/README.md.
#include "libcommon/cli.hpp"

namespace vtools::vrender {
[[noreturn]] void not_built(const char* subcommand);
}

int main(int argc, char** argv) {
  auto app = vtools::make_app("vrender", "render vtools documents and DOT as HTML, SVG or PNG", "  vrender bench.json -o bench.html\n");
  return vtools::run_main(*app, argc, argv, [&] {
    for (auto* sub : app->get_subcommands()) vtools::vrender::not_built(sub->get_name().c_str());
    std::cout << app->help();
    return 2;
  });
}
