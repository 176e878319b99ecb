// SPDX-License-Identifier: Apache-2.0
// JSON's tagged values of one rep, taken in the decoder's pair slot (see
// Decoder::json_start_tagged). In a unit of its own, as msgpack_pairs.cpp: see
// decoder_tagged.h.
#include "read/decoder_tagged.h"

namespace transit::detail {

void Decoder::json_start_tagged(std::string_view tag) {
  start_tagged_in<true>(tag);
}
void Decoder::json_start_cached_tag(const Value& tag) {
  start_tagged_in<true>(tag);
}
void Decoder::json_end_tagged(Frame& frame) {
  end_tagged_in<true>(frame);
}

}  // namespace transit::detail
