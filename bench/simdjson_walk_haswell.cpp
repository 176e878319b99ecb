// SPDX-License-Identifier: Apache-2.0
// The On-Demand walk of transit-simdjson-walk compiled for simdjson's haswell kernel: this file
// alone is built with -mavx2 -mbmi -mpclmul -mlzcnt (bench/CMakeLists.txt), so simdjson 3.0.1,
// which compiles On-Demand only for its builtin implementation, makes that `haswell` here
// (`simdjson::ondemand` is `simdjson::haswell::ondemand`). simdjson_walk.cpp calls it only after
// haswell_supported().
#include <simdjson.h>

#include "simdjson_walk.h"

static_assert(std::string_view(SIMDJSON_STRINGIFY(SIMDJSON_BUILTIN_IMPLEMENTATION)) == "haswell");

namespace walk {

bool ondemand_haswell(char* buffer, std::size_t length, std::size_t capacity, Sink& d) {
  static simdjson::haswell::ondemand::parser parser;
  return walk_document(parser, buffer, length, capacity, d);
}

}  // namespace walk
