// SPDX-License-Identifier: Apache-2.0
// Text codecs shared by the encoder, the decoder and the EDN printer: `~X` strings, base64,
// UUIDs, ISO-8601 instants, UTF-8 and number formatting. Internal; not installed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <typeinfo>

#include "codec/base64_simd.h"
#include "transit/value.h"

namespace transit::detail {

// ---- `~X` strings -------------------------------------------------------------------------------

/// Whether a value is written as a single string or scalar (its Transit tag is one character).
/// Such values are quoted at top level, and a map whose keys are all like this is written as a
/// map rather than a cmap. User objects are decided by their handler (see Encoder); from_value,
/// which has no registry, takes them as composite (see tape_from_value).
inline bool writes_as_scalar(const Value& v) noexcept {
  switch (v.kind()) {
    case Kind::array:
    case Kind::list:
    case Kind::set:
    case Kind::map:
    case Kind::link:
    case Kind::object:
      return false;
    case Kind::tagged: {
      const std::string_view tag = v.tag();
      return tag.size() == 1 && string_tag_char(tag[0]) && v.rep().kind() == Kind::string;
    }
    default:
      return true;
  }
}

/// Whether a plain string must be written with a `~` before it: one starting with `~`, `^` or
/// backquote would be read as a tag, a cache code or a reserved prefix.
inline bool needs_escape(std::string_view s) noexcept {
  return !s.empty() && (s[0] == '~' || s[0] == '^' || s[0] == '`');
}

// ---- base64 (RFC 4648, standard alphabet, padded) ----------------------------------------------

/// Appends the base64 of `data` to `out`, with padding and without line breaks.
void base64_encode(std::span<const std::byte> data, std::string& out);
/// The base64 length of `size` bytes.
constexpr std::size_t base64_length(std::size_t size) noexcept { return (size + 2) / 3 * 4; }
/// Writes the base64 of `data` at `out` (room for base64_length(data.size()) chars) and
/// returns the end: for writers that encode straight into their output buffer.
char* base64_encode_to(std::span<const std::byte> data, char* out) noexcept;
/// Decodes base64, skipping ASCII whitespace (peers that wrap lines are read too). Padding is
/// optional at the very end. Returns nullopt on any other character or a bad length.
std::optional<std::string> base64_decode(std::string_view text);
/// The bytes that base64 `text` decodes to when it is in the plain form every Transit writer
/// emits: no whitespace, padded to a multiple of 4 chars or not padded at all; else
/// kNotPlainBase64 (base64_decode then decides).
inline constexpr std::size_t kNotPlainBase64 = static_cast<std::size_t>(-1);
std::size_t base64_plain_size(std::string_view text) noexcept;
/// The chars of plain base64 `text` before its padding, or kNotPlainBase64; and the bytes so
/// many plain chars decode to. base64_plain_size is the two in one.
constexpr std::size_t base64_plain_chars(std::string_view text) noexcept {
  std::size_t n = text.size();
  if (n % 4 == 0) {
    // Padded (or a multiple of 4 with no padding needed): one or two '=' at the very end.
    if (n != 0 && text[n - 1] == '=') --n;
    if (n % 4 == 3 && text[n - 1] == '=') --n;
  }
  // One char left over holds fewer than 8 bits: not base64 (base64_decode says so).
  return n % 4 == 1 ? kNotPlainBase64 : n;
}
constexpr std::size_t base64_plain_bytes(std::size_t chars) noexcept {
  return chars / 4 * 3 + (chars % 4 == 0 ? 0 : chars % 4 - 1);
}
/// Decodes plain base64 (base64_plain_size(text) is not kNotPlainBase64) into exactly that
/// many bytes at `out` (writing nowhere else), four chars to three bytes a step through
/// tables, with no test per char: bad chars are found once, at the end. False on any char
/// outside the alphabet (whitespace included), and then the bytes written mean nothing.
/// Accepts what base64_decode accepts of text with no whitespace, and gives the same bytes.
/// On x86-64 the kernel is chosen once, at run time: with AVX-512 VBMI both base64_encode_to
/// and this take the whole text 48 bytes / 64 chars a step; else with AVX2 blocks of 24 bytes /
/// 32 chars, the rest left to the scalar code.
bool base64_decode_plain(std::string_view text, char* out) noexcept;
/// base64_decode_plain of the first `chars` of a text, base64_plain_chars(text): for a caller
/// that sized its output from them, so that the padding is not looked for twice.
bool base64_decode_plain_chars(const char* text, std::size_t chars, char* out) noexcept;
/// The most bytes `size` chars of base64 decode to: base64_plain_bytes with no padding.
constexpr std::size_t base64_room(std::size_t size) noexcept { return base64_plain_bytes(size); }
/// base64_decode_plain of all of `text` into `out`, which has room for base64_room(text.size())
/// bytes; returns the bytes written, or kNotPlainBase64 where base64_plain_size returns it or
/// base64_decode_plain false. The padding is looked for last, after the groups before it are
/// decoded: for a decoder that would otherwise wait on a load of the text's end first.
std::size_t base64_decode_plain_to(std::string_view text, char* out) noexcept;
/// The base64 kernels. base64_encode_to and base64_decode_plain run the one
/// base64_kernel_name() names; the tests and the benchmarks run each the CPU has.
inline constexpr Base64Kernel kBase64Kernels[] = {Base64Kernel::scalar, Base64Kernel::avx2,
                                                  Base64Kernel::vbmi};
/// Whether this CPU (and OS) runs `kernel`; scalar always.
bool base64_kernel_available(Base64Kernel kernel) noexcept;
/// "scalar", "avx2" or "vbmi".
std::string_view base64_kernel_name(Base64Kernel kernel) noexcept;
/// The kernel base64_encode_to and base64_decode_plain run on this CPU.
std::string_view base64_kernel_name() noexcept;
/// base64_encode_to and base64_decode_plain with `kernel`, which must be available: each
/// kernel gives exactly what the scalar one gives (the tests compare them).
char* base64_encode_to(Base64Kernel kernel, std::span<const std::byte> data, char* out) noexcept;
bool base64_decode_plain(Base64Kernel kernel, std::string_view text, char* out) noexcept;
/// The scalar code alone, as every CPU runs it.
char* base64_encode_to_scalar(std::span<const std::byte> data, char* out) noexcept;
bool base64_decode_plain_scalar(std::string_view text, char* out) noexcept;

// ---- UUID --------------------------------------------------------------------------------------

/// Appends the canonical 36-character lowercase form, e.g. 5a2cbea3-e8c6-428b-b525-21239370dd55.
void format_uuid(Uuid u, std::string& out);
/// The same 36 chars (kUuidText) written at `out`; returns the end.
inline constexpr std::size_t kUuidText = 36;
char* format_uuid_to(Uuid u, char* out) noexcept;
/// Parses the canonical 8-4-4-4-12 hex form (either case). nullopt otherwise.
std::optional<Uuid> parse_uuid(std::string_view text);

// ---- instants ----------------------------------------------------------------------------------

/// Appends `yyyy-MM-ddTHH:mm:ss.SSSZ` (UTC) for ms since the epoch; years outside 0000..9999
/// are written with a sign and at least four digits as ISO 8601 allows.
void format_instant(std::int64_t ms, std::string& out);
/// As format_instant but with Clojure's `-00:00` suffix instead of `Z` (for EDN `#inst`).
void format_instant_edn(std::int64_t ms, std::string& out);
/// Parses ISO 8601 / RFC 3339 date-times: `yyyy-MM-ddTHH:mm[:ss[.fraction]]` followed by `Z`,
/// `+hh:mm`, `-hh:mm` or `+hhmm`; a date alone (`yyyy-MM-dd`) is midnight UTC. Fractions beyond
/// milliseconds are truncated. Sets `out` to ms since the epoch; false (`out` left alone) when
/// it does not parse or the fields are out of range.
bool parse_instant(std::string_view text, std::int64_t& out);
/// parse_instant as an optional; nullopt when it does not parse. Inline, as parse_int64's.
inline std::optional<std::int64_t> parse_instant(std::string_view text) {
  std::int64_t ms;
  if (!parse_instant(text, ms)) return std::nullopt;
  return ms;
}

// ---- UTF-8 -------------------------------------------------------------------------------------

/// True when `s` is well-formed UTF-8 (no overlongs, no surrogates, nothing above U+10FFFF).
bool is_valid_utf8(std::string_view s) noexcept;
/// is_valid_utf8 by its scalar loop alone, at any length: what its vector kernels (simdjson's,
/// utf8_simd.h's) must agree with.
bool is_valid_utf8_scalar(std::string_view s) noexcept;
/// Throws Error(invalid_utf8) for `s`, which is not valid UTF-8, saying why when its first
/// fault is a UTF-16 surrogate's three bytes (U+D800-U+DFFF, which UTF-8 does not encode):
/// what JSON's lone `\udc00` escape decodes to (`json`: named as such), or a peer's CESU-8
/// (Java's modified UTF-8 writes each half of a pair so). Any other fault: "string is not
/// valid UTF-8". Out of line and cold: the readers call it only on text they refuse.
[[noreturn, gnu::cold]] void throw_invalid_utf8(std::string_view s, bool json);
/// Whether `s[0, n)` is ASCII, for n up to 16, in at most two overlapping loads (none outside
/// the text): map keys, keywords and cache codes mostly are, and an out-of-line UTF-8 check per
/// string cost the readers more than them (MessagePack's, and JSON's from RapidJSON's events).
/// False for longer text, which is_ascii_17_to_64 or is_valid_utf8 checks.
inline bool is_short_ascii(const char* s, std::size_t n) noexcept {
  if (n > 16) return false;
  std::uint64_t high_bits = 0;
  if (n >= 8) {
    std::uint64_t first, last;
    std::memcpy(&first, s, 8);
    std::memcpy(&last, s + n - 8, 8);
    high_bits = (first | last) & 0x8080808080808080ULL;
  } else if (n >= 4) {
    std::uint32_t first, last;
    std::memcpy(&first, s, 4);
    std::memcpy(&last, s + n - 4, 4);
    high_bits = (first | last) & 0x80808080U;
  } else if (n != 0) {
    // 1 to 3 bytes: the first, middle and last cover them all, with no loop.
    high_bits = (static_cast<unsigned char>(s[0]) | static_cast<unsigned char>(s[n / 2]) |
                 static_cast<unsigned char>(s[n - 1])) & 0x80U;
  }
  return high_bits == 0;
}

/// is_short_ascii() for 17 to 64 bytes, with no loop: overlapping 8-byte loads, four up to 32
/// bytes, eight past that. False for other lengths. Text this long (keywords' and twitter's
/// values) went to is_valid_utf8, whose word loop and byte tail cost a mispredicted exit or
/// two per string (callgrind's model: 24,000 a MessagePack read of keywords).
inline bool is_ascii_17_to_64(const char* s, std::size_t n) noexcept {
  if (n - 17 > 64 - 17) return false;
  const auto word = [s](std::size_t at) {
    std::uint64_t w;
    std::memcpy(&w, s + at, 8);
    return w;
  };
  std::uint64_t bits = word(0) | word(8) | word(n - 16) | word(n - 8);
  if (n > 32) bits |= word(16) | word(24) | word(n - 32) | word(n - 24);
  return (bits & 0x8080808080808080ULL) == 0;
}

/// Number of UTF-16 code units `s` would take (Java's and JavaScript's String.length);
/// `s` is valid UTF-8.
std::size_t utf16_length(std::string_view s) noexcept;
/// The single code point `s` holds, or nullopt when `s` is not exactly one valid code point.
std::optional<char32_t> decode_one_code_point(std::string_view s) noexcept;
/// Appends the UTF-8 encoding of a valid code point.
void append_utf8(char32_t c, std::string& out);

/// The largest n' <= n that does not split a UTF-8 sequence of `s` (n <= s.size()).
inline std::size_t utf8_floor(std::string_view s, std::size_t n) noexcept {
  while (n > 0 && n < s.size() && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  return n;
}

/// `s` when it has at most `max` bytes; else its start and end, about `max` bytes in all, with
/// an ellipsis and the number of bytes left out between them. For messages that must stay
/// short (error paths and details) whatever the input put in them.
std::string elide_middle(std::string_view s, std::size_t max);

// ---- tags --------------------------------------------------------------------------------------

/// Whether `tag` (the text after `~#`, already valid UTF-8) may name a tagged value: it is not
/// empty and holds no ASCII whitespace or control character (bytes 0x00-0x20 and 0x7F). Every
/// other character is allowed, as the reference implementations allow any text.
inline bool is_valid_tag(std::string_view tag) noexcept {
  if (tag.empty()) return false;
  for (const char c : tag) {
    const auto u = static_cast<unsigned char>(c);
    if (u <= 0x20 || u == 0x7f) return false;
  }
  return true;
}

/// Whether `tag` is one of the one-character tags the spec gives a meaning of its own (`c` a
/// character, `u` a UUID, `:` a keyword ...) or keeps for the format (`~`, `^`, `#`, `` ` ``): an
/// object written under it would be read back as that, never as the user's type. The ground
/// tags that say only "write the rep as it is" (_ ? i d s) are not among them.
inline bool is_builtin_tag(std::string_view tag) noexcept {
  return tag.size() == 1 && std::string_view(":$mturcfnzb'~^#`").find(tag[0]) != std::string_view::npos;
}

/// Why a user type's write handler may not write under `tag`, for an error message that names
/// the handler first: not a tag any reader reads (is_valid_tag), or a built-in one
/// (is_builtin_tag). Null when it may.
const char* user_tag_fault(std::string_view tag) noexcept;

/// Handler tags whose representation is written as that ground type itself (the rep's own
/// type decides its form), as transit-java does: nil, boolean, integer, double, string, array
/// and map.
inline bool is_direct_tag(std::string_view tag) noexcept {
  return tag == "_" || tag == "?" || tag == "i" || tag == "d" || tag == "s" || tag == "array" ||
         tag == "map";
}

struct ErasedHandler;  // transit/registry.h
/// A handler, for messages: "the write handler for `type`", or the default handler's (which has
/// no type of its own: `type`, when given, is the object's), "the default write handler".
std::string handler_named(const std::type_info* type, bool by_default);
enum class RepForm : std::uint8_t;
enum class RepCheck : std::uint8_t;
struct RepShape;
class ObjectEncoder;   // transit/write_handlers.h
/// The tag that a handler's `tag` function (ErasedHandler::tag_of) gives `obj`, an object of
/// `type`. Refused as the registry refuses a fixed tag (RegistryBuilder::add_erased) when no
/// reader would read it back as the user's type: written, it would be output this library's own
/// reader rejects, or that reads as a UUID, a keyword ... In registry.cpp: out of line, so that
/// its check and message change none of the code GCC inlines into an encoder (in the class,
/// they moved MsgpackEmitter's calls: the MessagePack writes 1.4-4.0% more instructions).
std::string tag_of_object(const ErasedHandler& h, const std::type_info& type, const void* obj);
/// JSON-Verbose's form of `obj`, written under `tag` by a handler with a verbose rep, as
/// transit-java's verbose handlers write it: the verbose rep wherever the rep would go (see
/// Handler::verbose_rep). In registry.cpp, for the reason tag_of_object is: in the encoder it
/// cost the MessagePack writes of Value trees, which never come here, 0.7%-1.7%.
/// How deep objects written as their reps (is_direct_tag) are nested, and how deep they may.
struct DirectDepth {
  std::size_t open = 0;
  std::size_t max;
};
/// Writes `obj` as its handler's rep (is_direct_tag), its verbose rep in JSON-Verbose (`verbose`). Such an
/// object puts no array or map of its own around its rep, so the wire's depth does not see a
/// rep that is such an object again, and one that never ended (a handler returning its own
/// object) overflowed the stack: they nest at most `depth.max` deep (WriteOptions::max_depth),
/// counted apart from the wire's levels, or Error(too_deep). In registry.cpp, for the reason
/// tag_of_object is.
void write_direct_object(ObjectEncoder& e, const ErasedHandler& h, const std::type_info& type, const void* obj,
                         bool as_key, bool verbose, DirectDepth& depth);
void write_verbose_object(ObjectEncoder& e, const ErasedHandler& h, const std::string& tag,
                          const void* obj, bool as_key);
/// The end of Encoder::object() for a typed default handler (write_typed_rep), told the
/// object's type: its string form under a one-character tag (`"~X" + rep`), else
/// `["~#tag", rep]`. Out of line, in registry.cpp, as write_verbose_object: in the encoder's
/// template it moved GCC's inlining of the Value writes (MessagePack's up to 3.3% more).
void write_typed_default_object(ObjectEncoder& e, const ErasedHandler& h, const std::type_info& type,
                                const std::string& tag, const void* obj, bool as_key);
/// What the writer must check of a rep of `form` written under `tag` (RepCheck::none when the
/// form is the one the tag needs, or the tag needs none). A form that cannot be the one the tag
/// needs (`set` of a scalar rep) throws Error(`code`) naming the handler (handler_named):
/// invalid_argument when the handler is registered, bad_rep when a handler's tag function gives
/// the tag.
RepCheck rep_check_for(std::string_view tag, RepForm form, const std::type_info* type, bool by_default,
                       Errc code);
/// The form an object whose handler is `h` is written in, in JSON-Verbose when `verbose`.
RepForm form_of_object(const ErasedHandler& h, const std::type_info& type, const void* obj, bool verbose);
/// Throws Error(bad_rep) unless a rep of `shape` passes `check`; `type` and `tag` are the
/// object's whose rep it is, written by the default handler when `by_default`.
void check_rep_shape(RepCheck check, RepShape shape, const std::type_info& type, bool by_default,
                     std::string_view tag);

// ---- numbers -----------------------------------------------------------------------------------

/// Appends the shortest text that reads back as exactly `d` and that a JSON reader reads as a
/// floating-point number (it always holds '.', 'e' or 'E'), never with more significant digits
/// than the shortest round trip needs (`-1.152921504606847e+18`, not the exact integer). `d` is
/// finite.
void format_double_json(double d, std::string& out);
/// The same text written at `out`, which has room for kMaxDoubleJson chars; returns the end.
inline constexpr std::size_t kMaxDoubleJson = 32;
char* format_double_json_to(double d, char* out) noexcept;
/// Appends `d` as Java's Double.toString (and so Clojure) prints it: `2.0`, `4.0E11`,
/// `6.626E-34`, `NaN`, `Infinity`, `-Infinity`, with the shortest round-trip digits.
void format_double_java(double d, std::string& out);
/// Parses a decimal floating-point text (JSON number syntax, plus `Infinity`-free Java forms
/// such as `1.` or `.5`) correctly rounded. Overflow gives +-infinity. nullopt on bad syntax.
std::optional<double> parse_double(std::string_view text) noexcept;
/// Parses an optionally signed decimal integer that fits int64 into `out`. False (`out` left
/// alone) on overflow or bad syntax.
bool parse_int64(std::string_view text, std::int64_t& out) noexcept;
/// parse_int64 as an optional; nullopt on overflow or bad syntax. Inline: returned from the
/// compiled function, the optional was stored as a word and a byte and loaded back as two
/// words, a load that waits for the byte's store (a third of parse_int64's time in a profile
/// of extensions JSON, its `~m` instants).
inline std::optional<std::int64_t> parse_int64(std::string_view text) noexcept {
  std::int64_t v;
  if (!parse_int64(text, v)) return std::nullopt;
  return v;
}
/// True when `text` is an optional '-' followed by one or more ASCII digits.
bool is_integer_text(std::string_view text) noexcept;
/// True when `text` is a decimal number as Java's BigDecimal(String) accepts it.
bool is_decimal_text(std::string_view text) noexcept;

}  // namespace transit::detail
