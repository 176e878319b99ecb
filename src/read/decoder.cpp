// SPDX-License-Identifier: Apache-2.0
#include "read/decoder.h"
#include "read/decoder_tagged.h"

#include <charconv>
#include <cstring>
#include <type_traits>
#include <utility>

#include "codec/codec.h"
#include "model/edn.h"
#include "ground.h"
#include "read/read_handlers_access.h"
#include "transit/typed.h"
#include "model/value_internal.h"

namespace transit::detail {

// The value stack keeps up to this many items of room from one value to the next: what a
// large value needed is given back instead of being held for the rest of the stream.
constexpr std::size_t kKeptStackItems = std::size_t{1} << 16;

void Decoder::reset(bool cache_lazily) noexcept {
  caching_ = !cache_lazily;
  // A kept reader's first walk: let_go() left all the rest as empty_all() leaves it (about 65
  // instructions a small message's read, in drop_frames and the clears there). The rest out
  // of line, so that this returns with no register saved.
  if (std::exchange(emptied_, false) && !tape_) return;
  empty_all();
}

void Decoder::empty_all() noexcept {
  missed_ = false;
  drop_frames();
  if (stack_.capacity() > kKeptStackItems)
    stack_.release();
  else
    stack_.clear();
  closing_ = false;
  tag_first_ = 0;
  cache_.reset();
  tape_cache_.clear();
  result_ = Value();
  done_ = false;
  if (tape_) tape_->clear();
}

void Decoder::drop_frames() noexcept {
  for (Frame& f : frames_) {
    if (is_pair(f))
      drop_pair(f);
    else
      ValueAccess::abandon_sequence(f.slots, f.count);
  }
  frames_.clear();
  tape_frames_.clear();
}

bool Decoder::arrays_built_by_user() const noexcept {
  return handlers_ && handlers_->array_builder();
}

void Decoder::grow_stack(std::size_t more) {
  stack_.reserve(std::max(stack_.size() + more, 2 * stack_.capacity()));
}

const Value& Decoder::deliver_taped(Value v) {
  tape_value(std::move(v));
  // A taped scalar has no Value to refer to (nil, booleans and numbers live in their token);
  // no caller uses it: string() caches what it tapes itself.
  static const Value kTaped;
  return kTaped;
}

Value& Decoder::place() {
  if (frames_.empty()) {
    done_ = true;
    return result_;
  }
  Frame& f = frames_.back();
  switch (f.kind) {
    case FrameKind::array_pending:
      // Its first item is no "^ " and no tag: a plain array, built in place when its count
      // is known.
      f.kind = FrameKind::array;
      if (f.expected != 0 && f.expected <= max_items_) {
        if (arrays_built_by_user())
          reserve_stack(f.expected);
        else  // returned straight into the frame (see open_map_slots)
          new (&f.slots) ValueAccess::Slots(ValueAccess::reserve_sequence(f.expected));
      }
      break;
    case FrameKind::object_pending:
      // Its first key is no tag: a plain map, built in place when its count is known (and
      // its node not reserved already, see sized_map_begin).
      f.kind = FrameKind::object;
      if (f.expected != 0 && f.expected <= max_items_ && !f.slots.items)
        reserve_map_slots(f, f.expected);
      break;
    case FrameKind::tagged_array:
    case FrameKind::tagged_object:
      if (f.has_rep) [[unlikely]]
        second_rep(f);
      f.has_rep = true;
      // Its one rep, on the stack (its node was given up, see start_tagged), as below: the
      // checks there that can fail for one item are the limit's.
      if (max_items_ == 0) [[unlikely]]
        too_many_items();
      return stack_.emplace_back();
    default:
      break;
  }
  if (f.slots.items) return place_in_slots(f);
  const std::size_t n = stack_.size() - f.start;
  const bool keyed = f.kind == FrameKind::object || f.kind == FrameKind::map_array;
  if ((keyed ? n / 2 : n) >= max_items_) too_many_items();
  const bool may_move_to_slots = f.kind == FrameKind::array && !arrays_built_by_user();
  if (keyed || f.kind == FrameKind::array) {
    // Below this many items no check above can fail, nor the move to slots below happen: the
    // items up to it go straight onto the stack (deliver). A tagged frame's rep stays here.
    f.stack_until = stack_until_for(f.start, keyed, may_move_to_slots);
  }
  if (n == kSlotsFrom && may_move_to_slots) [[unlikely]] {
    f.stack_until = 0;  // the items go to the slots from now on
    // A large array whose count was not announced: its items move off the stack into slots
    // that grow in place, so that the stack and the node never both hold them.
    f.slots = ValueAccess::reserve_growable_sequence(std::min<std::size_t>(2 * n, max_items_));
    for (std::size_t i = 0; i < n; ++i) new (f.slots.items + i) Value(std::move(stack_[f.start + i]));
    f.count = static_cast<std::uint32_t>(n);
    f.expected = 0;  // whatever was announced, these slots grow
    stack_.forget_from(f.start);  // moved from: nothing to destroy
    return *new (f.slots.items + f.count++) Value();
  }
  return stack_.emplace_back();
}

Value& Decoder::place_in_slots(Frame& f) {
  if (f.kind != FrameKind::array) {
    // A map's slots (reserve_map_slots) hold keys and values: `count` counts both, and
    // the slots hold no more entries than the limit allows.
    if (f.count == f.slots.capacity)
      throw_error(Errc::syntax, "map has more entries than the " +
                                    std::to_string(f.slots.capacity / 2) + " it announced");
    f.slots_until = f.slots.capacity;
    return *new (f.slots.items + f.count++) Value();
  }
  if (f.count >= max_items_) too_many_items();
  if (f.count == f.slots.capacity) {
    if (f.expected != 0)
      throw_error(Errc::syntax, "array has more items than the " +
                                    std::to_string(f.slots.capacity) + " it announced");
    ValueAccess::grow_sequence(f.slots, std::min<std::size_t>(2 * f.count, max_items_));
  }
  // Up to the slots' end and the limit, the next items go straight in (deliver).
  f.slots_until = static_cast<std::uint32_t>(std::min<std::size_t>(f.slots.capacity, max_items_));
  return *new (f.slots.items + f.count++) Value();
}

void Decoder::reserve_map_slots_checked(Frame& f, std::size_t entries) {
  if (handlers_ && handlers_->map_builder()) {
    // A user's builder takes the entries from the stack.
    reserve_stack(2 * entries);
    return;
  }
  if (entries > UINT32_MAX / 2) return;  // the stack takes them (past any real limit)
  open_map_slots(f, entries);
}

void Decoder::handled_json_string(std::string_view raw) { json_string<false, true>(raw); }

void Decoder::place_cached(const Value& v) {
  // As checked_string(): into a plain container of a document built in one arena, an alias.
  const bool plain = in_plain_container();
  Value& slot = place();
  if (plain)
    slot = ValueAccess::alias(v);
  else
    slot = v;
}

void Decoder::too_many_items() const {
  throw_error(Errc::too_large,
              "collection has more than " + std::to_string(max_items_) + " items or entries");
}

namespace {

[[noreturn, gnu::cold, gnu::noinline]] void too_deep(std::size_t max_depth) {
  throw_error(Errc::too_deep, "nesting deeper than " + std::to_string(max_depth) + " levels");
}

}  // namespace

void Decoder::sized_map_begin_checked(std::size_t expected) {
  // begin()'s checks (depth, a second rep, growth), and the node reserved where it may be:
  // with user handlers too (a tag as the first key gives it up, as with none), but for a
  // user's map builder, which takes the entries from the stack (reserve_map_slots_checked).
  begin(FrameKind::object_pending, expected);
  if (expected == 0 || expected > max_items_) return;
  Frame& f = frames_.back();
  reserve_map_slots(f, expected);
  f.slots_until = f.slots.capacity;  // 0 if it reserved none
}

void Decoder::begin_checked(FrameKind kind, std::size_t expected) {
  // Both ways a tail call: with the checks below inlined, this saved six registers before it
  // knew which way to go, 24 instructions of every container of a typed read.
  if (taping()) [[unlikely]]
    return tape_begin(kind);
  begin_frame_checked(kind, expected);
}

void Decoder::begin_frame_checked(FrameKind kind, std::size_t expected) {
  // Inside a typed read, the taped containers are the outer ones (see TapeFrame).
  if (frames_.size() + tape_frames_.size() >= max_depth_) too_deep(max_depth_);
  // A second rep is refused where it starts, before it is built.
  if (!frames_.empty() && frames_.back().has_rep)
    throw_error(Errc::bad_tagged_value, "tagged value ~#" +
                                            std::string(frames_.back().tag.as_string()) +
                                            " has more than one rep");
  // Filled in place: a Frame built aside and copied in stalled on its own parts (see deliver).
  frames_.emplace_back(kind, static_cast<std::uint32_t>(stack_.size()), expected);
}

void Decoder::start_tagged(std::string_view tag) { start_tagged_in<false>(tag); }

void Decoder::tag_not_first(std::string_view tag) {
  throw_error(Errc::bad_tagged_value,
              "tag ~#" + std::string(tag) + " is not the first item of an array or object");
}

void Decoder::checked_base64(std::string_view raw) {
  if (tape_ || !caching_) [[unlikely]]
    return string(raw);
  // Only a map key is cacheable (no `~:`, `~$` or `~#`), as string() decides.
  const bool cacheable = at_key_position() && is_cacheable(raw, true);
  const Value& v = deliver(decode_bytes(raw.substr(2)));
  if (cacheable) cache_.add(v, false);
}

void Decoder::checked_tag(std::string_view raw, bool ascii) {
  const std::string_view tag = raw.substr(2);
  if (!is_valid_tag(tag)) [[unlikely]]
    return string(raw);  // which reports it
  // As string() caches it: a `~#` string of 4 bytes or more, counted in UTF-16 units.
  if (raw.size() >= 4 && (ascii || is_cacheable(raw, false))) cache_.add(Value(tag), true);
  start_tagged(tag);
}

Decoder::TagRule Decoder::tag_rule(std::string_view tag) noexcept {
  // As decode_tagged reads them: "'", cmap, link and the one-char scalar tags have rules of
  // their own; any other tag is kept as it is.
  if (tag == "set") return TagRule::set;
  if (tag == "list") return TagRule::list;
  if (tag.size() == 1)
    return tag[0] == 'm' ? TagRule::instant : tag[0] == 'u' ? TagRule::uuid : TagRule::general;
  if (tag == "cmap" || tag == "link") return TagRule::general;
  return TagRule::plain;
}

void Decoder::big_integer(std::string_view digits) { deliver(Value::big_integer(digits)); }

void Decoder::big_uinteger(std::uint64_t u) {
  char buf[24];
  const char* end = std::to_chars(buf, buf + sizeof buf, u).ptr;
  deliver(Value::big_integer({buf, static_cast<std::size_t>(end - buf)}));
}

void Decoder::string(std::string_view raw) {
  if (!raw.empty() && raw[0] == '^') {
    if (raw != "^ ") {
      if (!caching_) throw CacheNeeded{};
      if (tape_ && taping() && tape_cached(raw)) return;
      const ReadCache::Entry& entry = cache_.lookup(raw);
      if (entry.is_tag) return start_tagged(entry.value.as_string());
      // Into a plain container of a document built in one arena, the cached value goes as an
      // alias that holds no count: the container's node adopts it as it adopts every child, so
      // a count taken here would be given back there, two atomic operations per cache hit.
      // Anywhere else (the rep of a tag, a user's builder) it is an ordinary copy.
      if (!tape_ && !handlers_ && in_plain_container()) {
        deliver(ValueAccess::alias(entry.value));
        return;
      }
      deliver(entry.value);
      return;
    }
    if (at_array_start()) {
      if (!caching_) start_caching();
      if (taping()) return tape_map_array();
      Frame& f = frames_.back();
      if (f.slots.items) give_up_node(f);  // reserved as it began (sized_array_begin)
      open_map_array(f);
      return;
    }
  }
  if (!caching_) {
    if (raw.size() > 2 && raw[0] == '~' && raw[1] == '#' && at_array_start())
      start_caching();  // ["~#tag", rep]
    else
      missed_ |= raw.size() >= 4;  // no shorter string is cacheable (fewer UTF-16 units)
  }
  const bool cacheable = caching_ && is_cacheable(raw, at_key_position());
  if (raw.size() < 2 || raw[0] != '~') {
    if (tape_ && taping()) [[unlikely]] {
      tape_text(raw);
      if (cacheable) tape_cache_text(Value(raw));
      return;
    }
    const Value& v = deliver(Value(raw));
    if (cacheable) cache_add(v, false);
    return;
  }
  if (raw[1] == '#') {
    const std::string_view tag = raw.substr(2);
    if (!is_valid_tag(tag))
      throw_error(Errc::bad_tagged_value, "\"" + std::string(raw.substr(0, 64)) +
                                              "\" is not a valid tag: empty, or has whitespace "
                                              "or a control character");
    if (cacheable) cache_add(Value(tag), true);
    return json_start_tagged(tag);
  }
  if (tape_ && taping()) [[unlikely]] {
    Value v = decode_string(raw);
    if (cacheable) cache_add(v, false);
    tape_value(std::move(v));
    return;
  }
  const Value& v = deliver(decode_string(raw));
  if (cacheable) cache_add(v, false);
}

void Decoder::json_scalar_string(std::string_view raw) {
  // Only a map key is cacheable (no keyword, symbol or tag comes here).
  const bool cacheable = caching_ ? at_key_position() && is_cacheable(raw, true)
                                  : (missed_ |= raw.size() >= 4, false);
  // A `~m` instant, the commonest of these (7,500 a read of extensions), built here in
  // registers: through decode_scalar, its switch and a Value returned in memory cost it about
  // 20 instructions more. A bad one is decode_scalar's to report. JSON-Verbose's `~t` instant
  // the same way: decode_scalar's Value, returned in memory with its kind stored as a byte,
  // stalled the load that moved it into its slot (a profile of extensions JSON-Verbose put 11%
  // of this function's time there). One deliver() for both: a second one inline here made
  // GCC compile string() longer (typed twitter 0.4% more instructions).
  if (raw[1] == 'm' || raw[1] == 't')
    if (const std::optional<std::int64_t> ms =
            raw[1] == 'm' ? parse_int64(raw.substr(2)) : parse_instant(raw.substr(2))) {
      const Value& v = deliver(ValueAccess::instant(*ms));
      if (cacheable) cache_.add(v, false);
      return;
    }
  // The other scalar tags of a Transit writer's JSON built here as decode_scalar builds
  // them, each straight into deliver()'s argument, with no call of decode_scalar (its
  // indirect jump, frame and Value returned in memory): extensions reads 15,000 of them
  // (`~u`, `~n`, `~f`, `~r`, `~c`). Anything else, and a bad one (to be reported), is
  // decode_scalar's.
  const std::string_view rest = raw.substr(2);
  const Value& v = deliver([&]() -> Value {
    switch (raw[1]) {
      case 'u':
        if (const std::optional<Uuid> u = parse_uuid(rest)) return Value::uuid(*u);
        break;
      case 'n':
        if (is_integer_text(rest)) return ValueAccess::big_integer_of(rest);
        break;
      case 'f':
        if (is_decimal_text(rest)) return ValueAccess::big_decimal_of(rest);
        break;
      case 'r':
        return Value::uri(rest);
      case 'c':
        if (const std::optional<char32_t> c = decode_one_code_point(rest)) return Value::character(*c);
        break;
      default:
        break;
    }
    return decode_scalar(raw[1], rest);
  }());
  if (cacheable) cache_.add(v, false);
}

void Decoder::second_rep(const Frame& f) {
  throw_error(Errc::bad_tagged_value,
              "tagged value ~#" + std::string(f.tag.as_string()) + " has more than one rep");
}

void Decoder::no_rep(const Frame& f) {
  throw_error(Errc::bad_tagged_value,
              "tagged value ~#" + std::string(f.tag.as_string()) + " has no rep");
}

void Decoder::end_tagged(Frame& frame) { end_tagged_in<false>(frame); }

// The call itself, its record and replay are in user_calls.cpp, out of this unit: the code
// for them here (a try block and a record per call site, inlined or not) changed what GCC
// inlines elsewhere in it (Decoder::string() took the tape's TokenBuffer::emplace_back out of
// line: typed twitter from MessagePack 1.3% more instructions).
template <class F>
Value Decoder::user_call(std::string_view what, const void* who, F&& f) {
  using Fn = std::remove_reference_t<F>;
  return run_user_call(what, who, [](void* fn) -> Value { return (*static_cast<Fn*>(fn))(); }, &f);
}

Value Decoder::decode_string(std::string_view raw) {
  const char t = raw[1];
  if (t == '~' || t == '^' || t == '`') return Value(raw.substr(1));
  // No user code in a Record's rep (in_record_rep), asked only where some would run.
  if (handlers_ && handlers_->has_char(t) && !in_record_rep()) {
    const ReadHandlerEntry& h = *ReadHandlersAccess::find(*handlers_, raw.substr(1, 1));
    return user_call(h.scalar_name, &h.handler, [&] { return h.handler(Value(raw.substr(2))); });
  }
  Value v = decode_scalar(t, raw.substr(2));
  if (handlers_ && v.kind() == Kind::tagged)
    if (const DefaultReadHandler* d = handlers_->default_handler(); d && !in_record_rep())
      return user_call("default read handler", d, [&] { return (*d)(v.tag(), v.rep()); });
  return v;
}

Value Decoder::decode_tag(std::string_view tag, Value rep) {
  // The tagged value's frame is closed: in a Record's rep is in an outer one's.
  const bool user = handlers_ && !in_record_rep();
  if (user)
    if (const ReadHandlerEntry* h = ReadHandlersAccess::find(*handlers_, tag)) {
      if (h->record) return bind_record_rep(*h, rep);
      return user_call(h->tagged_name, &h->handler, [&] { return h->handler(rep); });
    }
  Value v = decode_tagged(tag, std::move(rep));
  if (user && v.kind() == Kind::tagged)
    if (const DefaultReadHandler* d = handlers_->default_handler())
      return user_call("default read handler", d, [&] { return (*d)(v.tag(), v.rep()); });
  return v;
}

Value Decoder::build_map(std::span<Value> flat, bool& moved_out) {
  if (const MapBuilder* b = handlers_ ? handlers_->map_builder() : nullptr; b && !kept_plain()) {
    moved_out = false;
    return user_call("map builder", b, [&] { return (*b)(flat); });
  }
  moved_out = true;
  return node_of_stack(flat, true);
}

Value Decoder::node_of_stack(std::span<Value> items, bool map) {
  if (items.empty()) return ValueAccess::empty(map ? Kind::map : Kind::array);
  // The node reserved as a counted container's is: the same size check (a map of more than
  // UINT32_MAX / 2 entries is refused here, before anything moves), and no slot to spare.
  ValueAccess::Slots slots =
      map ? ValueAccess::reserve_map(items.size() / 2) : ValueAccess::reserve_sequence(items.size());
  // Relocated bitwise (a Value may be: nothing points into one, see ValueStack), where a move
  // into the node stored each item twice, its copy and the null left behind. By memcpy: a
  // loop of two 8-byte loads and stores a Value cost keywords' read from a Source 0.7%
  // more (17 instructions a container for memcpy's call, 37 for the loop).
  std::memcpy(static_cast<void*>(slots.items), static_cast<const void*>(items.data()),
              items.size() * sizeof(Value));
  const auto size = static_cast<std::uint32_t>(items.size());
  try {
    return map ? ValueAccess::finish_map(Kind::map, slots, size)
               : ValueAccess::finish_sequence(Kind::array, slots, size);
  } catch (...) {
    // A node past Value::kMaxDepth: finish_map and finish_sequence leave nothing of it to the
    // caller (its items freed, or the arena's). The stack's copies hold nulls then, as items
    // moved from, so that the error's path counts them as it did.
    for (Value& item : items) new (&item) Value();
    throw;
  }
}

void Decoder::array_end() {
  // Both ways a tail call, as in begin_checked: with the body inlined, this saved the
  // registers of the untyped path before it knew which way to go, about 20 instructions of
  // every container of a typed read. (Inline in the header instead, GCC reordered the
  // MessagePack reader's loop around it: 1-2% more instructions untyped.)
  if (taping()) [[unlikely]]
    return tape_end(true);
  array_end_frame();
}

void Decoder::plain_array_end() {
  Frame& f = frames_.back();
  // A tagged value first, as array_end_frame takes it (extensions: sets, lists, points).
  if (f.kind == FrameKind::tagged_array) return json_end_tagged(f);
  if (f.slots.items) {
    if (f.kind == FrameKind::map_array && f.count % 2 == 0) {
      if (Value* slot = next_slot_of_parent()) {
        closing_ = true;
        new (slot) Value(ValueAccess::finish_map(Kind::map, f.slots, f.count));
        return adopted_by_parent();
      }
    } else if (f.kind == FrameKind::array || f.kind == FrameKind::array_pending) {
      if (Value* slot = next_slot_of_parent()) {
        closing_ = true;
        new (slot) Value(ValueAccess::finish_sequence(Kind::array, f.slots, f.count));
        return adopted_by_parent();
      }
    }
  }
  array_end_frame();
}

void Decoder::plain_map_end() {
  Frame& f = frames_.back();
  // A tagged value first, as map_end_frame takes it (JSON-Verbose's `{"~#set": [...]}`).
  if (f.kind == FrameKind::tagged_object) return json_end_tagged(f);
  // MessagePack's map end, whose common case is this one (its test for a tape is false).
  sized_map_end();
}

void Decoder::array_end_frame() {
  Frame& f = frames_.back();
  // A tagged value first, before this path's registers are saved: MessagePack's instants
  // and UUIDs (10,500 a read of extensions).
  if (f.kind == FrameKind::tagged_array) return end_tagged(f);
  if (f.slots.items) {
    closing_ = true;
    if (Value* slot = next_slot_of_parent()) {
      if (f.kind == FrameKind::map_array) {
        if (f.count % 2 != 0) [[unlikely]]
          odd_map_slots(f);
        new (slot) Value(ValueAccess::finish_map(Kind::map, f.slots, f.count));
      } else {
        new (slot) Value(ValueAccess::finish_sequence(Kind::array, f.slots, f.count));
      }
      return adopted_by_parent();
    }
    Value v = f.kind == FrameKind::map_array ? finish_map_slots(f)
                                             : ValueAccess::finish_sequence(Kind::array, f.slots, f.count);
    frames_.pop_back();
    closing_ = false;
    deliver(std::move(v));
    return;
  }
  const std::span<Value> items(stack_.data() + f.start, stack_.size() - f.start);
  Value v;
  // Whether the items were all taken over by the node, to be dropped with no destructor run.
  bool moved_out = true;
  closing_ = true;
  switch (f.kind) {
    case FrameKind::array_pending:
    case FrameKind::array:
      if (const ArrayBuilder* b = handlers_ ? handlers_->array_builder() : nullptr;
          b && !kept_plain()) {
        moved_out = false;  // a user's builder may keep items where they are
        v = user_call("array builder", b, [&] { return (*b)(items); });
      } else {
        v = node_of_stack(items, false);
      }
      break;
    case FrameKind::map_array:
      if (items.size() % 2 != 0)
        throw_error(Errc::odd_map, "\"^ \" map array has an odd number of keys and values (" +
                                       std::to_string(items.size()) + ")");
      v = build_map(items, moved_out);
      break;
    case FrameKind::tagged_array:
      closing_ = false;
      return end_tagged(f);
    default:
      throw_error(Errc::syntax, "array ends inside a map");
  }
  if (moved_out)
    stack_.forget_from(f.start);
  else
    stack_.truncate(f.start);
  frames_.pop_back();
  closing_ = false;
  deliver(std::move(v));
}

void Decoder::odd_map_slots(const Frame& f) const {
  if (f.kind == FrameKind::map_array)
    throw_error(Errc::odd_map, "\"^ \" map array has an odd number of keys and values (" +
                                   std::to_string(f.count) + ")");
  throw_error(Errc::odd_map, "map has a key without a value");
}

void Decoder::map_end() {
  // As array_end: the taping test first, then a tail call either way.
  if (taping()) [[unlikely]]
    return tape_end(false);
  map_end_frame();
}

void Decoder::map_end_frame() {
  Frame& f = frames_.back();
  if (f.kind == FrameKind::tagged_object) return end_tagged(f);
  if (f.kind != FrameKind::object && f.kind != FrameKind::object_pending)
    throw_error(Errc::syntax, "map ends inside an array");
  if (f.slots.items) {
    closing_ = true;
    if (Value* slot = next_slot_of_parent()) {
      if (f.count % 2 != 0) [[unlikely]]
        odd_map_slots(f);
      new (slot) Value(ValueAccess::finish_map(Kind::map, f.slots, f.count));
      return adopted_by_parent();
    }
    Value v = finish_map_slots(f);
    frames_.pop_back();
    closing_ = false;
    deliver(std::move(v));
    return;
  }
  const std::span<Value> flat(stack_.data() + f.start, stack_.size() - f.start);
  if (flat.size() % 2 != 0) throw_error(Errc::odd_map, "map has a key without a value");
  closing_ = true;
  bool moved_out;
  Value v = build_map(flat, moved_out);
  if (moved_out)
    stack_.forget_from(f.start);  // see array_end_frame
  else
    stack_.truncate(f.start);
  frames_.pop_back();
  closing_ = false;
  deliver(std::move(v));
}

// ---- typed reads: the tape ----------------------------------------------------------------

bool Decoder::tape_structural(std::string_view tag) const noexcept {
  return tag == "set" || tag == "list" || tag == "cmap" || tag == "'" ||
         (handlers_ && handlers_->find_typed(tag));
}

std::string_view Decoder::tape_tag_name(const TapeFrame& f) const noexcept {
  if (f.tag == TapeTag::quote) return "'";
  // Dropped by a bounded tape, whose read is then done again whole for the message.
  if (f.begin_token < tape_->tokens.base()) return "?";
  return tape_->text_of(tape_->tokens[f.begin_token]);
}

// The tape's cold paths, out of line, so that the helpers inlined into every event keep no
// frame for building a message or moving the tokens: they run once per token.
[[gnu::cold, gnu::noinline]] void Decoder::tape_error(const TapeFrame& f, TapeError what) const {
  switch (what) {
    case TapeError::second_rep:
      throw_error(Errc::bad_tagged_value, "tagged value ~#" + std::string(tape_tag_name(f)) +
                                              " has more than one rep");
    case TapeError::no_rep:
      throw_error(Errc::bad_tagged_value,
                  "tagged value ~#" + std::string(tape_tag_name(f)) + " has no rep");
    case TapeError::too_many_items:
      throw_error(Errc::too_large, "collection has more than " + std::to_string(max_items_) +
                                       " items or entries");
    case TapeError::map_ends_in_array:
      throw_error(Errc::syntax, "map ends inside an array");
    case TapeError::array_ends_in_map:
      throw_error(Errc::syntax, "array ends inside a map");
    case TapeError::odd_map_array:
      throw_error(Errc::odd_map, "\"^ \" map array has an odd number of keys and values (" +
                                     std::to_string(f.count) + ")");
    case TapeError::odd_map:
      throw_error(Errc::odd_map, "map has a key without a value");
  }
  throw_error(Errc::syntax, "malformed value");
}

[[gnu::always_inline]] inline Token& Decoder::new_token(std::size_t mark) {
  // A reader knows every token's mark or none (simdjson's walk): only known ones are kept.
  if (tape_marks_ && mark != Location::npos) tape_->marks.push_back(mark);
  return tape_->tokens.emplace_back();
}

void Decoder::cache_add(const Value& v, bool is_tag) {
  cache_.add(v, is_tag);
  if (tape_) [[unlikely]]
    note_tape_text(Token{});
}

void Decoder::tape_cache_text(Value v) {
  cache_.add(v, false);
  note_tape_text(tape_->tokens.back());
}

void Decoder::note_tape_text(const Token& where) {
  const std::size_t slot = cache_.last_added();
  // Slot 0 is taken first after a reset and again when the cache wraps: every slot above it
  // is then unassigned, and a code for one is the error cache_.lookup() reports.
  if (slot == 0) tape_cache_.clear();
  if (slot >= tape_cache_.size()) {
    if (where.op != Op::text) return;
    tape_cache_.resize(slot + 1);
  }
  tape_cache_[slot] = where;
}

// The tape's helpers are inlined into the events that call them: a typed read spends most of
// its decoding time here, one call per token.
[[gnu::always_inline]] inline void Decoder::tape_token(Op op, std::size_t mark,
                                                       std::string_view text) {
  // Filled in place, field by field (parenthesized aggregate init would be shorter, but clang
  // 14, which builds the fuzzers, does not have it).
  Token& t = new_token(mark);
  t.op = op;
  if (text.empty()) return;
  t.size = static_cast<std::uint32_t>(text.size());
  t.text = tape_->text.size();
  tape_->text.append(text);
}

[[gnu::always_inline]] inline void Decoder::tape_token(Value v) {
  tape_->put_value(new_token(mark_), std::move(v));
}

void Decoder::tape_decoded_tag(const Value& tag, Value rep) {
  // Counted in its taped parent when it began: uncounted while it is decoded, so that an
  // error decoding it names that item, not the next (tape_path counts the innermost frame's
  // items so). An error leaves it uncounted: the value is not read on.
  TapeFrame* const parent = tape_frames_.empty() ? nullptr : &tape_frames_.back();
  if (parent) --parent->count;
  Value v = decode_tag(tag.as_string(), std::move(rep));
  if (parent) ++parent->count;
  tape_token(std::move(v));
  if (tape_frames_.empty()) done_ = true;
}

void Decoder::tape_item_slow(TapeFrame& f) {
  if (f.kind == FrameKind::tagged_array || f.kind == FrameKind::tagged_object) {
    if (f.has_rep) tape_error(f, TapeError::second_rep);
    f.has_rep = true;
  }
  const bool keyed = f.kind == FrameKind::object || f.kind == FrameKind::map_array;
  if ((keyed ? f.count / 2 : f.count) >= max_items_) tape_error(f, TapeError::too_many_items);
  ++f.count;
}

std::size_t Decoder::tape_key(const TapeFrame& f) const noexcept {
  // Items are whole values on the tape, a token each or a container's tokens: the key is the
  // last item of an even position begun.
  if (f.begin_token < tape_->tokens.base()) return SIZE_MAX;  // see tape_tag_name
  const std::size_t key_item = (f.count - 1) & ~std::size_t{1};
  std::size_t i = f.begin_token + 1;
  for (std::size_t item = 0; item < key_item; ++item) {
    std::ptrdiff_t depth = 0;
    do depth += kOpDepth[static_cast<std::uint8_t>(tape_->tokens[i++].op)];
    while (depth != 0);
  }
  return i;
}

void Decoder::tape_begin(FrameKind kind) { tape_begin_inline(kind); }

void Decoder::tape_begin_slow(FrameKind kind, std::uint32_t items) {
  if (kind == FrameKind::map_array) {
    // As the array and its "^ " would be taped one after the other.
    tape_begin_slow(FrameKind::array_pending, items);
    return tape_map_array();
  }
  if (tape_frames_.size() >= max_depth_) [[unlikely]]
    too_deep(max_depth_);
  // A second rep is refused where it starts (tape_item), before it is taped.
  tape_item();
  const bool array = kind == FrameKind::array_pending;
  const FrameKind k = array ? FrameKind::array : FrameKind::object;
  tape_frames_.emplace_back(mark_, tape_limit_of(k),
                            static_cast<std::uint32_t>(tape_->tokens.size()), k);
  tape_token(array ? Op::array_begin : Op::map_begin, mark_);
  tape_->tokens.back().size = items;  // see tape_walk_array_begin
}

void Decoder::tape_empty_array() { tape_empty_array_inline(); }

void Decoder::untape_begin_token() noexcept {
  // A reader keeps every token's mark or none (see new_token).
  if (!tape_->marks.empty()) tape_->marks.pop_back();
  tape_->tokens.pop_back();
}

void Decoder::tape_start_tagged(std::string_view tag) {
  TapeFrame* f = tape_frames_.empty() ? nullptr : &tape_frames_.back();
  FrameKind kind;
  if (f && f->count == 0 && f->kind == FrameKind::array) {
    kind = FrameKind::tagged_array;
  } else if (f && f->count == 0 && f->kind == FrameKind::object) {
    kind = FrameKind::tagged_object;
  } else {
    throw_error(Errc::bad_tagged_value,
                "tag ~#" + std::string(tag) + " is not the first item of an array or object");
  }
  if (!tape_structural(tag)) {
    // Decoded here as a Value (a ~#u array, a ~#m integer, a link, a user tag read by a Value
    // read handler ...): its frame moves to frames_, and its items are built as an untyped
    // read builds them; end_tagged tapes the decoded value. (It was counted in its taped
    // parent when it began.)
    untape_begin_token();
    tape_frames_.pop_back();
    Frame& v = frames_.emplace_back(kind, static_cast<std::uint32_t>(stack_.size()), 0);
    v.tag = Value(tag);
    return;
  }
  untape_begin_token();
  f->kind = kind;
  f->limit = 0;  // one rep, checked by tape_item_slow
  if (tag == "'") {
    f->tag = TapeTag::quote;
    return;
  }
  f->tag = tag == "cmap" ? TapeTag::cmap : TapeTag::other;
  f->begin_token = static_cast<std::uint32_t>(tape_->tokens.size());
  tape_token(Op::tagged_begin, f->mark, tag);
}

void Decoder::tape_map_array() {
  TapeFrame& f = tape_frames_.back();
  f.kind = FrameKind::map_array;
  open_tape_limit(f);
  // Its array_begin, the last token (the array has no item yet), begins a map.
  tape_->tokens[f.begin_token].op = Op::map_begin;
}

bool Decoder::tape_cached(std::string_view code) { return tape_cached_inline(code); }

bool Decoder::tape_cached_token(const Token& where) {
  tape_item();
  new_token(mark_) = where;  // `where` is in tape_cache_, not on the tape
  if (tape_frames_.empty()) done_ = true;
  return true;
}

[[gnu::always_inline]] inline void Decoder::tape_value(Value v) {
  tape_item();
  tape_token(std::move(v));
  if (tape_frames_.empty()) done_ = true;
}

void Decoder::tape_scalar(Kind kind, std::int64_t payload) { tape_scalar_inline(kind, payload); }

void Decoder::tape_scalar_token(Kind kind, std::int64_t payload) {
  tape_item();
  Token& t = new_token(mark_);
  t.op = Op::value;
  t.kind = kind;
  if (kind == Kind::floating)
    t.floating = std::bit_cast<double>(payload);
  else
    t.integer = payload;
  if (tape_frames_.empty()) done_ = true;
}

void Decoder::tape_text_token(Token& t, std::string_view raw) {
  const auto size = static_cast<std::uint32_t>(raw.size());
  if (raw.empty()) return t.set(0, 0, Op::text, Kind::null, false);
  if (tape_input_stable_)
    return t.set(reinterpret_cast<std::uintptr_t>(raw.data()), size, Op::text, Kind::null, true);
  t.set(tape_->text.size(), size, Op::text, Kind::null, false);
  tape_->text.append(raw);
}

[[gnu::always_inline]] inline void Decoder::tape_text(std::string_view raw) {
  tape_item();
  if (tape_input_stable_ && !raw.empty()) {
    Token& t = new_token(mark_);
    t.op = Op::text;
    t.in_input = true;
    t.size = static_cast<std::uint32_t>(raw.size());
    t.text = reinterpret_cast<std::uintptr_t>(raw.data());
  } else {
    tape_token(Op::text, mark_, raw);
  }
  // Empty text has no bytes in the buffer; the token says so by its op alone.
  if (tape_frames_.empty()) done_ = true;
}

void Decoder::tape_end(bool array) { tape_end_inline(array); }

void Decoder::tape_end_slow(bool array) {
  TapeFrame& f = tape_frames_.back();
  switch (f.kind) {
    case FrameKind::array_pending:  // not on the tape (see tape_begin)
    case FrameKind::array:
      if (!array) tape_error(f, TapeError::map_ends_in_array);
      tape_token(Op::array_end, mark_);
      break;
    case FrameKind::map_array:
      if (!array) tape_error(f, TapeError::map_ends_in_array);
      if (f.count % 2 != 0) tape_error(f, TapeError::odd_map_array);
      tape_token(Op::map_end, mark_);
      break;
    case FrameKind::object_pending:  // not on the tape (see tape_begin)
    case FrameKind::object:
      if (array) tape_error(f, TapeError::array_ends_in_map);
      if (f.count % 2 != 0) tape_error(f, TapeError::odd_map);
      tape_token(Op::map_end, mark_);
      break;
    case FrameKind::tagged_array:
    case FrameKind::tagged_object:
      if ((f.kind == FrameKind::tagged_array) != array)
        tape_error(f, array ? TapeError::array_ends_in_map : TapeError::map_ends_in_array);
      if (!f.has_rep) tape_error(f, TapeError::no_rep);
      if (f.tag == TapeTag::cmap && f.rep_items % 2 != 0) {
        // Found where decode_tagged finds it for a Value: once the tagged value has ended.
        const std::uint32_t items = f.rep_items;
        tape_frames_.pop_back();
        throw_error(Errc::odd_map, "~#cmap array has an odd number of items (" +
                                       std::to_string(items) + ")");
      }
      if (f.tag != TapeTag::quote) tape_token(Op::tagged_end, mark_);
      break;
  }
  const bool plain_array = f.kind == FrameKind::array;
  const std::uint32_t items = f.count;
  if (f.kind == FrameKind::array || f.kind == FrameKind::map_array || f.kind == FrameKind::object)
    tape_->tokens[f.begin_token].size = items;  // see Token::size
  tape_frames_.pop_back();
  if (tape_frames_.empty()) {
    done_ = true;
  } else if (plain_array && tape_frames_.back().kind == FrameKind::tagged_array) {
    tape_frames_.back().rep_items = items;  // its rep's length, for a cmap
  }
}

// The taped frames' part of path(): the outer containers of a typed read (see TapeFrame).
void Decoder::tape_path(std::string& p) const {
  for (const TapeFrame& f : tape_frames_) {
    const bool innermost = &f == &tape_frames_.back() && frames_.empty();
    // A taped frame counts an item when it starts, so below the innermost frame the item
    // being read is already counted.
    const std::size_t at = f.count - (innermost || f.count == 0 ? 0 : 1);
    const bool in_key = at % 2 == 0 && !(innermost && closing_);
    switch (f.kind) {
      case FrameKind::array_pending:
      case FrameKind::array:
        p.append("[").append(std::to_string(at)).append("]");
        // A cmap's rep alternates keys and values.
        if (in_key && &f != &tape_frames_.front() && (&f - 1)->tag == TapeTag::cmap)
          p.append("<key>");
        break;
      case FrameKind::map_array:
      case FrameKind::object:
      case FrameKind::object_pending: {
        if (at % 2 == 0) {
          if (in_key) p.append("<key>");
          break;
        }
        p.append("[");
        if (const std::size_t key = tape_key(f); key == SIZE_MAX)
          p.append("...");
        else
          append_path_key(p, *tape_, tape_->tokens[key]);
        p.append("]");
        break;
      }
      case FrameKind::tagged_array:
      case FrameKind::tagged_object:
        p.append("<#").append(tape_tag_name(f)).append(">");
        break;
    }
  }
}

std::string Decoder::path() const {
  // Built with append only: g++ 12 warns (-Wrestrict, a false positive) on operator+ chains.
  std::string p = "$";
  tape_path(p);
  for (const Frame& f : frames_) {
    const bool innermost = &f == &frames_.back();
    // The position of the item being read in this frame. On the stack, the items before it
    // are complete and it is not there yet. An array built in its own slots counts its
    // complete items, as the stack does.
    const std::size_t at = f.slots.items ? f.count
                                         : (innermost ? stack_.size() : (&f + 1)->start) - f.start;
    // Where a key goes, an error is in that key (a composite one when frames follow), unless
    // the container itself is being built from its items.
    const bool in_key = at % 2 == 0 && !(innermost && closing_);
    switch (f.kind) {
      case FrameKind::array_pending:
      case FrameKind::array:
        p.append("[").append(std::to_string(at)).append("]");
        // A cmap's rep alternates keys and values.
        if (in_key && &f != &frames_.front() && (&f - 1)->tag.kind() != Kind::null &&
            (&f - 1)->tag.as_string() == "cmap")
          p.append("<key>");
        break;
      case FrameKind::map_array:
      case FrameKind::object:
      case FrameKind::object_pending:
        if (at % 2 == 0) {
          if (in_key) p.append("<key>");
          break;
        }
        // A key shows its first 64 bytes: a path through 400 maps keyed by a 16 MB string
        // stays a few KB (and Error cuts the whole path to 4 KB).
        p.append("[");
        if (const Value& key = f.slots.items ? f.slots.items[at - 1] : stack_[f.start + at - 1];
            key.kind() == Kind::string) {
          append_path_string(p, key.as_string());
        } else {
          append_edn(key, p, kPathKeyBytes);
        }
        p.append("]");
        break;
      case FrameKind::tagged_array:
      case FrameKind::tagged_object:
        p.append("<#").append(f.tag.as_string()).append(">");
        break;
    }
  }
  return p;
}

}  // namespace transit::detail
