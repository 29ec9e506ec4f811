// Forwarding header: the vtools.trace model lives in formats/trace/trace_model.hpp. Kept only for access/, which
// another branch is changing; remove it once access/ includes formats/trace/trace_model.hpp directly.
#pragma once

#include "formats/trace/trace_model.hpp"
