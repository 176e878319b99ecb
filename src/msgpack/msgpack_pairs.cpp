// SPDX-License-Identifier: Apache-2.0
// The decoder's fast path for MessagePack's instants and UUIDs, `["~#m", ms]` and
// `["~#u", [hi, lo]]` (see Decoder::start_pair). In a unit of its own: defined in decoder.cpp,
// these functions moved GCC's inlining there (Value's move assignment and the tape's
// emplace_back taken out of line: JSON extensions 0.7% and typed twitter MessagePack 0.3% more
// instructions).
#include "decoder.h"
#include "value_internal.h"

namespace transit::detail {

bool Decoder::start_pair(char tag) {
  if (frames_.empty()) return false;
  Frame& f = frames_.back();
  // An array of 2 at its start, its count believed (expected): its one item after the tag
  // is its last, so the pair ends before anything else uses pair_rep_.
  if (f.kind != FrameKind::array_pending || f.count != 0 || f.expected != 2) return false;
  // As start_tagged: the node reserved as it began goes unused.
  if (f.slots.items) give_up_node(f);
  f.kind = FrameKind::tagged_array;
  new (&f.tag) Value(ValueAccess::inline_text(Kind::string, tag == 'm' ? "m" : "u"));
  f.slots.items = &pair_rep_;
  f.slots.capacity = 1;
  f.slots_until = 1;
  return true;
}

void Decoder::drop_pair(Frame& f) noexcept {
  pair_rep_.~Value();  // a pair's slots are no node
  new (&pair_rep_) Value();
  f.slots = {};
}

void Decoder::end_pair(Frame& f) {
  // end_tagged's rules for TagRule::instant and TagRule::uuid, read in pair_rep_ where it is;
  // any other rep, or none, by end_tagged itself. One deliver() for both (it is inlined whole).
  const bool instant = ValueAccess::text(f.tag)[0] == 'm';
  const std::span<const Value> halves = ValueAccess::items(pair_rep_);  // of an array
  const bool built = f.count != 0 && (instant ? pair_rep_.kind() == Kind::integer
                                              : pair_rep_.kind() == Kind::array &&
                                                    halves.size() == 2 &&
                                                    halves[0].kind() == Kind::integer &&
                                                    halves[1].kind() == Kind::integer);
  if (!built) [[unlikely]]
    return end_pair_otherwise(f);
  Value v = instant ? ValueAccess::instant(ValueAccess::int_bits(pair_rep_))
                    : Value::uuid({static_cast<std::uint64_t>(ValueAccess::int_bits(halves[0])),
                                   static_cast<std::uint64_t>(ValueAccess::int_bits(halves[1]))});
  pair_rep_.~Value();  // an integer, or the UUID's array
  new (&pair_rep_) Value();
  frames_.pop_back();
  deliver(std::move(v));
}

void Decoder::end_pair_otherwise(Frame& f) {
  // The frame made the tagged frame start_tagged makes, its rep (if any) on the stack, for
  // end_tagged's rules, errors and decode_tag. A cache code's value came as an alias
  // (cached_item's inline path): a counted copy, as place_cached gives a tagged value's rep.
  f.has_rep = f.count != 0;
  f.slots = {};
  f.slots_until = 0;
  f.count = 0;
  if (f.has_rep) {
    stack_.emplace_back(Value(std::as_const(pair_rep_)));
    pair_rep_.~Value();
    new (&pair_rep_) Value();
  }
  end_tagged(f);
}

void Decoder::sized_array_end_frame() {
  Frame& f = frames_.back();
  if (is_pair(f)) return end_pair(f);
  array_end_frame();
}

}  // namespace transit::detail
