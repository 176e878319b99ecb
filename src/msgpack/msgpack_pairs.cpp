// SPDX-License-Identifier: Apache-2.0
// The decoder's fast path for MessagePack's instants and UUIDs, `["~#m", ms]` and
// `["~#u", [hi, lo]]` (see Decoder::start_pair). In a unit of its own: defined in decoder.cpp,
// these functions moved GCC's inlining there (Value's move assignment and the tape's
// emplace_back taken out of line: JSON extensions 0.7% and typed twitter MessagePack 0.3% more
// instructions).
#include "read/decoder.h"
#include "model/value_internal.h"

namespace transit::detail {

bool Decoder::start_pair(char tag) {
  // As checked_string() sends a tag to checked_tag: an untyped read, caching (`~#m` and
  // `~#u` are valid tags, too short to be cached), with no handler that may act on the tag.
  if (tape_ || !caching_ || frames_.empty()) return false;
  Frame& f = frames_.back();
  // An array of 2 at its start, its count believed (expected): its one item after the tag
  // is its last, so the pair ends before anything else uses pair_rep_.
  if (f.kind != FrameKind::array_pending || f.count != 0 || f.expected != 2) return false;
  if (handlers_ && !pair_unhandled(tag)) [[unlikely]]
    return false;
  // As start_tagged: the node reserved as it began goes unused.
  if (f.slots.items) give_up_node(f);
  f.kind = FrameKind::tagged_array;
  new (&f.tag) Value(ValueAccess::inline_text(Kind::string, tag == 'm' ? "m" : "u"));
  f.slots.items = &pair_rep_;
  f.slots.capacity = 1;
  // An instant's rep goes into pair_rep_ as deliver() places an item. A UUID's does not (its
  // parent's next slot is none): its [hi, lo] ends in sized_array_end_frame, which builds
  // the UUID there from the array's slots; any other rep goes on the stack by place(), as
  // for any tagged value.
  f.slots_until = tag == 'm' ? 1 : 0;
  met_pair_ = true;
  return true;
}

void Decoder::drop_pair(Frame& f) noexcept {
  pair_rep_.~Value();  // a pair's slots are no node
  new (&pair_rep_) Value();
  f.slots = {};
}

void Decoder::end_pair(Frame& f) {
  // end_tagged's rules for TagRule::instant and TagRule::uuid; any other rep, or none, by
  // end_tagged itself. An instant's rep, an integer, is read in pair_rep_ where it is; a
  // UUID is there already (see sized_array_end_frame).
  if (f.count != 0) [[likely]] {
    if (pair_rep_.kind() == Kind::integer && ValueAccess::text(f.tag)[0] == 'm') {
      const std::int64_t ms = ValueAccess::int_bits(pair_rep_);
      new (&pair_rep_) Value();  // an integer: nothing to release
      frames_.pop_back();
      deliver(ValueAccess::instant(ms));
      return;
    }
    if (pair_rep_.kind() == Kind::uuid && ValueAccess::text(f.tag)[0] == 'u') {
      Value uuid(std::move(pair_rep_));
      frames_.pop_back();
      deliver(std::move(uuid));
      return;
    }
  }
  end_pair_otherwise(f);
}

void Decoder::end_pair_otherwise(Frame& f) {
  // The frame made the tagged frame start_tagged makes, its rep (if any) on the stack, for
  // end_tagged's rules, errors and decode_tag. A rep in pair_rep_ is an instant's (a UUID's
  // is there only once built): a cache code's value came as an alias (cached_code's inline
  // path), so a counted copy, as place_cached gives a tagged value's rep. A rep that place()
  // put on the stack set has_rep.
  if (f.count != 0) {
    f.has_rep = true;
    stack_.emplace_back(Value(std::as_const(pair_rep_)));
    pair_rep_.~Value();
    new (&pair_rep_) Value();
  }
  f.slots = {};
  f.slots_until = 0;
  f.count = 0;
  end_tagged(f);
}

void Decoder::sized_array_end_frame() {
  Frame& f = frames_.back();
  if (is_pair(f)) return end_pair(f);
  // A UUID pair's [hi, lo]: only a UUID's pair sends its rep's end here (an instant's takes
  // its rep in pair_rep_, by next_slot_of_parent). Tested here, with the UUID built out of
  // line, so that every other array's end stays two tests and a jump.
  if (frames_.size() >= 2 && is_pair(frames_.end()[-2])) return end_uuid_halves(f);
  array_end_frame();
}

void Decoder::end_uuid_halves(Frame& f) {
  // Two integers in the slots reserved as it began (or at its first item): the UUID, with no
  // array finished and read back. Anything else is the general path's.
  if (!f.slots.items || f.count != 2 ||
      (f.kind != FrameKind::array && f.kind != FrameKind::array_pending) ||
      f.slots.items[0].kind() != Kind::integer || f.slots.items[1].kind() != Kind::integer)
    return array_end_frame();
  const Uuid u{static_cast<std::uint64_t>(ValueAccess::int_bits(f.slots.items[0])),
               static_cast<std::uint64_t>(ValueAccess::int_bits(f.slots.items[1]))};
  // Two integers, nothing to destroy: a node in the arena goes with its blocks.
  if (f.slots.arena)
    f.slots = {};
  else
    ValueAccess::abandon_sequence(f.slots, f.count);
  frames_.pop_back();
  new (&pair_rep_) Value(Value::uuid(u));
  ++frames_.back().count;
}

}  // namespace transit::detail
