// SPDX-License-Identifier: Apache-2.0
// `transit demo`: the built-in sample, written and read back in every encoding.
#pragma once

#include <iosfwd>

#include "transit/value.h"

namespace transit::cli {

/// The built-in sample: keywords, symbols, dates, UUIDs, URIs, big numbers, sets, lists, a map
/// with composite keys, a tagged value, and repeated map keys that get cached.
Value demo_value();

/// Writes the sample in each encoding, reads it back, prints texts and sizes; then writes a
/// C++ object graph (a small class hierarchy of parcels) directly through a handler registry
/// and reads it back through read handlers; says "round trip: ok". With `profile`, also prints
/// the handler-lookup hot-spot table for the object graph, then the same as JSON. Returns the process exit status.
int run_demo(std::ostream& out, bool profile = false);

}  // namespace transit::cli
