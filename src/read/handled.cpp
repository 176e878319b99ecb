// SPDX-License-Identifier: Apache-2.0
// What a read with user handlers reads by the paths of a read with none: here, out of
// decoder.cpp, whose string() GCC compiled otherwise with this beside it.
#include <cstdint>
#include <string_view>

#include "read/decoder.h"
#include "read/read_handlers_access.h"

namespace transit::detail {

void Decoder::handled_checked_string(std::string_view raw) {
  // Tested here, not in checked_string's inline test: a third way there cost typed reads
  // from MessagePack (whose tape takes the first) 0.02% more instructions.
  if (!handlers_ || !caching_) return string(raw);
  // MessagePack writes every instant and UUID as `["~#m", ms]` and `["~#u", [hi, lo]]`:
  // checked_tag, not json_string's string().
  if (raw.size() >= 2 && raw[0] == '~' && raw[1] == '#') return checked_tag(raw, false);
  json_string<false, true>(raw);
}

Decoder::TagRule Decoder::handled_tag_rule(std::string_view tag) const noexcept {
  const TagRule rule = tag_rule(tag);
  // A handler for a tag of one char (`m`, `u`: the others' rule is general) is told by
  // has_char, with no hash of the tag: ReadHandlers::add marks its char, and a Record's tag
  // is never one char.
  if (rule == TagRule::general || (rule == TagRule::plain && handlers_->default_handler()) ||
      (tag.size() == 1 ? handlers_->has_char(tag[0]) : ReadHandlersAccess::find(*handlers_, tag) != nullptr))
    return TagRule::general;
  return rule;
}

void Decoder::learn_pair_rule(char tag) noexcept {
  const bool m = tag == 'm';
  const unsigned held = m ? kPairHeldM : kPairHeldU;
  const bool handled =
      handled_tag_rule(m ? std::string_view("m") : std::string_view("u")) == TagRule::general;
  pair_gate_ = static_cast<std::uint8_t>((pair_gate_ & ~held) | (m ? kPairAskedM : kPairAskedU) |
                                         (handled ? held : 0u));
}

}  // namespace transit::detail
