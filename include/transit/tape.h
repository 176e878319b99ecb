// SPDX-License-Identifier: Apache-2.0
// transit-cpp internals: the token tape between the Decoder and typed reads (see typed.h).
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "transit/value.h"

namespace transit::detail {

/// What a token is. Scalars come already decoded (`~:a` is a keyword, a cache code is what it
/// stands for): nil, booleans, integers and doubles in the token itself, any other kind as a
/// Value beside the tape; plain strings come as text; containers as begin/end pairs.
enum class Op : std::uint8_t {
  value,
  text,
  array_begin,
  array_end,
  map_begin,     ///< a map's keys and values follow, interleaved
  map_end,
  tagged_begin,  ///< its tag is the token's text; its one rep follows
  tagged_end,
  /// Not a value: the end of the tokens written so far by a bounded tape (see TapeFeeder);
  /// the Cursor asks for more when it meets one.
  refill,
};

/// What each Op does to the nesting depth, in Op's order: a whole value is skipped at a table
/// lookup and an add per token.
inline constexpr std::int8_t kOpDepth[] = {0, 0, 1, -1, 1, -1, 1, -1, 0};
static_assert(static_cast<int>(Op::refill) == 8 &&
              kOpDepth[static_cast<int>(Op::array_begin)] == 1 &&
              kOpDepth[static_cast<int>(Op::map_end)] == -1);

/// 16 bytes and trivially destructible: a typed read writes one per event and reads it back
/// once, so the tape's memory traffic is most of its cost, and freeing it costs nothing.
struct Token {
  union {
    std::int64_t integer;  ///< Kind::integer; Kind::boolean as 0 or 1
    double floating;       ///< Kind::floating
    /// Op::text, Op::tagged_begin: where the text starts in Tape::text, or its address when
    /// in_input.
    std::uint64_t text;
    std::uint64_t value;   ///< Op::value of any other kind: its index in Tape::values
  };
  /// text: its length. Op::array_begin, Op::map_begin: the items it holds (a map's keys and
  /// values), once the decoder has taped its end, for a binder to reserve room; 0 when not
  /// known (a tape made from a Value, a taped value still open).
  std::uint32_t size;
  Op op;
  /// Op::value: the value's kind. Op::map_begin: Kind::map in a tape made from a Value
  /// (from_value) when the map has a key that writes as no scalar, so that writers write it
  /// as a cmap: a read into Value gives it to the `cmap` read handler, not the map builder.
  Kind kind;
  /// text: `text` is the address of bytes that the input holds for as long as the tape is
  /// bound (MessagePack in memory), not an offset into Tape::text.
  bool in_input;
  /// Whether the value lives in the token (nil, boolean, integer, floating) rather than in
  /// Tape::values.
  static constexpr bool inline_kind(Kind k) noexcept {
    return k == Kind::null || k == Kind::boolean || k == Kind::integer || k == Kind::floating;
  }
  /// Sets every field (`payload` is the union's 8 bytes; the padding byte is zeroed) in two
  /// whole 8-byte stores. Set field by field, a token is five narrow stores, and a 16-byte
  /// load of it soon after (a copy of it) cannot be forwarded from them and waits for all
  /// of them to reach the cache: half the time of an empty array's step was that wait.
  void set(std::uint64_t payload, std::uint32_t n, Op o, Kind k, bool in_in) noexcept {
    if constexpr (std::endian::native == std::endian::little) {
      const std::uint64_t tail = std::uint64_t{n} |
                                 std::uint64_t{static_cast<std::uint8_t>(o)} << 32 |
                                 std::uint64_t{static_cast<std::uint8_t>(k)} << 40 |
                                 std::uint64_t{in_in} << 48;
      std::memcpy(static_cast<void*>(this), &payload, sizeof payload);
      std::memcpy(reinterpret_cast<char*>(this) + 8, &tail, sizeof tail);
    } else {
      std::memset(static_cast<void*>(this), 0, sizeof(Token));
      text = payload;
      size = n;
      op = o;
      kind = k;
      in_input = in_in;
    }
  }
};
static_assert(sizeof(Token) == 16 && std::is_trivially_destructible_v<Token> &&
              std::is_trivially_copyable_v<Token> && std::is_standard_layout_v<Token>);
// The layout Token::set writes.
static_assert(offsetof(Token, size) == 8 && offsetof(Token, op) == 12 &&
              offsetof(Token, kind) == 13 && offsetof(Token, in_input) == 14);

/// The tokens of a tape: a vector of trivially copyable Tokens whose append, inlined into
/// every event of a typed read, is a bounds check and a 16-byte store; growing is out of line.
/// Indices are absolute: a bounded tape (TapeFeeder) drops the tokens before `base()`, and
/// token i stays token i. `data()` is where token 0 would be, so `data()[i]` is valid for
/// base() <= i < size(); one more slot before base() (`scratch()`) takes the writes of a
/// decoder to a dropped token (an open container's size, see Decoder::tape_drop).
class TokenBuffer {
 public:
  TokenBuffer() = default;
  TokenBuffer(const TokenBuffer&) = delete;
  TokenBuffer& operator=(const TokenBuffer&) = delete;
  ~TokenBuffer() { std::free(real_); }

  std::size_t size() const noexcept { return size_; }
  std::size_t capacity() const noexcept { return capacity_; }
  /// The first token kept (0 unless a bounded tape dropped some).
  std::size_t base() const noexcept { return base_; }
  bool empty() const noexcept { return size_ == 0; }
  void clear() noexcept {
    size_ = 0;
    if (base_ != 0) rebase(0);
  }
  const Token* data() const noexcept { return data_; }
  const Token& operator[](std::size_t i) const noexcept { return data_[i]; }
  Token& operator[](std::size_t i) noexcept { return data_[i]; }
  Token& back() noexcept { return data_[size_ - 1]; }
  const Token& back() const noexcept { return data_[size_ - 1]; }
  /// Whether the next token needs the buffer to grow.
  bool full() const noexcept { return size_ == capacity_; }
  /// Whether `n` more tokens fit with no growth.
  bool has_room(std::size_t n) const noexcept { return capacity_ - size_ >= n; }
  /// A new token at the end, not zeroed, when not full(): the caller sets every field.
  Token& append_unchecked() noexcept { return data_[size_++]; }
  /// For a writer that keeps its position in a local for a run of appends (the Decoder's
  /// TapeWalk): where the next token goes, and where the room ends. A token's 8-byte payload
  /// may alias size_ as far as the compiler knows, so append_unchecked reloads it per token.
  Token* write_position() noexcept { return data_ + size_; }
  Token* room_end() noexcept { return data_ + capacity_; }
  Token* mutable_data() noexcept { return data_; }
  /// Ends such a run: `p` (from write_position, moved on by the tokens written, at most to
  /// room_end) is where the next token goes.
  void set_write_position(Token* p) noexcept { size_ = static_cast<std::size_t>(p - data_); }
  /// Drops the last token.
  void pop_back() noexcept { --size_; }
  /// A new token at the end, zeroed.
  Token& emplace_back() {
    if (size_ == capacity_) [[unlikely]]
      grow();
    Token* t = data_ + size_++;
    std::memset(static_cast<void*>(t), 0, sizeof(Token));
    return *t;
  }
  /// Room for tokens up to index `n` (absolute), at once rather than by doubling.
  void reserve(std::size_t n) {
    if (n > capacity_) grow_to(n);
  }
  /// The index of the slot just before base(), which holds no token of the value.
  std::size_t scratch() const noexcept { return base_ - 1; }
  /// Drops the tokens before `keep` (at most size()): those after it move to the front.
  void drop_before(std::size_t keep) noexcept {
    if (keep <= base_) return;
    std::memmove(static_cast<void*>(real_ + 1), static_cast<const void*>(data_ + keep),
                 (size_ - keep) * sizeof(Token));
    rebase(keep);
  }

 private:
  void rebase(std::size_t base) noexcept {
    capacity_ = capacity_ - base_ + base;
    base_ = base;
    // The address of token 0, computed as an integer: it lies before the allocation.
    data_ = reinterpret_cast<Token*>(reinterpret_cast<std::uintptr_t>(real_ + 1) -
                                     base * sizeof(Token));
  }
  [[gnu::cold, gnu::noinline]] void grow() {
    const std::size_t held = capacity_ - base_;
    grow_to(base_ + (held < 64 ? 64 : 2 * held));
  }
  [[gnu::cold, gnu::noinline]] void grow_to(std::size_t capacity) {
    const std::size_t held = capacity - base_ + 1;  // and the scratch slot
    if (held > SIZE_MAX / sizeof(Token)) throw std::bad_alloc();
    void* grown = std::realloc(real_, held * sizeof(Token));
    if (!grown) throw std::bad_alloc();
    real_ = static_cast<Token*>(grown);
    capacity_ = capacity;
    rebase(base_);
  }
  Token* real_ = nullptr;  // the allocation: the scratch slot, then token base_ on
  Token* data_ = nullptr;
  std::size_t base_ = 0;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
};

/// Where a bounded tape gets more tokens: the reader of in-memory JSON, which walks
/// simdjson's document a batch at a time (see Cursor::refill).
class TapeFeeder {
 public:
  /// Writes the next batch of tokens, first dropping those before `keep` (absolute). Throws
  /// what the walk throws (a decoder's Error, Decoder::CacheNeeded).
  virtual void refill(std::size_t keep) = 0;

 protected:
  ~TapeFeeder() = default;
};

/// Which field of a Record (`owner`) a key's text named (see Cursor::remembered_field).
struct KeyMemo {
  const void* owner = nullptr;
  std::size_t text = 0;
  std::uint32_t size = 0;
  bool in_input = false;
  std::uint32_t field = 0;
  std::uint32_t generation = 0;  ///< the Tape::generation it was noted in
};

/// One top-level value as the Decoder resolved it, in reading order. Plain strings are copied
/// into one buffer, so that the tape costs no allocation per string, unless the input holds
/// them for as long as the tape is bound (see Token::in_input).
struct Tape {
  TokenBuffer tokens;
  std::string text;
  /// The values of Op::value tokens that do not fit in a token (strings decoded from `~~`,
  /// keywords, UUIDs, tagged values decoded as an untyped read decodes them ...).
  std::vector<Value> values;
  /// Per token, where its bytes start as the reader counts (see Reader::locate_mark), when
  /// the reader knew it as it read; else empty (JSON read by simdjson: the reader finds the
  /// marks again only if a binder fails, see Backend::remark).
  std::vector<std::size_t> marks;
  /// Records' memory of keys, for the tapes that readers record (kept with the tape, so it
  /// is cleared once, not for every read); an entry counts only in the generation it was
  /// noted in, the value the tape holds now.
  static constexpr int kKeyMemoBits = 8;
  std::unique_ptr<std::array<KeyMemo, std::size_t{1} << kKeyMemoBits>> key_memo;
  std::uint32_t generation = 1;
  /// The address of the input that in_input texts point into: the key memo places such a
  /// key by its offset from here, as it places any other by its offset in `text`, so that
  /// which keys share a slot does not depend on where the input sits in memory.
  std::uintptr_t input_base = 0;
  /// Set while the tape is bounded and its value not yet all taped: the tokens end at an
  /// Op::refill token, and `feeder` writes the next ones.
  TapeFeeder* feeder = nullptr;
  void clear() noexcept {
    feeder = nullptr;
    tokens.clear();
    text.clear();
    values.clear();
    marks.clear();
    if (++generation == 0) {  // wrapped: entries of 2^32 values ago would count again
      if (key_memo) key_memo->fill(KeyMemo{});
      generation = 1;
    }
  }
  std::string_view text_of(const Token& t) const noexcept {
    return {t.in_input ? reinterpret_cast<const char*>(t.text) : text.data() + t.text, t.size};
  }
  /// The side Value of an Op::value token whose kind is not inline.
  const Value& side_value(const Token& t) const noexcept { return values[t.value]; }
  /// An Op::value token's value, as a Value.
  Value value_of(const Token& t) const {
    switch (t.kind) {
      case Kind::null:
        return Value();
      case Kind::boolean:
        return Value(t.integer != 0);
      case Kind::integer:
        return Value(t.integer);
      case Kind::floating:
        return Value(t.floating);
      default:
        return values[t.value];
    }
  }
  /// Makes `t` an Op::value token for `v`: held in the token when its kind fits, else kept in
  /// `values`.
  void put_value(Token& t, Value v) {
    t.op = Op::value;
    t.kind = v.kind();
    switch (t.kind) {
      case Kind::null:
        break;
      case Kind::boolean:
        t.integer = v.as_bool();
        break;
      case Kind::integer:
        t.integer = v.as_int();
        break;
      case Kind::floating:
        t.floating = v.as_double();
        break;
      default:
        t.value = values.size();
        values.push_back(std::move(v));
        break;
    }
  }
  /// Where token `i` starts, or Location::npos when the reader did not record it.
  std::size_t mark_of(std::size_t i) const noexcept {
    return i < marks.size() ? marks[i] : Location::npos;
  }
};

}  // namespace transit::detail
