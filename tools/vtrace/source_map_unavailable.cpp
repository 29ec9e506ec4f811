// SourceMap for a build without elfutils' libdw (cmake/dependencies.cmake): every lookup says why it has no line.
#include "tools/vtrace/source_map.hpp"

namespace vtools::vtrace {

SourceMap SourceMap::read(std::string_view, std::string_view) {
  SourceMap map;
  map.unavailable_ = "vtrace was built without elfutils' libdw (Debian libdw-dev), which reads line tables";
  return map;
}

SourceFrame SourceMap::frame(const Row&, std::string_view) const { return {}; }

SourceLookup SourceMap::lookup(std::string_view, std::uint64_t) const { return {std::nullopt, unavailable_}; }

}  // namespace vtools::vtrace
