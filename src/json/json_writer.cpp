// SPDX-License-Identifier: Apache-2.0
// JSON and JSON-Verbose output on RapidJSON's Writer.
#include <rapidjson/writer.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>

#include "backend.h"
#include "codec.h"
#include "encoder.h"
#include "out_buffer.h"

namespace rapidjson {
template <>
inline void PutReserve(transit::detail::OutBuffer& stream, size_t count) {
  stream.Reserve(count);
}
template <>
inline void PutUnsafe(transit::detail::OutBuffer& stream, char c) {
  stream.PutUnsafe(c);
}
}  // namespace rapidjson

namespace transit::detail {
namespace {

// What RapidJSON's Writer writes after a backslash for each byte, or 0 for a byte copied as it
// is: the same escapes, so that the bytes are exactly what Writer::String writes.
constexpr auto kEscapes = [] {
  std::array<char, 256> t{};
  for (int c = 0; c < 0x20; ++c) t[c] = 'u';
  t['\b'] = 'b';
  t['\t'] = 't';
  t['\n'] = 'n';
  t['\f'] = 'f';
  t['\r'] = 'r';
  t['"'] = '"';
  t['\\'] = '\\';
  return t;
}();

// Whether any byte of `w` (4 or 8 bytes) is below 0x20, '"' or '\\' (exact for "any"; see
// "Bit Twiddling Hacks", hasless and haszero).
template <class Word>
constexpr bool needs_escape(Word w) noexcept {
  constexpr Word ones = static_cast<Word>(0x0101010101010101ULL);
  constexpr Word high = static_cast<Word>(0x8080808080808080ULL);
  const auto has_zero = [](Word x) { return static_cast<Word>((x - ones) & ~x & high); };
  return static_cast<Word>(((w - ones * 0x20) & ~w & high) | has_zero(w ^ (ones * '"')) |
                           has_zero(w ^ (ones * '\\'))) != 0;
}

template <class Word>
Word load(const char* p) noexcept {
  Word w;
  std::memcpy(&w, p, sizeof w);
  return w;
}

inline char* escape_byte(char c, char* p) noexcept {
  const char e = kEscapes[static_cast<unsigned char>(c)];
  if (e == 0) {
    *p++ = c;
    return p;
  }
  *p++ = '\\';
  *p++ = e;
  if (e == 'u') {
    static constexpr char kHex[] = "0123456789ABCDEF";
    *p++ = '0';
    *p++ = '0';
    *p++ = kHex[static_cast<unsigned char>(c) >> 4];
    *p++ = kHex[static_cast<unsigned char>(c) & 15];
  }
  return p;
}

// Escapes `s` at `p` (room for 6 bytes per byte). Text with nothing to escape, the common
// case, is checked and copied a word at a time, its last partial word as a whole word that
// overlaps the one before; text of 4 to 7 bytes as two overlapping 4-byte words. Anything else
// goes byte by byte from the first word that needs it.
char* escape_json(std::string_view s, char* p) noexcept {
  const char* in = s.data();
  const std::size_t n = s.size();
  std::size_t i = 0;
  if (n >= 8) {
    for (; i + 8 <= n; i += 8) {
      if (needs_escape(load<std::uint64_t>(in + i))) break;
      std::memcpy(p + i, in + i, 8);
    }
    if (i == n) return p + n;
    if (i + 8 > n && !needs_escape(load<std::uint64_t>(in + n - 8))) {
      std::memcpy(p + n - 8, in + n - 8, 8);
      return p + n;
    }
  } else if (n >= 4) {
    const auto first = load<std::uint32_t>(in), last = load<std::uint32_t>(in + n - 4);
    if (!needs_escape(first) && !needs_escape(last)) {
      std::memcpy(p, &first, 4);
      std::memcpy(p + n - 4, &last, 4);
      return p + n;
    }
  }
  p += i;
  for (; i != n; ++i) p = escape_byte(in[i], p);
  return p;
}

/// RapidJSON's Writer keeps the structure (commas, colons, nesting); strings and numbers are
/// written here straight into the buffer, each in one pass: the escape scan runs 8 bytes at a
/// time, a "~X" prefix is written with its text, and text known to need no escape (cache
/// codes, base64) is copied.
class JsonWriter : public rapidjson::Writer<OutBuffer> {
 public:
  using rapidjson::Writer<OutBuffer>::Writer;

  /// `"` + `head` + `text`, both escaped, + `"`. The head ("~" and a tag) needs escaping too:
  /// a tag is any character, `"` and `\` included (the fuzzer found `~"` written bare).
  void text(std::string_view head, std::string_view text) {
    char* p = begin_string(6 * (head.size() + text.size()));
    end_string(escape_json(text, escape_json(head, p)));
  }
  /// A cache code or "^ ": 2 or 3 chars, with a third readable (see emit_code), copied as
  /// 3 bytes whatever the length.
  void code(std::string_view s) {
    char* p = begin_string(3);
    std::memcpy(p, s.data(), 3);
    end_string(p + s.size());
  }
  /// `"~b` + the base64 of `data` + `"`, encoded in place.
  void base64(std::span<const std::byte> data) {
    char* p = begin_string(2 + base64_length(data.size()));
    *p++ = '~';
    *p++ = 'b';
    end_string(base64_encode_to(data, p));
  }
  void number(double d) {
    Prefix(rapidjson::kNumberType);
    os_->Reserve(kMaxDoubleJson);
    os_->commit(format_double_json_to(d, os_->cursor()));
    EndValue(true);
  }

 private:
  char* begin_string(std::size_t room) {
    Prefix(rapidjson::kStringType);
    os_->Reserve(room + 2);
    char* p = os_->cursor();
    *p = '"';
    return p + 1;
  }
  void end_string(char* p) {
    *p++ = '"';
    os_->commit(p);
    EndValue(true);
  }
};

/// The encoder's backend for JSON: RapidJSON handles structure, strings are escaped as its
/// Writer escapes them, doubles are printed with the shortest round-trip digits.
class JsonEmitter {
 public:
  explicit JsonEmitter(OutBuffer& out) : out_(out), writer_(out) {}

  void null() { writer_.Null(); }
  void boolean(bool b) { writer_.Bool(b); }
  void integer(std::int64_t i) { writer_.Int64(i); }
  void floating(double d) { writer_.number(d); }
  void string(std::string_view s) { writer_.text({}, s); }
  /// "~" + tag + body, escaped as one string.
  void prefixed_string(char tag, std::string_view body) {
    const char head[] = {'~', tag};
    writer_.text({head, 2}, body);
  }
  /// A cache code or "^ " (see Encoder::emit_code).
  void cache_code(std::string_view s) { writer_.code(s); }
  void base64_string(std::span<const std::byte> data) { writer_.base64(data); }
  void array_begin(std::size_t) { writer_.StartArray(); }
  void array_end() { writer_.EndArray(); }
  void map_begin(std::size_t) { writer_.StartObject(); }
  void map_end() { writer_.EndObject(); }

  /// Lets the next top-level value start.
  void next_root() { writer_.Reset(out_); }

 private:
  OutBuffer& out_;
  JsonWriter writer_;
};

}  // namespace

std::unique_ptr<Writer::Impl> make_json_writer(Sink& sink, bool verbose,
                                               const WriteOptions& options) {
  return std::make_unique<BackendWriter<OutBuffer, JsonEmitter>>(
      sink, verbose ? Mode::verbose : Mode::json, options);
}

}  // namespace transit::detail
