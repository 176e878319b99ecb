// SPDX-License-Identifier: Apache-2.0
// The Transit key cache, both directions. See DESIGN.md "Wire rules": a string is cacheable
// when it is at least 4 UTF-16 code units long and is either a map key (of a map whose keys
// are all stringable) or a keyword, symbol or tag (`~:`, `~$`, `~#`). Codes are `^` plus one or
// two base-44 digits; after 1936 entries the cache starts again at `^0`. Both caches are reset
// for every top-level value.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "codec/codec.h"
#include "model/hash.h"
#include "transit/error.h"
#include "transit/value.h"
#include "model/value_internal.h"

namespace transit::detail {

inline constexpr std::size_t kCacheDigits = 44;
inline constexpr std::size_t kCacheSize = kCacheDigits * kCacheDigits;  // 1936
inline constexpr char kCacheBase = '0';

/// Copies `n` < 32 bytes as at most two overlapping fixed-size moves (what memcpy does inside,
/// without the call and its dispatch on size); returns the end.
inline char* copy_short(char* to, const char* from, std::size_t n) noexcept {
  if (n >= 16) {
    std::memcpy(to, from, 16);
    std::memcpy(to + n - 16, from + n - 16, 16);
  } else if (n >= 8) {
    std::memcpy(to, from, 8);
    std::memcpy(to + n - 8, from + n - 8, 8);
  } else if (n >= 4) {
    std::memcpy(to, from, 4);
    std::memcpy(to + n - 4, from + n - 4, 4);
  } else if (n > 0) {
    to[0] = from[0];
    to[n / 2] = from[n / 2];
    to[n - 1] = from[n - 1];
  }
  return to + n;
}

/// Whether `s`, as it appears on the wire, takes a cache slot.
inline bool is_cacheable(std::string_view s, bool as_map_key) noexcept {
  if (s.size() < 4) return false;  // fewer bytes means fewer UTF-16 units
  if (!as_map_key && !(s[0] == '~' && (s[1] == ':' || s[1] == '$' || s[1] == '#'))) return false;
  // Each UTF-16 unit takes at most 3 UTF-8 bytes (4 bytes make 2 units), so 12+ bytes are
  // always at least 4 units; shorter ASCII text is one unit a byte; the rest is counted. The
  // ASCII test reads 4 to 11 bytes as two overlapping words, not byte by byte: every map key
  // of a JSON-Verbose text passes here.
  if (s.size() >= 12) return true;
  std::uint64_t high_bits;
  if (s.size() >= 8) {
    std::uint64_t first, last;
    std::memcpy(&first, s.data(), 8);
    std::memcpy(&last, s.data() + s.size() - 8, 8);
    high_bits = (first | last) & 0x8080808080808080ULL;
  } else {
    std::uint32_t first, last;
    std::memcpy(&first, s.data(), 4);
    std::memcpy(&last, s.data() + s.size() - 4, 4);
    high_bits = (first | last) & 0x80808080U;
  }
  return high_bits == 0 || utf16_length(s) >= 4;
}

/// is_cacheable of "~" + `tag` + `body`, with no such text built: a keyword's name, a tag. The
/// same answer for every input: 12+ bytes in all, or "~", an ASCII tag and a body whose first
/// and last bytes are ASCII (two units of its own), are 4 units; the rest is counted.
inline bool is_cacheable_prefixed(char tag, std::string_view body, bool as_map_key) noexcept {
  if (body.size() < 2) return false;
  if (!as_map_key && tag != ':' && tag != '$' && tag != '#') return false;
  if (body.size() >= 10) return true;
  if (static_cast<unsigned char>(tag | body[0] | body[body.size() - 1]) < 0x80) [[likely]]
    return true;
  return 1 + utf16_length({&tag, 1}) + utf16_length(body) >= 4;
}

// Per byte, the cache code digit it is (see kCacheBase), or kCacheSize for none.
inline constexpr auto kCacheDigitOf = [] {
  std::array<std::uint16_t, 256> t{};
  for (std::size_t c = 0; c < 256; ++c)
    t[c] = static_cast<std::uint16_t>(c - static_cast<unsigned char>(kCacheBase) < kCacheDigits
                                          ? c - static_cast<unsigned char>(kCacheBase)
                                          : kCacheSize);
  return t;
}();
static_assert(kCacheSize <= UINT16_MAX && kCacheDigitOf['0'] == 0 &&
              kCacheDigitOf['0' + 43] == 43 && kCacheDigitOf['0' + 44] == kCacheSize &&
              kCacheDigitOf['/'] == kCacheSize);

/// The slot named by the cache code `^` + `digit`, or `^` + `high` `low`, by the table of
/// digits with no test per digit: a byte that is no digit makes the slot kCacheSize or more,
/// which names none. The caller has told a code of 2 chars from one of 3 by choosing which
/// to call.
inline std::size_t cache_slot(char digit) noexcept {
  return kCacheDigitOf[static_cast<unsigned char>(digit)];
}
inline std::size_t cache_slot(char high, char low) noexcept {
  return kCacheDigitOf[static_cast<unsigned char>(high)] * kCacheDigits +
         kCacheDigitOf[static_cast<unsigned char>(low)];
}

// Every cache code, "^0" ... "^[[" (base-44 digits from '0'), as 3 chars and a length.
inline constexpr auto kCacheCodes = [] {
  std::array<std::array<char, 4>, kCacheSize> t{};
  for (std::size_t i = 0; i < kCacheSize; ++i) {
    const std::size_t hi = i / kCacheDigits, lo = i % kCacheDigits;
    if (hi == 0) {
      t[i] = {'^', static_cast<char>(kCacheBase + lo), 0, 2};
    } else {
      t[i] = {'^', static_cast<char>(kCacheBase + hi), static_cast<char>(kCacheBase + lo), 3};
    }
  }
  return t;
}();

/// The cache code for slot `index` (< 1936).
inline std::string_view cache_code(std::size_t index) noexcept {
  return {kCacheCodes[index].data(), static_cast<std::size_t>(kCacheCodes[index][3])};
}

/// The write cache's two hashes, keyed by this process's key (src/model/hash.h) so that the strings of
/// one value cannot be chosen to share a probe chain: the Hash of every writer's cache
/// (WriteCache). A cache of another Hash is for the library's own tests, which choose hashes
/// that collide so that the compares behind them are reached (tests/
/// write_cache_collision_test.cpp); nothing in the library makes one.
class KeyedCacheHash {
 public:
  KeyedCacheHash() noexcept : key_(&process_hash_key()), k0_(key_->k0), k1_(key_->k1) {}

  /// The hash of the text whose first two bytes are `head` (WriteCacheBase::head_of) and the
  /// rest `body`: 16 bytes a multiply, as cached strings are keys and keywords, mostly 5 to 30
  /// bytes. The head is mixed in by a keyed multiply of its own: keyed_bytes, which the read
  /// side's Value hashes share, stays as it is. Inline to the end (keyed_bytes_inline, and
  /// BasicWriteCache::hash): left to GCC, keyed_bytes and copy_short stayed calls in the JSON
  /// writer's miss (the 2 MB stream's JSON write 68.50 M -> 67.07 M instructions inline).
  [[gnu::always_inline]] std::uint32_t text(std::uint16_t head, std::string_view body) const noexcept {
    return static_cast<std::uint32_t>(keyed_bytes_inline(*key_, body.data(), body.size()) ^ fold_mul(head ^ k0_, k1_));
  }
  /// The hash of a text value's identity (ValueAccess::identity) written as `kind`. Keyed too:
  /// the bits of an inline value are its characters, which the input chooses. One folded
  /// multiply of the two keyed words: this runs for every keyword and map key written.
  std::uint64_t value(std::uint64_t a, std::uint64_t b, char kind) const noexcept {
    return fold_mul(a ^ k0_, b ^ k1_ ^ static_cast<unsigned char>(kind));
  }

 private:
  const HashKey* key_;
  std::uint64_t k0_, k1_;  // key_'s first words, held here: one load less on every probe
};

/// What a write cache (BasicWriteCache, below) keeps and does without hashing: its tables,
/// text, stamps and counts, the add of a text whose probe missed, growth, the wrap, resets and
/// the thread's spare tables (cache.cpp). Not a template, so that the spare's code stays in
/// cache.cpp whatever the Hash: with it in the header, GCC laid the MessagePack writer out
/// otherwise (keywords' MessagePack write +2.6% instructions, `MsgpackEmitter::string` and
/// `::integer` out of line in Encoder::write).
class WriteCacheBase {
 public:
  // Without a spare, the table starts small and doubles as it fills: most values cache a few
  // strings, and a one-shot write of a small value must not pay for a table sized for 1936.
  WriteCacheBase() { adopt_spare(); }
  ~WriteCacheBase() { leave_spare(); }
  WriteCacheBase(const WriteCacheBase&) = delete;
  WriteCacheBase& operator=(const WriteCacheBase&) = delete;

  void reset() noexcept {
    if (++generation_ == 0) [[unlikely]]
      restart_generations();
    count_ = 0;
    remembered_ = 0;
    text_size_ = 0;
    held_.clear();
  }

  /// Lets go of the values `remember` holds, at the end of a top-level value, so that a writer
  /// between values keeps no document alive. Only reset() may follow: the remembered nodes
  /// are still listed and would match new text at a reused address.
  void release_values() noexcept { held_.clear(); }

  /// What find_value learnt of a text value: its code if the value was seen; else the slot of
  /// the identity table where remember() can put it (its probe stopped there), the generation
  /// that slot was free in (a find_or_add that wraps the cache starts another; 0, which no
  /// generation is: no slot) and the value's identity.
  struct ValueProbe {
    std::string_view code;
    std::size_t hole = 0;
    std::uint32_t generation = 0;
    std::uint64_t a = 0, b = 0;
  };

  /// Sets the generation stamp, as if that many resets had happened: for tests of the wrap.
  /// Every slot is freed first, so that no stamp left by an earlier owner of the tables
  /// passes for the one set.
  void set_generation_for_testing(std::uint32_t generation) noexcept {
    restart_generations();
    generation_ = generation;
  }
  /// The text table's slots: for tests that a cache took its thread's spare tables.
  std::size_t slots_for_testing() const noexcept { return slots_.size(); }

 protected:
  // At most half full keeps probe chains short; at the entry limit that is 4096 slots.
  static constexpr std::size_t kMinSlots = 64;

  // A text's first two bytes as one word.
  static std::uint16_t head_of(char first, char second) noexcept {
    return static_cast<std::uint16_t>(static_cast<unsigned char>(first) |
                                      static_cast<unsigned>(static_cast<unsigned char>(second)) << 8);
  }

  // Caches the text of `head` and `body`, which find_or_add did not find; `h` is its hash and
  // `hole` the free slot its probe ended at, where it goes unless the cache wraps or the table
  // grows first. The body is kept in a buffer whose bytes are all there to write: a short one
  // is copied as two overlapping moves, with no call. Inline: the rest is make_room's.
  [[gnu::always_inline]] void add(std::uint16_t head, std::string_view body, std::uint32_t h, std::size_t hole) {
    if (count_ == kCacheSize || 2 * (count_ + 1) > slots_.size() || body.size() > text_.size() - text_size_)
        [[unlikely]]
      hole = make_room(body.size(), h, hole);
    slots_[hole] = {generation_, h, static_cast<std::uint32_t>(text_size_),
                    static_cast<std::uint32_t>(body.size()), static_cast<std::uint16_t>(count_++), head};
    char* const to = text_.data() + text_size_;
    if (body.size() < 32) [[likely]]
      copy_short(to, body.data(), body.size());
    else
      std::memcpy(to, body.data(), body.size());
    text_size_ += body.size();
  }
  // Before add() takes a slot: wraps the cache after 1936 entries or grows the table, either
  // of which moves the hole `s`'s hash `h` goes to, and makes room for its `n` bytes of text.
  [[gnu::noinline]] std::size_t make_room(std::size_t n, std::uint32_t h, std::size_t hole) {
    if (count_ == kCacheSize) {
      reset();
      hole = free_slot(h);
    } else if (2 * (count_ + 1) > slots_.size()) {
      grow();
      hole = free_slot(h);
    }
    if (n > text_.size() - text_size_) grow_text(n);
    return hole;
  }
  // Room for `n` more bytes of text: at least twice the buffer, the text's bytes kept.
  void grow_text(std::size_t n) {
    text_.resize(std::max({text_.size() * 2, text_size_ + n, kMinText}));
  }
  static constexpr std::size_t kMinText = 256;

  // Whether the n bytes at a and b are the same: cached texts are mostly keys and tags of 4 to
  // 32 bytes, their bodies 2 to 30, compared here as bytes or two to four overlapping words
  // with no call.
  [[gnu::always_inline]] static bool same_bytes(const char* a, const char* b, std::size_t n) noexcept {
    const auto word = [](const char* p) {
      std::uint64_t w;
      std::memcpy(&w, p, 8);
      return w;
    };
    const auto half = [](const char* p) {
      std::uint32_t w;
      std::memcpy(&w, p, 4);
      return w;
    };
    if (n < 4) return n == 0 || ((a[0] ^ b[0]) | (a[n / 2] ^ b[n / 2]) | (a[n - 1] ^ b[n - 1])) == 0;
    if (n < 8) return ((half(a) ^ half(b)) | (half(a + n - 4) ^ half(b + n - 4))) == 0;
    if (n >= 8 && n <= 16) return ((word(a) ^ word(b)) | (word(a + n - 8) ^ word(b + n - 8))) == 0;
    if (n > 16 && n <= 32)
      return ((word(a) ^ word(b)) | (word(a + 8) ^ word(b + 8)) | (word(a + n - 16) ^ word(b + n - 16)) |
              (word(a + n - 8) ^ word(b + n - 8))) == 0;
    return std::memcmp(a, b, n) == 0;
  }

  std::size_t free_slot(std::uint32_t h) const noexcept {
    const std::size_t mask = slots_.size() - 1;
    std::size_t i = h & mask;
    while (slots_[i].generation == generation_) i = (i + 1) & mask;
    return i;
  }

  void grow() {
    std::vector<Slot> old(slots_.size() * 2);
    old.swap(slots_);
    text_mask_ = slots_.size() - 1;
    for (const Slot& slot : old)
      if (slot.generation == generation_) slots_[free_slot(slot.hash)] = slot;
  }

  // The stamp went round: stamp 0 marks a free slot, so every slot is freed and counting
  // starts again at 1. Once per 2^32 resets, O(table size).
  void restart_generations() noexcept {
    for (Slot& slot : slots_) slot.generation = 0;
    for (ValueSlot& slot : values_) slot.generation = 0;
    generation_ = 1;
  }

  // Takes this thread's spare tables, or makes the smallest; gives ours to the spare when
  // larger than it (cache.cpp).
  void adopt_spare();
  void leave_spare() noexcept;

 public:
  // The two tables' slots, and the tables one cache leaves to the next (cache.cpp), whose
  // stamps are `generation` or older.
  struct Slot {
    std::uint32_t generation = 0;
    std::uint32_t hash = 0;
    std::uint32_t offset = 0;  // of the body in the text buffer
    std::uint32_t size = 0;    // of the body
    std::uint16_t code = 0;
    std::uint16_t head = 0;    // the text's first two bytes (head_of)
  };
  // The code's characters are kept in the slot ("^X" and a NUL, or "^XY"), so that a hit,
  // every repeated key, reads one slot and no table of codes.
  struct ValueSlot {
    std::uint64_t a = 0, b = 0;  // ValueAccess::identity
    std::uint32_t generation = 0;
    std::array<char, 3> code{};
    char kind = 0;
  };
  struct Tables {
    std::vector<Slot> slots;
    std::vector<ValueSlot> values;
    std::vector<char> text;  // its bytes are room only
    std::uint32_t generation = 0;
  };

 protected:
  static_assert(sizeof(ValueSlot) == 24 && sizeof(Slot) == 20);
  std::vector<Slot> slots_;
  std::size_t text_mask_ = kMinSlots - 1;  // slots_.size() - 1, held for the probe
  std::vector<ValueSlot> values_;  // open addressing by identity, at most half full
  const ValueSlot* value_table_ = nullptr;  // values_'s slots and size - 1, held for the probe
  std::size_t value_mask_ = 0;
  std::vector<Value> held_;        // the long values remembered in values_, alive until reset
  std::vector<char> text_;     // the cached texts' bodies, text_size_ bytes of it; the rest is room
  std::size_t text_size_ = 0;
  std::uint32_t generation_ = 1;
  mutable std::size_t miss_hole_ = 0;          // where find_value's last miss stopped
  mutable std::uint32_t miss_generation_ = 0;  // and in which generation (0: none)
  std::size_t count_ = 0;       // text slots taken since the last reset
  std::size_t remembered_ = 0;  // live entries of values_
};

/// Write side: maps cacheable strings to their codes. An open-addressing table with a
/// generation stamp, so resetting between top-level values is O(1) and the table's memory is
/// reused for the life of the writer.
///
/// Beside the table of texts, a second table finds a text value by its identity (its two
/// words: the characters of an inline value, or the node of a long one) and the way it is
/// written, so that a keyword written again is found without building "~:name" or hashing its
/// bytes. The text table stays the authority: an identity is remembered only when its text
/// took a new slot, so both tables agree on every code, and at most 1936 identities are held.
///
/// Generation stamps are 32 bits. When the stamp wraps (after 2^32 resets: one per top-level
/// value, and one per 1936 cached strings) every slot is cleared once and counting starts
/// again at 1, so that no slot stamped 2^32 resets ago can pass for a live one.
///
/// A cache destroyed leaves its tables to the next one made on the same thread (one spare per
/// thread, the larger kept; see cache.cpp): a service that makes a Writer per message would
/// otherwise grow both tables from 64 slots, zeroing and rehashing them, on every message
/// (citm_catalog: 10 allocations, 87 KB zeroed, 4 rehashes of each table; docs/performance-log.md,
/// "Fresh writes, round nineteen"). The tables carry their generation with them, so taking
/// them is a reset(): nothing is cleared.
///
/// Both tables are probed by a hash (`Hash`: KeyedCacheHash's in every writer) and then compared
/// in full: a text by its hash, size, head and body, a value by its identity and kind.
template <class Hash>
class BasicWriteCache : public WriteCacheBase {
 public:
  /// The code for `s` (2 bytes or more) if it was cached before; otherwise caches it (wrapping
  /// after 1936 entries) and returns an empty view, meaning "write the string itself". The
  /// hit, every repeated key not found by identity, is a probe and a compare of a few words,
  /// with no call; the rest is add().
  [[gnu::always_inline]] std::string_view find_or_add(std::string_view s) {
    return find_or_add(head_of(s[0], s[1]), s.substr(2));
  }
  /// find_or_add of the text whose first two bytes are `first` and `second` and the rest
  /// `body`, with no such text built: "~" + a keyword's kind and name, or a tag. A text is
  /// kept as its head (in its slot) and body, and hashed and compared so, however given.
  [[gnu::always_inline]] std::string_view find_or_add(char first, char second, std::string_view body) {
    return find_or_add(head_of(first, second), body);
  }

  /// The code of text value `v` written as `kind` (the character after `~`, or '"' for a
  /// string) if `remember` saw the same value since the last reset; else an empty view. Equal
  /// inline values are the same bits; a long value is found by its node, so a cache reference
  /// to a 16 MB keyword costs no copy, hash or compare of its text.
  [[gnu::always_inline]] std::string_view find_value(const Value& v, char kind) const noexcept {
    if (value_table_ == nullptr) return {};
    const auto [a, b] = ValueAccess::identity(v);
    const std::size_t mask = value_mask_;
    for (std::size_t i = value_slot(a, b, kind, mask);; i = (i + 1) & mask) {
      const ValueSlot& slot = value_table_[i];
      if (slot.generation != generation_) {
        miss_hole_ = i;
        miss_generation_ = generation_;
        return {};
      }
      if (slot.a == a && slot.b == b && slot.kind == kind)
        return {slot.code.data(), slot.code[2] != 0 ? 3u : 2u};
    }
  }
  /// What the find_value that just missed for `v` learnt: probe_value's answer, without
  /// probing again. Only right after that find_value.
  ValueProbe missed(const Value& v) const noexcept {
    const auto [a, b] = ValueAccess::identity(v);
    return {{}, miss_hole_, miss_generation_, a, b};
  }
  /// find_value, and on a miss the free slot its probe ended at: remember(v, kind, probe)
  /// places the value there with no second hash or probe. A second function, not find_value
  /// returning more: where find_value is inlined (every key written), the larger result
  /// lengthened the hit (keywords' MessagePack write +4.1% instructions).
  [[gnu::always_inline]] ValueProbe probe_value(const Value& v, char kind) const noexcept {
    if (value_table_ == nullptr) return {};
    const auto [a, b] = ValueAccess::identity(v);
    const std::size_t mask = value_mask_;
    for (std::size_t i = value_slot(a, b, kind, mask);; i = (i + 1) & mask) {
      const ValueSlot& slot = value_table_[i];
      if (slot.generation != generation_) return {{}, i, generation_, a, b};
      if (slot.a == a && slot.b == b && slot.kind == kind)
        return {{slot.code.data(), slot.code[2] != 0 ? 3u : 2u}, 0, 0, 0, 0};
    }
  }

  /// Right after a find_or_add that added the text of `v` (a text value written as `kind`):
  /// remembers it by identity. A long value's node is held by a count, so that its address
  /// cannot be reused by other text while it is remembered. At most one entry per cache slot.
  /// `probe`: what probe_value said of `v` before that find_or_add (nothing has been
  /// remembered since), whose hole is where `v` goes unless the table grows first or the
  /// find_or_add wrapped the cache.
  void remember(const Value& v, char kind) { remember(v, kind, ValueProbe{}); }
  [[gnu::always_inline]] void remember(const Value& v, char kind, const ValueProbe& probe) {
    if (probe.generation == generation_ && 2 * (remembered_ + 1) <= values_.size()) [[likely]] {
      const auto& code = kCacheCodes[count_ - 1];
      values_[probe.hole] = {probe.a, probe.b, generation_, {code[0], code[1], code[2]}, kind};
      ++remembered_;
    } else {
      place_value(v, kind);
    }
    if (ValueAccess::node_of(v)) [[unlikely]]
      held_.push_back(v);
  }

 private:
  [[gnu::always_inline]] std::string_view find_or_add(std::uint16_t head, std::string_view body) {
    const std::uint32_t h = hash(head, body);
    const Slot* const slots = slots_.data();
    std::size_t i = h & text_mask_;
    for (;; i = (i + 1) & text_mask_) {
      const Slot& slot = slots[i];
      if (slot.generation != generation_) break;
      if (slot.hash == h && slot.size == body.size() && slot.head == head &&
          same_bytes(text_.data() + slot.offset, body.data(), body.size()))
        return cache_code(slot.code);
    }
    add(head, body, h, i);
    return {};
  }

  [[gnu::always_inline]] std::uint32_t hash(std::uint16_t head, std::string_view body) const noexcept {
    return hash_.text(head, body);
  }
  std::size_t value_slot(std::uint64_t a, std::uint64_t b, char kind, std::size_t mask) const noexcept {
    return hash_.value(a, b, kind) & mask;
  }
  // remember() where the probe's hole will not do: the table grows first (at most half full),
  // or the probe was made before the cache wrapped, or there was none.
  [[gnu::noinline]] void place_value(const Value& v, char kind) {
    if (2 * (remembered_ + 1) > values_.size()) {
      std::vector<ValueSlot> old(std::max<std::size_t>(kMinSlots, values_.size() * 2));
      old.swap(values_);
      value_table_ = values_.data();
      value_mask_ = values_.size() - 1;
      remembered_ = 0;
      for (const ValueSlot& slot : old)
        if (slot.generation == generation_) place_value(slot);
    }
    const auto [a, b] = ValueAccess::identity(v);
    const auto& code = kCacheCodes[count_ - 1];
    place_value({a, b, generation_, {code[0], code[1], code[2]}, kind});
  }
  void place_value(const ValueSlot& slot) noexcept {
    const std::size_t mask = values_.size() - 1;
    std::size_t i = value_slot(slot.a, slot.b, slot.kind, mask);
    while (values_[i].generation == generation_) i = (i + 1) & mask;
    values_[i] = slot;
    ++remembered_;
  }

  Hash hash_;
};

/// The write cache of every writer. Instantiated once, in cache.cpp: instantiated implicitly
/// in each writer's file, where none was before it became a template, it moved GCC's inlining
/// in the MessagePack writer (a set's items out of line in Encoder::write: the 2 MB stream's
/// MessagePack write +0.55% instructions).
extern template class BasicWriteCache<KeyedCacheHash>;
using WriteCache = BasicWriteCache<KeyedCacheHash>;

/// Read side: slot i holds the decoded value of the i-th cacheable string (or a tag).
class ReadCache {
 public:
  struct Entry {
    Value value;  // the decoded value, or for a tag the tag's name as a string
    bool is_tag = false;
  };

  // A Reader's first value grows the slots it fills; a Reader made for one small message
  // (transit::read) pays that on every message: 16 slots at once rather than 1, 2, 4, 8, 16.
  // Here rather than in add(): growing out of line there moved GCC's code of the readers'
  // hot loops (keywords' JSON read 1% more instructions).
  ReadCache() { slots_.reserve(16); }

  /// Empties the cache, letting go of the values it held so that the document they came from
  /// is not kept alive by it.
  void reset() noexcept {
    slots_.clear();  // keeps the capacity for the next value
    count_ = 0;
  }

  /// Caches `v`. Inline values and values of the document's arena are held without a count
  /// (ValueAccess::alias): JSON-Verbose input caches every map key of four or more characters,
  /// and that must cost it no more than a 16-byte copy per key.
  void add(const Value& v, bool is_tag) {
    if (count_ == kCacheSize) count_ = 0;  // wrap: overwrite from slot 0 on
    if (count_ == slots_.size()) slots_.emplace_back();
    Entry& entry = slots_[count_++];
    ValueAccess::assign_alias(entry.value, v);
    entry.is_tag = is_tag;
  }

  /// The slot add() filled last: a typed read keeps a note per slot (Decoder::tape_cached).
  std::size_t last_added() const noexcept { return count_ - 1; }

  /// The entry for the cache code `^` + `digit` (find(char)) or `^` + `high` `low`
  /// (find(char, char)), or nullptr when a char is no digit or the code names a slot not
  /// assigned (lookup then says which). A caller names the chars after the `^`, so it has
  /// told a code of 2 chars from one of 3, and there is no length to test here. Inline, with
  /// no error text in it: every repeated key of a cached map comes here.
  const Entry* find(char digit) const noexcept { return assigned(cache_slot(digit)); }
  const Entry* find(char high, char low) const noexcept { return assigned(cache_slot(high, low)); }

  /// The entry for a code such as "^1A"; throws Error(bad_cache_code) when the code is
  /// malformed or names a slot not assigned since the last reset.
  const Entry& lookup(std::string_view code) const {
    std::size_t index = kCacheSize;
    if (code.size() == 2)
      index = cache_slot(code[1]);
    else if (code.size() == 3)
      index = cache_slot(code[1], code[2]);
    if (index >= kCacheSize)
      throw_error(Errc::bad_cache_code, "\"" + std::string(code.substr(0, 16)) + "\" is not a cache code");
    if (index >= count_)
      throw_error(Errc::bad_cache_code, "cache code \"" + std::string(code) + "\" (slot " +
                                            std::to_string(index) + ") is not assigned: the cache holds " +
                                            std::to_string(count_) + (count_ == 1 ? " entry" : " entries"));
    return slots_[index];
  }

 private:
  // count_ is at most kCacheSize, so a slot of kCacheSize or more (a char that is no digit:
  // cache_slot) is never assigned.
  const Entry* assigned(std::size_t slot) const noexcept {
    if (slot >= count_) return nullptr;
    // A slot's address is never null: said so, the caller's test for nullptr goes with this one.
    const Entry* entry = slots_.data() + slot;
    if (!entry) __builtin_unreachable();
    return entry;
  }

  std::vector<Entry> slots_;  // grows to the slots used, at most kCacheSize
  std::size_t count_ = 0;     // slots assigned since the last reset or wrap
};

}  // namespace transit::detail
