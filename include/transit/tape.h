// SPDX-License-Identifier: Apache-2.0
// transit-cpp internals: the token tape between the Decoder and typed reads (see typed.h).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "transit/value.h"

namespace transit::detail {

/// What a token is. Scalars come as a Value (already decoded: `~:a` is a keyword, a cache
/// code is what it stands for) or, for plain strings, as text; containers as begin/end pairs.
enum class Op : std::uint8_t {
  value,
  text,
  array_begin,
  array_end,
  map_begin,     ///< a map's keys and values follow, interleaved
  map_end,
  tagged_begin,  ///< its tag is the token's text; its one rep follows
  tagged_end,
};

struct Token {
  Op op = Op::value;
  /// text: `text` is the address of bytes that the input holds for as long as the tape is
  /// bound (MessagePack in memory), not an offset into Tape::text.
  bool in_input = false;
  std::uint32_t size = 0;  ///< text: its length
  std::size_t text = 0;    ///< text: where it starts in Tape::text (or its address, in_input)
  std::size_t mark = 0;    ///< where its bytes start, as the reader counts (see Reader)
  Value value;             ///< Op::value
};

/// One top-level value as the Decoder resolved it, in reading order. Plain strings are copied
/// into one buffer, so that the tape costs no allocation per string, unless the input holds
/// them for as long as the tape is bound (see Token::in_input).
/// Which field of a Record (`owner`) a key's text named (see Cursor::remembered_field).
struct KeyMemo {
  const void* owner = nullptr;
  std::size_t text = 0;
  std::uint32_t size = 0;
  bool in_input = false;
  std::uint32_t field = 0;
  std::uint32_t generation = 0;  ///< the Tape::generation it was noted in
};

struct Tape {
  std::vector<Token> tokens;
  std::string text;
  /// Records' memory of keys, for the tapes that readers record (kept with the tape, so it
  /// is cleared once, not for every read); an entry counts only in the generation it was
  /// noted in, the value the tape holds now.
  static constexpr int kKeyMemoBits = 8;
  std::unique_ptr<std::array<KeyMemo, std::size_t{1} << kKeyMemoBits>> key_memo;
  std::uint32_t generation = 1;
  void clear() noexcept {
    tokens.clear();
    text.clear();
    if (++generation == 0) {  // wrapped: entries of 2^32 values ago would count again
      if (key_memo) key_memo->fill(KeyMemo{});
      generation = 1;
    }
  }
  std::string_view text_of(const Token& t) const noexcept {
    return {t.in_input ? reinterpret_cast<const char*>(t.text) : text.data() + t.text, t.size};
  }
};

}  // namespace transit::detail
