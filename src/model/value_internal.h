// SPDX-License-Identifier: Apache-2.0
// Internal access to Value's representation, for the decoder and the encoder.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <utility>
#include <span>
#include <string_view>

#include "transit/value.h"

namespace transit {

namespace detail {
// The first word of a Value as its Small or Wide head lays it out: kind, flags, then `size`
// in the Small's third byte (`small`) or the Wide's 32-bit size. A Value written as two whole
// words can be read back by the two 8-byte loads of Value::words_of straight from the store
// buffer; one written field by field cannot (see words_of).
constexpr std::uint64_t head_word(Kind kind, std::uint8_t flags, std::uint32_t size,
                                  bool small) noexcept {
  const auto k = static_cast<std::uint64_t>(kind), f = std::uint64_t{flags};
  if constexpr (std::endian::native == std::endian::little)
    return k | f << 8 | std::uint64_t{size} << (small ? 16 : 32);
  else
    return k << 56 | f << 48 | (small ? std::uint64_t{size} << 40 : std::uint64_t{size});
}

// The 1 to 8 bytes at `p`, little-endian, in one word, read by at most two loads that may
// overlap (as memcpy does for short copies) rather than byte by byte.
inline std::uint64_t load_short(const char* p, std::size_t n) noexcept {
  if (n >= 4) {
    std::uint32_t lo, hi;
    std::memcpy(&lo, p, 4);
    std::memcpy(&hi, p + n - 4, 4);
    return std::uint64_t{lo} | std::uint64_t{hi} << (8 * (n - 4));
  }
  const auto byte = [p](std::size_t i) { return std::uint64_t{static_cast<unsigned char>(p[i])}; };
  return byte(0) | byte(n / 2) << (8 * (n / 2)) | byte(n - 1) << (8 * (n - 1));
}

// Value::tagged's check (tagged_check.cpp): throws Error(invalid_argument) when `tag` is one of
// the spec's, or no tag a reader reads, and `rep` is not one a reader reads under it. Apart
// from value.cpp: there it changed how GCC compiled the map builder's duplicate search (the
// extensions read with a handler ran 0.25% more instructions).
void check_made_tagged(std::string_view tag, const Value& rep);
}  // namespace detail

/// Builders that take their parts by moving out of a caller-owned range, so the decoder can
/// build a container straight from its value stack with one allocation.
struct ValueAccess {
  /// Makes `child`, about to be stored in a node of `arena`, hold no count when it refers to a
  /// node of that same arena. False when it refers to a node elsewhere (it keeps its count).
  static bool borrow(Value& child, detail::ArenaHeader* arena) noexcept;
  /// A copy of `v` that holds no count when `v` is inline or lives in the arena of the
  /// ArenaScope open on this thread, and so costs a copy of 16 bytes; otherwise an ordinary
  /// copy. Valid while that arena lives: for holders that never outlive the scope (the read
  /// cache of the document being read). Copies made from it count as usual.
  [[gnu::always_inline]] static Value alias(const Value& v) noexcept {
    if (v.small_.flags & Value::kHeap) return alias_node(v);
    // Inline, so never borrowed: its two words as they are. The copy constructor stores them
    // and then rewrites the flags byte, and the 8-byte load of the word that byte is in, when
    // the alias is moved into its slot, cannot be forwarded from the two stores: a JSON read's
    // profile put 8% of its time on that load (cache hits into plain containers).
    return from_words(Value::words_of(v.raw_));
  }
  /// A Value of two words stored whole (see alias).
  [[gnu::always_inline]] static Value from_words(Value::Raw raw) noexcept {
    Value out;
    out.raw_ = raw;
    return out;
  }
  /// `slot = alias(v)`, at the cost of a 16-byte store when neither holds a count.
  static void assign_alias(Value& slot, const Value& v) noexcept {
    if ((slot.small_.flags & (Value::kHeap | Value::kBorrowed)) != Value::kHeap &&
        !(v.small_.flags & Value::kHeap)) {
      slot.raw_ = Value::words_of(v.raw_);
      return;
    }
    slot = alias(v);
  }
  /// Whether `v` is an alias that holds no count on its node (see alias).
  static bool borrowed(const Value& v) noexcept { return v.small_.flags & Value::kBorrowed; }
  /// Sets `out` to a copy of `v` that refers to no arena node and returns true, or returns
  /// false (leaving `out` alone) when `v` refers to none and can itself be shared. Run with no
  /// ArenaScope open, so what it builds goes to the heap.
  static bool detach_into(const Value& v, Value& out);
  /// The heap node of `v`, or nullptr when `v` is inline: the identity of a long string, the
  /// same for every copy of it (and for every cache reference a reader resolved to it).
  static const void* node_of(const Value& v) noexcept {
    return (v.small_.flags & Value::kHeap) ? v.wide_.u.node : nullptr;
  }
  /// Two words that are equal for two Values exactly when both are the same inline value
  /// (every inline value starts from zero bytes, so equal ones have equal bits) or both refer
  /// to the same node (as kind, size and address). Whether the Value holds a count on its node
  /// is left out: a copy of a value in an arena counts where the original does not.
  static std::pair<std::uint64_t, std::uint64_t> identity(const Value& v) noexcept {
    Value::Raw raw = v.raw_;
    if (v.small_.flags & Value::kBorrowed) {
      Value::Small head = v.small_;
      head.flags &= static_cast<std::uint8_t>(~Value::kBorrowed);
      std::memcpy(&raw.a, &head, sizeof raw.a);
    }
    return {raw.a, raw.b};
  }
  /// a == b, with what the two handles alone decide settled inline, without the call: the
  /// same inline bytes or the same node (equal), different kinds, two inline values that
  /// differ and are not doubles (inline values are canonical), or two texts of different
  /// lengths (unequal). For the duplicate-key check of maps and sets, which compares every new
  /// key with the ones before it: short keywords and cache hits are decided here.
  static bool same_key(const Value& a, const Value& b) noexcept {
    if (a.small_.kind != b.small_.kind) return false;
    const std::uint8_t heap_a = a.small_.flags & Value::kHeap;
    if (heap_a != (b.small_.flags & Value::kHeap)) return a == b;
    if (!heap_a) {
      if (a.raw_.a == b.raw_.a && a.raw_.b == b.raw_.b) return true;
      return a.small_.kind == Kind::floating && a == b;  // 0.0 and -0.0
    }
    if (a.wide_.u.node == b.wide_.u.node) return true;
    if (a.wide_.size != b.wide_.size && a.small_.kind >= Kind::big_integer &&
        a.small_.kind <= Kind::symbol && a.small_.kind != Kind::floating)
      return false;  // text (or bytes) of different lengths
    return a == b;
  }

  /// One of 64 bits, the same for equal keys: from an inline value's bytes (inline values are
  /// canonical, and never equal a value on the heap), from a text node's kind, size and
  /// first and last 8 bytes, and for any other key from its kind alone (a double, whose 0.0
  /// and -0.0 are equal; a composite). For the scan of a small map's or set's keys: a key
  /// whose bit no earlier key has is new, with no comparison.
  static std::uint64_t filter_bit(const Value& v) noexcept {
    return std::uint64_t{1} << (filter_mix(v) >> 58);
  }
  /// The 64 bits whose top 6 are filter_bit's: the same for equal keys, and for two inline
  /// keys equal only when their bytes mix alike. For the check of a mid-sized map's keys
  /// (distinct_keys), whose table is placed by more of them.
  static std::uint64_t filter_mix(const Value& v) noexcept {
    constexpr std::uint64_t kMix = 0x9E3779B97F4A7C15ULL;
    const Kind kind = v.small_.kind;
    std::uint64_t x = static_cast<std::uint64_t>(kind);
    if (!(v.small_.flags & Value::kHeap)) {
      if (kind != Kind::floating) x = v.raw_.a ^ (v.raw_.b * kMix);
    } else if (is_text(kind) && v.wide_.size >= 8) {
      const char* p = reinterpret_cast<const char*>(v.wide_.u.node) + kPayloadOffset;
      std::uint64_t first, last;
      std::memcpy(&first, p, 8);
      std::memcpy(&last, p + v.wide_.size - 8, 8);
      x ^= (first * kMix) ^ last ^ (std::uint64_t{v.wide_.size} << 40);
    }
    return x * kMix;
  }
  /// Whether a value of `kind` is text, held inline or in a text node.
  static constexpr bool is_text(Kind kind) noexcept {
    return kind == Kind::big_integer || kind == Kind::big_decimal || kind == Kind::string ||
           kind == Kind::bytes || kind == Kind::keyword || kind == Kind::symbol || kind == Kind::uri;
  }

  // ---- unchecked reads, for the encoder's walk ----------------------------------------------
  // The writer visits every value once and already knows its kind: as_string(), items() and
  // entries() are out-of-line calls that check the kind again, a tenth of a keyword-heavy
  // write. These read the representation directly. A text, sequence or map node keeps its
  // payload right after its header (the Node, then its 4-byte size and 4 bytes of hash or
  // padding; ValueAccessUnchecked.* check that against the checked accessors for every kind),
  // and a Value on the heap repeats the payload's size in its own `size`.
  static constexpr std::size_t kPayloadOffset = sizeof(detail::Node) + 8;

  /// The text of a string, keyword, symbol, URI, big integer, big decimal or bytes value.
  static std::string_view text(const Value& v) noexcept {
    if (!(v.small_.flags & Value::kHeap)) return {v.small_.data, v.small_.size};
    return {reinterpret_cast<const char*>(v.wide_.u.node) + kPayloadOffset, v.wide_.size};
  }
  /// The items of an array, list or set.
  static std::span<const Value> items(const Value& v) noexcept {
    if (!(v.small_.flags & Value::kHeap)) return {};  // empty
    return {reinterpret_cast<const Value*>(reinterpret_cast<const char*>(v.wide_.u.node) + kPayloadOffset),
            v.wide_.size};
  }
  // ---- the write of a built tree's records -----------------------------------------------------
  // A tree built by Value's constructors has each container and long text in a heap node of
  // its own, placed where malloc put it, children before their parents: a walk in document
  // order meets each node as a cache miss and waits for it before it can read where the next
  // ones are (keywords' MessagePack write of its built tree 1.5x-1.9x msgpack-cxx's pack, the
  // same tree read back into an arena in document order, which the CPU's prefetcher follows,
  // 0.90x-0.95x; docs/performance-log.md, "Timing the floors in pairs, round forty"). So in
  // the array the encoder tracks (the first of 16 items or more: a value's records, nearly
  // always) of such a tree, its walk asks for the nodes of the records ahead
  // (prefetch_records_ahead); a large array below a tracked container is walked without.
  // Only arrays of maps: for geojson's rings of [lon, lat] points
  // (arrays of small arrays, which malloc places one after another) any prefetch cost more
  // than it saved (its MessagePack write 1.13x-1.26x `pack` without, 1.34x-1.98x with); and
  // levels deeper than a record's children cost extensions' records more than they saved
  // keywords'. Both are calls, out of the encoder's template: in line, GCC compiled the
  // encoder's walk differently for every tree (3% to 5% more instructions in the write rows of
  // trees read from documents, which never prefetch).

  /// Whether `v` is an array, list or set of maps in a heap node of its own (not in an arena):
  /// the records of a tree built by Value's constructors.
  [[gnu::noinline]] static bool built_records(const Value& v) noexcept;
  /// Asks the CPU, without waiting, for the node of the item 4 places after `i` in `items` and
  /// for the nodes of the items and entries of the item 2 places after it (whose node the call
  /// for `i - 2` asked for).
  [[gnu::noinline]] static void prefetch_records_ahead(std::span<const Value> items, std::size_t i) noexcept;
  /// At depth 0, asks for `v`'s own node: its header and the first 256 bytes of its payload,
  /// whose length the handle gives; at depth d, for the nodes d levels below `v`, through the
  /// first kPrefetchFanOut items or entries of each container on the way. An inline value has
  /// no node.
  static constexpr std::size_t kPrefetchFanOut = 8;
  static void prefetch_tree(const Value& v, unsigned depth) noexcept;

  /// The entries of a map or link.
  static std::span<const Entry> entries(const Value& v) noexcept {
    if (!(v.small_.flags & Value::kHeap)) return {};  // empty
    return {reinterpret_cast<const Entry*>(reinterpret_cast<const char*>(v.wide_.u.node) + kPayloadOffset),
            v.wide_.size};
  }
  /// The integer, instant (milliseconds) or double of a scalar value.
  static std::int64_t int_bits(const Value& v) noexcept { return v.wide_.u.i; }
  static double double_bits(const Value& v) noexcept { return v.wide_.u.d; }

  /// The most bytes inline_text takes: a text this short lives in the Value itself.
  static constexpr std::size_t kInlineText = Value::kSmallCapacity;
  /// A text of `kind` (string, keyword, symbol ...) of at most kInlineText bytes, built in
  /// registers as two whole words with no call: the same bits as Value(s) or
  /// Value::keyword(s), whose short texts are built here too. For the decoder's short map keys
  /// and keywords, the most common items of a read. Always inline: left to GCC, the walk of
  /// simdjson's document called it for every keyword (JSON-Verbose's keys, 29 instructions
  /// a call; keywords JSON-Verbose 0.65% fewer a read inline).
  [[gnu::always_inline]] static Value inline_text(Kind kind, std::string_view s) noexcept {
    Value v;  // zero bytes, so that equal inline values have equal bits
    const std::size_t n = s.size();
    if constexpr (std::endian::native == std::endian::little) {
      // Both words built in registers and stored whole (see detail::head_word): the 13 bytes
      // of text start at the head's fourth byte and run on into the second word.
      std::uint64_t low = 0, high = 0;  // the text's bytes 0-7 and 8-12
      if (n > 8) {
        std::memcpy(&low, s.data(), 8);
        std::memcpy(&high, s.data() + n - 8, 8);
        high >>= 8 * (16 - n);
      } else if (n != 0) {
        low = detail::load_short(s.data(), n);
      }
      v.raw_.a = detail::head_word(kind, 0, static_cast<std::uint32_t>(n), true) | low << 24;
      v.raw_.b = low >> 40 | high << 24;
    } else {
      v.small_.kind = kind;
      v.small_.size = static_cast<std::uint8_t>(n);
      if (n != 0) std::memcpy(v.small_.data, s.data(), n);
    }
    return v;
  }
  /// Value::instant(ms), inline: a reader builds it in registers.
  static Value instant(std::int64_t ms) noexcept {
    Value v;
    v.wide_.kind = Kind::instant;
    v.wide_.u.i = ms;
    return v;
  }
  /// Makes `v` (null) a text of `kind` holding `size` bytes for the caller to write at the
  /// pointer returned, before any other use of `v`: a decoder writes the bytes it decodes
  /// straight into the value (inline or in its node) rather than into a buffer to copy.
  static char* init_text_to_fill(Value& v, Kind kind, std::size_t size);
  /// Shortens a text init_text_to_fill made to its first `size` bytes, once they are written
  /// and before any other use of `v`: for a decoder that knows only an upper bound first. Both
  /// sizes are above kInlineText or both at most it (inline values are canonical), and the
  /// inline bytes dropped were never written (they stay zero).
  static void shorten_filled_text(Value& v, std::size_t size) noexcept;
  /// An empty container of `kind` (array, list, set, map or link): inline, with no node (so
  /// that `[]`, `{}` and the like cost their 16-byte handle and nothing more: MessagePack
  /// spends one byte on each; a node and its arena bookkeeping cost 24 more). Defined here:
  /// a reader's empty containers (Decoder::empty_container_inline) made a call of its three
  /// stores.
  static Value empty(Kind kind) noexcept {
    Value v;
    v.small_.kind = kind;
    return v;
  }
  /// The heap bytes of the arena `v` lives in (its blocks, headers included), or 0 when `v`
  /// is inline or on the heap: what a read document holds, whatever pooled blocks served it.
  static std::size_t arena_bytes(const Value& v) noexcept;
  /// The bytes of that arena's blocks its nodes took (bumped), or 0 as arena_bytes: what a
  /// document's nodes hold, padding and unused slots included, without the blocks' free ends.
  static std::size_t arena_used_bytes(const Value& v) noexcept;
  /// An array, list or set from `items` (moved from). Sets drop duplicates. An array or list
  /// leaves every item of `items` moved from (null) once it returns, so that a caller may
  /// drop them with no destructor run (the decoder's value stack does); a set does not.
  static Value make_sequence(Kind kind, std::span<Value> items);
  /// The items of array `v`, to move from, when nothing else refers to its node and the
  /// node lives where a node built now will (the same arena, or the heap); else empty. A
  /// reader turning a rep it alone holds into a set or list moves the items rather than
  /// holding them twice. Borrowed aliases (see alias) are not counted: only for a value its
  /// caller has just built.
  static std::span<Value> sole_items(Value& v) noexcept;
  /// Makes array `v` the list or set (`kind`) make_sequence would build from its items, in
  /// its own node, when the node is its alone (see sole_items): a set drops its duplicates
  /// in place, keeping the first of each. False, with `v` as it was, for any other `v`.
  static bool sequence_in_place(Kind kind, Value& v);
  /// Value::big_integer and Value::big_decimal of text that has passed their checks
  /// (is_integer_text, is_decimal_text) already: a reader's `~n` and `~f`, checked once.
  static Value big_integer_of(std::string_view digits);
  static Value big_decimal_of(std::string_view text);
  /// Value::tagged(tag's text, rep) for a `tag` string Value already built (a reader's).
  static Value tagged(Value tag, Value rep);
  /// A map or link from interleaved keys and values (moved from); `flat.size()` is even.
  /// Once it returns, every Value of `flat` is moved from (null), a duplicate key's too, so
  /// that a caller may drop them with no destructor run.
  static Value make_map(Kind kind, std::span<Value> flat);

  /// A sequence node allocated at its final size before its items are read, so that a reader
  /// that knows the count (MessagePack announces it) decodes the items straight into place:
  /// a 16M-item array then costs its node, not also a stack of its items and their copy.
  struct Slots {
    detail::Node* node = nullptr;
    Value* items = nullptr;  // null: no slots reserved
    std::uint32_t capacity = 0;
    detail::ArenaHeader* arena = nullptr;  // the arena the node is in, or null: the heap
  };
  /// Room for `capacity` items, in the arena of the ArenaScope open on this thread, else on
  /// the heap. The caller constructs the items in order, then finishes or abandons the slots.
  static Slots reserve_sequence(std::size_t capacity);
  /// Room for `capacity` items on the heap, which grow_sequence enlarges: for an array whose
  /// count nobody announced (JSON) and which has grown large.
  static Slots reserve_growable_sequence(std::size_t capacity);
  /// Enlarges slots from reserve_growable_sequence to `capacity` items, keeping those there.
  /// realloc moves a large block by remapping its pages, so growing copies nothing and never
  /// holds the old block and the new one at once. (A Value may be moved bitwise: nothing
  /// points into one.)
  static void grow_sequence(Slots& slots, std::size_t capacity);
  /// The array or list (not a set, which drops duplicates) of the first `size` items of
  /// `slots`, which it takes over; `slots` is left empty. Throws Error(too_deep) past
  /// Value::kMaxDepth, as every builder does, leaving nothing of the node behind.
  static Value finish_sequence(Kind kind, Slots& slots, std::uint32_t size);
  /// finish_sequence() of heap slots, or of none filled (out of line).
  [[gnu::noinline]] static Value finish_sequence_elsewhere(Kind kind, Slots& slots, std::uint32_t size);
  /// finish_sequence() of arena slots with an item on the heap or an (empty) container:
  /// its children adopted (out of line).
  [[gnu::noinline]] static Value finish_sequence_adopting(Kind kind, Slots& slots, std::uint32_t size);
  /// Destroys the first `size` items and frees the slots (a read that failed half-way); to be
  /// called while the arena they were reserved in is still open. For map slots too.
  static void abandon_sequence(Slots& slots, std::uint32_t size) noexcept;
  /// A map node allocated for `entries` entries before they are read (MessagePack announces
  /// the count), as reserve_sequence does for arrays: its slots are the entries seen as one
  /// flat run of Values, key, value, key, value..., `2 * entries` of them. The keys and values
  /// are decoded straight into place, with no value stack to gather them on, move them off and
  /// destroy them there. Same arena rule as reserve_sequence; `entries` ≤ UINT32_MAX / 2.
  static Slots reserve_map(std::size_t entries);
  /// The map or link of the first `size` Values (an even number) of `slots` from reserve_map,
  /// which it takes over, later duplicates of a key replacing the earlier value in place (as
  /// make_map does); `slots` is left empty. Throws Error(too_deep) as finish_sequence does.
  static Value finish_map(Kind kind, Slots& slots, std::uint32_t size);
  /// finish_map() of heap slots, or of none filled (out of line).
  [[gnu::noinline]] static Value finish_map_elsewhere(Kind kind, Slots& slots, std::uint32_t size);

 private:
  static Value alias_node(const Value& v) noexcept;
  /// The last step of make_sequence and make_map on the heap (defined beside them).
  template <class ContainerNode, class ForEachChild>
  static Value finish_container(Kind kind, ContainerNode* node, std::uint32_t children,
                                ForEachChild for_each_child);
  /// The one pass over a new node's children in an arena (defined in value.cpp).
  struct Adoption;
  /// The last step of a map or link built in an arena (by finish_map or make_map), from its
  /// `entries` keys and values in place in its node: duplicate keys removed, children
  /// adopted, height set.
  static inline Value finish_map_in_arena(detail::ArenaHeader* arena, Kind kind,
                                          detail::Node* node, Value* flat, std::uint32_t entries);
  /// Removes the duplicate keys of `entries` keys and values in place, each key kept in its
  /// first place with the last value given for it; returns the entries kept.
  static std::uint32_t compact_entries(Value* flat, std::uint32_t entries);
  /// Whether the keys of `entries` (at most kMidKeys) flat entries are all distinct, with no
  /// Value::hash: see value.cpp.
  static bool distinct_keys(const Value* flat, std::uint32_t entries) noexcept;
  static constexpr std::uint32_t kMidKeys = 64;
};

/// While alive, the nodes of Values built on this thread go into one new arena: a reader
/// builds each document in one, so reading it allocates blocks, not nodes, and dropping it
/// frees the blocks. Only for code that runs no user callbacks while the scope is open: a user
/// object holding a Value of the arena it sits in would keep the arena alive for ever.
/// Scopes nest.
class ArenaScope {
 public:
  ArenaScope();
  ~ArenaScope();
  ArenaScope(const ArenaScope&) = delete;
  ArenaScope& operator=(const ArenaScope&) = delete;

 private:
  detail::ArenaHeader* arena_;
  detail::ArenaHeader* previous_;
};

}  // namespace transit
