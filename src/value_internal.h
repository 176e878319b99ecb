// SPDX-License-Identifier: Apache-2.0
// Internal access to Value's representation, for the decoder and the encoder.
#pragma once

#include <cstddef>
#include <span>

#include "transit/value.h"

namespace transit {

/// Builders that take their parts by moving out of a caller-owned range, so the decoder can
/// build a container straight from its value stack with one allocation.
struct ValueAccess {
  /// An array, list or set from `items` (moved from). Sets drop duplicates.
  static Value make_sequence(Kind kind, std::span<Value> items);
  /// A map or link from interleaved keys and values (moved from); `flat.size()` is even.
  static Value make_map(Kind kind, std::span<Value> flat);
};

}  // namespace transit
