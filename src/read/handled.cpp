// SPDX-License-Identifier: Apache-2.0
// What a read with user handlers reads by the paths of a read with none: here, out of
// decoder.cpp, whose string() GCC compiled otherwise with this beside it.
#include <string_view>

#include "read/decoder.h"

namespace transit::detail {

void Decoder::handled_checked_string(std::string_view raw, bool ascii) {
  // Tested here, not in checked_string's inline test: a third way there cost typed reads
  // from MessagePack (whose tape takes the first) 0.02% more instructions.
  if (!handlers_ || !caching_) return string(raw);
  checked_string<true>(raw, ascii);
}

}  // namespace transit::detail
