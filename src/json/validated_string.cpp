// SPDX-License-Identifier: Apache-2.0
// Decoder::validated_string, in a unit of its own so that checked_string's inline body moves
// no code of the units that read JSON with counts (see decoder.h).
#include "decoder.h"

namespace transit::detail {

void Decoder::validated_string(std::string_view raw) { checked_string(raw, false); }

}  // namespace transit::detail
