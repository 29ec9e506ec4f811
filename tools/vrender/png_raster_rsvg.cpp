// rasterize_png with librsvg 2.52+ (rsvg_handle_render_document) onto a cairo image surface.
#include <cairo.h>
#include <librsvg/rsvg.h>

#include <cmath>
#include <memory>

#include "libcommon/error.hpp"
#include "tools/vrender/png_raster.hpp"

namespace vtools::vrender {

namespace {

cairo_status_t append_bytes(void* closure, const unsigned char* data, unsigned int length) {
  static_cast<std::string*>(closure)->append(reinterpret_cast<const char*>(data), length);
  return CAIRO_STATUS_SUCCESS;
}

}  // namespace

bool png_available() { return true; }

std::string rasterize_png(std::string_view svg, const RasterOptions& options) {
  GError* error = nullptr;
  RsvgHandle* raw = rsvg_handle_new_from_data(reinterpret_cast<const guint8*>(svg.data()), svg.size(), &error);
  if (!raw) {
    std::string msg = error ? error->message : "unknown error";
    if (error) g_error_free(error);
    throw Error(ExitCode::kInternal, "librsvg refused the SVG: " + msg);
  }
  std::unique_ptr<RsvgHandle, void (*)(gpointer)> handle(raw, g_object_unref);
  gdouble w = 0, h = 0;
  if (!rsvg_handle_get_intrinsic_size_in_pixels(raw, &w, &h) || w <= 0 || h <= 0)
    throw Error(ExitCode::kInternal, "the SVG has no size in pixels");
  double scale = options.width_px > 0 ? options.width_px / w : options.scale;
  int pw = options.width_px > 0 ? options.width_px : static_cast<int>(std::lround(w * scale));
  int ph = static_cast<int>(std::lround(h * scale));
  if (pw < 1 || ph < 1 || pw > 32767 || ph > 32767) {
    const bool too_small = pw < 1 || ph < 1;
    throw Error(ExitCode::kUsage, "PNG size " + std::to_string(pw) + "x" + std::to_string(ph) +
                                      " px is outside 1..32767; pick a " + (too_small ? "larger " : "smaller ") +
                                      (options.width_px > 0 ? "--width" : "--scale"));
  }

  std::unique_ptr<cairo_surface_t, void (*)(cairo_surface_t*)> surface(
      cairo_image_surface_create(CAIRO_FORMAT_ARGB32, pw, ph), cairo_surface_destroy);
  std::unique_ptr<cairo_t, void (*)(cairo_t*)> cr(cairo_create(surface.get()), cairo_destroy);
  cairo_set_source_rgb(cr.get(), 1, 1, 1);  // opaque white under the page, as in the light scheme
  cairo_paint(cr.get());
  RsvgRectangle viewport{0, 0, static_cast<double>(pw), static_cast<double>(ph)};
  if (!rsvg_handle_render_document(raw, cr.get(), &viewport, &error)) {
    std::string msg = error ? error->message : "unknown error";
    if (error) g_error_free(error);
    throw Error(ExitCode::kInternal, "librsvg could not render the SVG: " + msg);
  }
  std::string png;
  if (cairo_surface_write_to_png_stream(surface.get(), append_bytes, &png) != CAIRO_STATUS_SUCCESS)
    throw Error(ExitCode::kInternal, "cairo could not encode the PNG");
  return png;
}

}  // namespace vtools::vrender
