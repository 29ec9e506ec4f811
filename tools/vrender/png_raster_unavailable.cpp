// rasterize_png for builds without librsvg (VTOOLS_HAVE_RENDER off): PNG output exits 69.
#include "libcommon/error.hpp"
#include "tools/vrender/png_raster.hpp"

namespace vtools::vrender {

bool png_available() { return false; }

std::string rasterize_png(std::string_view, const RasterOptions&) {
  throw Error(ExitCode::kUnavailable,
              "PNG output needs librsvg, which this vrender was built without; write --format svg or html instead");
}

}  // namespace vtools::vrender
