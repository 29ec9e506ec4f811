// vrender CLI: binds flags to vrender::Options and calls run_render; see tools/vrender/README.md.
#include "libcommon/cli.hpp"
#include "libcommon/flag_ranges.hpp"
#include "tools/vrender/render.hpp"

int main(int argc, char** argv) {
  auto app = vtools::make_app(
      "vrender",
      "Render vtools documents (vtools.bench, vtools.compare, vtools.plan, vtools.trace, vtools.tracediff, vtools.plandiff) and DOT\n"
      "graphs as one self-contained HTML page, an SVG, or a PNG. The output format comes from --format or the -o\n"
      "extension.",
      "  vrender bench.json -o bench.html            bench page (system, five charts, roofline, table)\n"
      "  vrender run1.json run2.json -o trend.html   several bench runs: trend over time per config\n"
      "  vrender plan.json -o all.png                planner pictures stacked into one PNG\n"
      "  vrender plan.json -o plan.png --width 1600  PNG 1600 px wide\n"
      "  vtrace run -o t.json -- ./app && vrender t.json -o t.html\n"
      "  vbench compare a.json b.json | vrender - -o cmp.html\n"
      "  vtrace diff a.json b.json | vrender - -o diff.html   kernels' change: waterfall, intervals, verdicts\n"
      "  vrender combined.dot -o graph.svg           DOT laid out with Graphviz\n");
  vtools::vrender::Options opts;
  app->add_option("inputs", opts.inputs, "vtools documents or .dot files ('-' = stdin)")->required();
  vtools::add_output_options(app.get(), opts.out, {"html", "svg", "png"});
  app->add_option("--width", opts.width_px, "PNG width in px, 1 to 32767 (height keeps the aspect ratio)")
      ->check(vtools::integer_range(1, 32767));
  app->add_option("--scale", opts.scale, "PNG scale factor, 0.01 to 100 (default 1; ignored with --width)")
      ->check(vtools::number_range(0.01, 100));
  app->add_option("--title", opts.title, "page title");
  return vtools::run_main(*app, argc, argv, [&] { return vtools::vrender::run_render(opts); });
}
