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

// The rule a read with user handlers keeps for a tag whose rule is `rule` (tag_rule):
// `general` (decode_tag, which asks the handlers) when a handler may take it: a handler for
// the tag (`has_handler`, asked last), or the default one for a tag kept tagged (`plain`).
// handled_tag_rule and learn_pair_rule both ask it: one rule, each with its own look-up.
template <class HasHandler>
Decoder::TagRule Decoder::handled_rule(TagRule rule, const ReadHandlers& handlers,
                                       HasHandler has_handler) noexcept {
  if (rule == TagRule::general || (rule == TagRule::plain && handlers.default_handler()) ||
      has_handler())
    return TagRule::general;
  return rule;
}

Decoder::TagRule Decoder::handled_tag_rule(std::string_view tag) const noexcept {
  // The rule first: with handlers_ read before the call, GCC kept it in a register saved
  // and restored (3 instructions a tag more).
  const TagRule rule = tag_rule(tag);
  return handled_rule(rule, *handlers_,
                      [&] { return ReadHandlersAccess::find(*handlers_, tag) != nullptr; });
}

void Decoder::learn_pair_rule(char tag) noexcept {
  // `m` and `u` are one char: their handler is told by has_char, with no hash of the tag
  // (ReadHandlers::add marks its char; a Record's tag is never one char).
  const bool m = tag == 'm';
  const unsigned held = m ? kPairHeldM : kPairHeldU;
  const bool handled = handled_rule(m ? TagRule::instant : TagRule::uuid, *handlers_, [&] {
                         return handlers_->has_char(tag);
                       }) == TagRule::general;
  pair_gate_ = static_cast<std::uint8_t>((pair_gate_ & ~held) | (m ? kPairAskedM : kPairAskedU) |
                                         (handled ? held : 0u));
}

}  // namespace transit::detail
