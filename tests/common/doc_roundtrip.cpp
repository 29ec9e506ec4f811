// Test-only CLI over libcommon: reads any vtools document and writes it back through the one document path.
// Lets CLI tests check exit codes, messages and atomic output of libcommon without depending on a tool.
#include "libcommon/cli.hpp"
#include "libcommon/document.hpp"

int main(int argc, char** argv) {
  auto app = vtools::make_app("doc_roundtrip", "read a vtools document and write it back", "");
  std::string input = "-";
  vtools::OutputOptions out;
  app->add_option("input", input, "document ('-' = stdin)");
  vtools::add_output_options(app.get(), out, {});
  return vtools::run_main(*app, argc, argv, [&] {
    std::vector<vtools::DocumentFormat> all(std::begin(vtools::kAllFormats), std::end(vtools::kAllFormats));
    vtools::write_document(vtools::read_document(input, all), out.output);
    return 0;
  });
}
