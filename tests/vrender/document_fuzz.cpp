// libFuzzer target: bytes -> classify_input -> build_page -> SVG page, without Graphviz layout (DOT inputs stop at
// classification, plans stop at the DOT they would lay out) so the fuzzer exercises vrender's own readers.
#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>

#include "libcommon/error.hpp"
#include "tools/vrender/plan_page.hpp"
#include "tools/vrender/render.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    auto input = vtools::vrender::classify_input(std::string(reinterpret_cast<const char*>(data), size), "fuzz.json");
    if (input.kind == "dot") return 0;  // layout is libgvc's parser, not ours
    if (input.kind == "vtools.plan") {  // the plan page lays out its graph with libgvc: fuzz the reader and our DOT only
      if (input.plan_fault) std::rethrow_exception(input.plan_fault);
      (void)vtools::vrender::combined_graph_dot(input.plan);
      return 0;
    }
    auto page = vtools::vrender::build_page({input});
    (void)vtools::vrender::render_page(page, "svg", {});
  } catch (const vtools::Error&) {
  }
  return 0;
}
