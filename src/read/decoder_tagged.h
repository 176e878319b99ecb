// SPDX-License-Identifier: Apache-2.0
// The bodies of Decoder::start_tagged and end_tagged, templates on whether a JSON tagged
// value may take its rep in the pair slot (Decoder::json_start_tagged): instantiated without
// it in decoder.cpp and with it in json/json_pairs.cpp. Both in decoder.cpp, the second copy
// changed GCC's inlining there (the tape's TokenBuffer::emplace_back taken out of line:
// typed twitter's MessagePack read 1.2% more instructions).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <type_traits>
#include <utility>

#include "read/decoder.h"
#include "model/value_internal.h"

namespace transit::detail {

template <bool kJson, class Tag>
[[gnu::always_inline]] inline void Decoder::start_tagged_in(const Tag& tag) {
  constexpr bool kValue = std::is_same_v<Tag, Value>;
  // The tag's text, taken only where it is needed (a cached tag's Value holds it).
  const auto text = [&tag]() -> std::string_view {
    if constexpr (kValue)
      return ValueAccess::text(tag);
    else
      return tag;
  };
  if (taping()) return tape_start_tagged(text());
  if (frames_.empty()) [[unlikely]]
    tag_not_first(text());
  Frame& f = frames_.back();
  // A map or array whose node was reserved as it began (sized_map_begin, sized_array_begin)
  // and holds no item yet is a tagged value: the node goes unused (never for JSON, whose
  // pending frames have none).
  if ((f.kind != FrameKind::array_pending && f.kind != FrameKind::object_pending) || f.count != 0)
      [[unlikely]]
    tag_not_first(text());
  // A frame of RapidJSON's events stays pending with its items on the stack, where deliver
  // puts them from the first (uncounted_begin set stack_until, which no other pending frame
  // has): at its start only while it holds none; a tagged value's rep goes through place().
  // (Its tags come here from checked_tag, and from string() by json_start_tagged.) Asked only
  // of such a frame: of every frame, the test cost extensions' JSON read 0.17% more
  // instructions and a MessagePack read's tags 6.5 instructions each.
  if (f.stack_until != 0) [[unlikely]] {
    if (stack_.size() != f.start) tag_not_first(text());
    f.stack_until = 0;
  }
  if (f.slots.items) give_up_node(f);
  f.kind = f.kind == FrameKind::array_pending ? FrameKind::tagged_array : FrameKind::tagged_object;
  // The bits Value(tag) has, with no call for a short tag (as every ground tag is). A pending
  // frame's tag is null: constructed over it, with no old value to release.
  if constexpr (kValue)
    new (&f.tag) Value(tag);
  else
    new (&f.tag)
        Value(tag.size() <= ValueAccess::kInlineText ? ValueAccess::inline_text(Kind::string, tag)
                                                     : Value(tag));
  // A JSON pair (see json_start_tagged): one rep, by the exact count, into pair_rep_ (null,
  // since an inner pair ends, and empties it, before its outer pair's rep is placed in it).
  if (kJson && !tape_ && !handlers_ && max_items_ != 0 &&
      f.expected == (f.kind == FrameKind::tagged_array ? 2u : 1u)) {
    f.slots.items = &pair_rep_;
    f.slots.capacity = 1;
    f.slots_until = 1;
  }
}

template <bool kJson>
[[gnu::always_inline]] inline void Decoder::end_tagged_in(Frame& frame) {
  // A JSON pair's rep is in pair_rep_ (json_start_tagged), any other on the stack (place()).
  const bool pair = kJson && is_pair(frame);
  if (pair ? frame.count == 0 || frame.has_rep : !frame.has_rep) [[unlikely]] {
    if (frame.has_rep) second_rep(frame);
    no_rep(frame);
  }
  Value rep = pair ? take_pair_rep() : std::move(stack_.back());
  if (!pair) stack_.pop_back();
  Value tag = std::move(frame.tag);
  frames_.pop_back();
  // With user handlers, a tag none of them may act on keeps its rule (handled_tag_rule). A
  // plain JSON walk (kJson: json_end_tagged's callers) has none: its code as it was (with
  // handled_tag_rule's call there, json_end_tagged ran 1.8% more instructions).
  const TagRule rule = !handlers_ ? tag_rule(ValueAccess::text(tag))
                       : kJson    ? TagRule::general
                                  : handled_tag_rule(ValueAccess::text(tag));
  // A plain JSON walk (kJson) writes no tape.
  if ((!kJson || !handlers_) && rule != TagRule::general && !(!kJson && tape_ && taping())) {
    // decode_tagged's result, built with no string compared again and, for a set or list
    // whose rep nothing else holds, no new node: the rep's own node becomes it.
    if (rule == TagRule::plain) {
      deliver(ValueAccess::tagged(std::move(tag), std::move(rep)));
      return;
    }
    // MessagePack's instants (`["~#m", ms]`, 7,500 a read of extensions) and UUIDs
    // (`["~#u", [hi, lo]]`), as decode_tagged builds them, with no tag compared again;
    // any other rep goes to decode_tag, which reports it.
    if (rule == TagRule::instant) {
      if (rep.kind() == Kind::integer) {
        deliver(ValueAccess::instant(ValueAccess::int_bits(rep)));
        return;
      }
    } else if (rule == TagRule::uuid) {
      if (rep.kind() == Kind::array) {
        const std::span<const Value> halves = ValueAccess::items(rep);
        if (halves.size() == 2 && halves[0].kind() == Kind::integer &&
            halves[1].kind() == Kind::integer) {
          deliver(Value::uuid({static_cast<std::uint64_t>(ValueAccess::int_bits(halves[0])),
                               static_cast<std::uint64_t>(ValueAccess::int_bits(halves[1]))}));
          return;
        }
      }
    } else if (ValueAccess::sequence_in_place(rule == TagRule::set ? Kind::set : Kind::list, rep)) {
      deliver(std::move(rep));
      return;
    }
  }
  if (!kJson && tape_ && taping()) return tape_decoded_tag(tag, std::move(rep));
  deliver(decode_tag(tag.as_string(), std::move(rep)));
}

}  // namespace transit::detail
