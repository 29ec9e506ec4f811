// SVG -> PNG with librsvg + cairo (built only with VTOOLS_HAVE_RENDER; png_raster_unavailable.cpp otherwise).
#pragma once

#include <string>
#include <string_view>

namespace vtools::vrender {

/// Output size: `width_px` > 0 fixes the width (height keeps the aspect ratio); else the SVG size times `scale`.
struct RasterOptions {
  int width_px = 0;
  double scale = 1.0;
};

/// True when this build can write PNG.
bool png_available();

/// PNG bytes of `svg` painted over an opaque background. Throws Error kUnavailable without librsvg, kInternal when
/// librsvg refuses the SVG (vrender wrote it, so that is our bug), kUsage for a size over 32767 px.
std::string rasterize_png(std::string_view svg, const RasterOptions& options);

}  // namespace vtools::vrender
