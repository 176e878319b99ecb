// SPDX-License-Identifier: Apache-2.0
// JSON and JSON-Verbose output, byte for byte what RapidJSON's Writer writes.
#include <rapidjson/internal/itoa.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>
#include <vector>

#include "backend.h"
#include "codec/codec.h"
#include "write/encoder.h"
#include "io/out_buffer.h"

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

// escape_json for the body of a prefixed string ("~:name", "~m..." instants): 1 to 16 bytes
// with nothing to escape, the most common, checked and copied as bytes or two overlapping
// words with no call; any other text goes to escape_json. Plain strings call escape_json
// directly: this path inlined there made JSON writes longer (keywords +1.8% instructions).
[[gnu::always_inline]] inline char* escape_json_inline(std::string_view s, char* p) noexcept {
  const char* in = s.data();
  const std::size_t n = s.size();
  if (n >= 8 && n <= 16) {
    const auto first = load<std::uint64_t>(in), last = load<std::uint64_t>(in + n - 8);
    if (!needs_escape(first) && !needs_escape(last)) {
      std::memcpy(p, &first, 8);
      std::memcpy(p + n - 8, &last, 8);
      return p + n;
    }
  } else if (n >= 4 && n < 8) {
    const auto first = load<std::uint32_t>(in), last = load<std::uint32_t>(in + n - 4);
    if (!needs_escape(first) && !needs_escape(last)) {
      std::memcpy(p, &first, 4);
      std::memcpy(p + n - 4, &last, 4);
      return p + n;
    }
  } else if (n - 1 < 3) {  // 1 to 3 bytes ("~:id"), each looked up
    const char a = in[0], b = in[n / 2], c = in[n - 1];
    if ((kEscapes[static_cast<unsigned char>(a)] | kEscapes[static_cast<unsigned char>(b)] |
         kEscapes[static_cast<unsigned char>(c)]) == 0) {
      p[0] = a;
      p[n / 2] = b;
      p[n - 1] = c;
      return p + n;
    }
  }
  return escape_json(s, p);
}

/// The encoder's backend for JSON. Each call writes one whole token straight into the output
/// buffer, with the separator before it, behind one bounds check: strings and numbers in one
/// pass (the escape scan runs 8 bytes at a time, a "~X" prefix is written with its text, text
/// known to need no escape, cache codes and base64, is copied), and the commas and colons from
/// one state byte per open container. The bytes are exactly those of RapidJSON's Writer
/// (`JsonWriterStrings.*`, `JsonWriterStructure.*`), which used to keep the structure and
/// cost a separate reserve for every separator.
class JsonEmitter {
 public:
  /// Text: WriteOptions::newline_after_value ends each value with a newline.
  static constexpr bool kNewlines = true;

  explicit JsonEmitter(OutBuffer& out) : out_(out) {}

  void null() { literal("null"); }
  void boolean(bool b) { literal(b ? std::string_view("true") : std::string_view("false")); }
  [[gnu::always_inline]] void integer(std::int64_t i) {
    char* p = begin_token(kMaxIntegerJson);
    auto u = static_cast<std::uint64_t>(i);
    if (i < 0) {
      *p++ = '-';
      u = 0 - u;
    }
    // RapidJSON's digit writers (what its Writer::Int64 runs), straight into the buffer; the
    // 32-bit one is shorter for the small numbers that most integers are.
    end_token(u <= UINT32_MAX ? rapidjson::internal::u32toa(static_cast<std::uint32_t>(u), p)
                              : rapidjson::internal::u64toa(u, p));
  }
  void floating(double d) { end_token(format_double_json_to(d, begin_token(kMaxDoubleJson))); }
  // Inline, as the containers' begin and end below: left to GCC's inliner, these went out of
  // line when the encoder grew elsewhere (keywords' JSON write +3.0% instructions).
  [[gnu::always_inline]] void string(std::string_view s) { text({}, s); }
  /// "~" + tag + body, escaped as one string. Inline where the encoder writes a keyword or a
  /// tag from its parts (out of line, its call and frame were a third of it): "~" and a tag
  /// that needs no escape (nearly always a letter or ':', '$', '#') are stored, and a body that
  /// is mostly a short name or number checked and copied with no call.
  [[gnu::always_inline]] void prefixed_string(char tag, std::string_view body) {
    if (kEscapes[static_cast<unsigned char>(tag)] != 0) [[unlikely]]
      return escaped_prefixed_string(tag, body);
    char* p = begin_token(6 * body.size() + 4);
    p[0] = '"';
    p[1] = '~';
    p[2] = tag;
    p = escape_json_inline(body, p + 3);
    *p++ = '"';
    end_token(p);
  }
  /// A cache code or "^ ": 2 or 3 chars, with a third readable (see Encoder::emit_code), copied
  /// as 3 bytes whatever the length.
  [[gnu::always_inline]] void cache_code(std::string_view s) {
    char* p = begin_token(5);
    *p = '"';
    std::memcpy(p + 1, s.data(), 3);
    p += 1 + s.size();
    *p++ = '"';
    end_token(p);
  }
  /// `"~b` + the base64 of `data` + `"`, encoded in place.
  void base64_string(std::span<const std::byte> data) {
    char* p = begin_token(4 + base64_length(data.size()));
    *p++ = '"';
    *p++ = '~';
    *p++ = 'b';
    p = base64_encode_to(data, p);
    *p++ = '"';
    end_token(p);
  }
  [[gnu::always_inline]] void array_begin(std::size_t) { open('[', kInArray); }
  [[gnu::always_inline]] void array_end() { close(']'); }
  [[gnu::always_inline]] void map_begin(std::size_t) { open('{', kBeforeKey); }
  [[gnu::always_inline]] void map_end() { close('}'); }

  /// Lets the next top-level value start: values follow one another with no separator (but
  /// the newline the writer may end each with), as RapidJSON's Writer, reset between them,
  /// wrote them.
  void next_root() noexcept {
    levels_.clear();
    state_ = kRoot;
    separator_ = 0;
  }

 private:
  // Where the next token goes: what it is preceded by, and what follows from it.
  enum State : std::uint8_t { kRoot, kInArray, kBeforeKey, kBeforeValue };
  // The separator after a token written in each state, and the state it leaves.
  static constexpr char kSeparatorAfter[] = {0, ',', ':', ','};
  static constexpr State kStateAfter[] = {kRoot, kInArray, kBeforeValue, kBeforeKey};
  static constexpr std::size_t kMaxIntegerJson = 20;  // "-9223372036854775808"

  /// Room for a token of up to `room` bytes after its separator; returns where it goes.
  [[gnu::always_inline]] char* begin_token(std::size_t room) {
    out_.Reserve(room + 1);
    char* p = out_.cursor();
    *p = separator_;  // overwritten by the token when there is no separator
    return p + (separator_ != 0);
  }
  [[gnu::always_inline]] void end_token(char* end) noexcept {
    out_.commit(end);
    separator_ = kSeparatorAfter[state_];
    state_ = kStateAfter[state_];
  }
  [[gnu::always_inline]] void literal(std::string_view word) {
    char* p = begin_token(5);
    std::memcpy(p, word.data(), 5);  // "true" and "null" copy the NUL after them: 5 bytes read
    end_token(p + word.size());
  }
  /// `"` + `head` + `text`, both escaped, + `"`.
  [[gnu::always_inline]] void text(std::string_view head, std::string_view text) {
    char* p = begin_token(6 * (head.size() + text.size()) + 2);
    *p++ = '"';
    p = escape_json(text, head.empty() ? p : escape_json(head, p));
    *p++ = '"';
    end_token(p);
  }
  /// prefixed_string of a tag that JSON escapes: a tag is any character, `"` and `\` included
  /// (the fuzzer found `~"` written bare).
  [[gnu::noinline]] void escaped_prefixed_string(char tag, std::string_view body) {
    const char head[] = {'~', tag};
    text({head, 2}, body);
  }
  [[gnu::always_inline]] void open(char bracket, State inside) {
    char* p = begin_token(1);
    *p = bracket;
    out_.commit(p + 1);
    levels_.push_back(state_);
    state_ = inside;
    separator_ = 0;
  }
  [[gnu::always_inline]] void close(char bracket) {
    out_.Reserve(1);
    char* p = out_.cursor();
    *p = bracket;
    state_ = levels_.back();
    levels_.pop_back();
    end_token(p + 1);
  }

  OutBuffer& out_;
  State state_ = kRoot;
  char separator_ = 0;        // written before the next token: ',' ':' or nothing
  std::vector<State> levels_;  // the state of each enclosing container
};

}  // namespace

std::unique_ptr<Writer::Impl> make_json_writer(Sink& sink, bool verbose,
                                               const WriteOptions& options) {
  return std::make_unique<BackendWriter<OutBuffer, JsonEmitter>>(
      sink, verbose ? Mode::verbose : Mode::json, options);
}

}  // namespace transit::detail
