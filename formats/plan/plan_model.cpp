#include "formats/plan/plan_model.hpp"

namespace vtools::vplan {

std::string_view key_kind_name(KeyKind kind) {
  switch (kind) {
    case KeyKind::kLoad: return "load";
    case KeyKind::kStore: return "store";
    case KeyKind::kMma: return "mma";
    case KeyKind::kMath: return "math";
    case KeyKind::kNone: break;
  }
  return "";
}

KeyKind key_kind_from_name(std::string_view name) {
  if (name == "load") return KeyKind::kLoad;
  if (name == "store") return KeyKind::kStore;
  if (name == "mma") return KeyKind::kMma;
  if (name == "math") return KeyKind::kMath;
  return KeyKind::kNone;
}

std::string_view space_name(MemorySpace space) { return space == MemorySpace::kTmem ? "tmem" : "smem"; }

}  // namespace vtools::vplan
