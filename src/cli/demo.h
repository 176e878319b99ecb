// SPDX-License-Identifier: Apache-2.0
// `transit demo`: the built-in sample, written and read back in every encoding.
#pragma once

#include <iosfwd>

#include "transit/value.h"

namespace transit::cli {

/// The built-in sample: keywords, symbols, dates, UUIDs, URIs, big numbers, sets, lists, a map
/// with composite keys, a tagged value, and repeated map keys that get cached.
Value demo_value();

/// Writes the sample in each encoding, reads it back, prints texts and sizes, and says
/// "round trip: ok". Returns the process exit status.
int run_demo(std::ostream& out);

}  // namespace transit::cli
