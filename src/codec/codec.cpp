// SPDX-License-Identifier: Apache-2.0
// Text codecs: base64, UUIDs, ISO-8601 instants, UTF-8 and number formatting. These run once per
// value on both the read and the write path, so they work on raw buffers and allocate nothing
// but their output.
#include "codec/codec.h"

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <system_error>

#include "codec/base64_simd.h"
#include "codec/cpu.h"
#include "codec/utf8_simd.h"

#if defined(__SSE2__) && defined(__x86_64__)
#include <emmintrin.h>
#endif

#ifdef TRANSIT_HAVE_SIMDJSON
#include <simdjson.h>
#endif

namespace transit::detail {
namespace {

constexpr bool is_digit(char c) noexcept { return c >= '0' && c <= '9'; }

constexpr int hex_value(char c) noexcept {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// hex_value of every byte, 0xFF for a byte that is no hex digit.
constexpr auto kHexDigit = [] {
  std::array<std::uint8_t, 256> t{};
  for (int c = 0; c < 256; ++c) {
    const int v = hex_value(static_cast<char>(c));
    t[static_cast<std::size_t>(c)] = static_cast<std::uint8_t>(v < 0 ? 0xFF : v);
  }
  return t;
}();

// ---- base64 ------------------------------------------------------------------------------------

constexpr char kBase64Alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

// Sextet value of every byte, or one of these markers.
constexpr std::uint8_t kBad = 0xFF, kSpace = 0xFE, kPad = 0xFD;
constexpr auto kBase64Values = [] {
  std::array<std::uint8_t, 256> t{};
  t.fill(kBad);
  for (std::uint8_t i = 0; i < 64; ++i) t[static_cast<unsigned char>(kBase64Alphabet[i])] = i;
  for (char c : {' ', '\t', '\n', '\r', '\f', '\v'}) t[static_cast<unsigned char>(c)] = kSpace;
  t['='] = kPad;
  return t;
}();

// ---- instants ----------------------------------------------------------------------------------

constexpr std::int64_t kMsPerDay = 86'400'000;

struct Civil {
  std::int64_t year;
  unsigned month;
  unsigned day;
};

// Howard Hinnant's proleptic Gregorian conversions; exact for every int64 day count we meet.
constexpr Civil civil_from_days(std::int64_t z) noexcept {
  z += 719468;
  const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const auto doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  const unsigned day = doy - (153 * mp + 2) / 5 + 1;
  const unsigned month = mp < 10 ? mp + 3 : mp - 9;
  return {static_cast<std::int64_t>(yoe) + era * 400 + (month <= 2 ? 1 : 0), month, day};
}

constexpr std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) noexcept {
  y -= m <= 2 ? 1 : 0;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

constexpr unsigned days_in_month(std::int64_t y, unsigned m) noexcept {
  constexpr unsigned kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
  return m == 2 && leap ? 29 : kDays[m - 1];
}

char* put_digits(char* p, unsigned v, int width) noexcept {
  for (int i = width - 1; i >= 0; --i) {
    p[i] = static_cast<char>('0' + v % 10);
    v /= 10;
  }
  return p + width;
}

void append_instant(std::int64_t ms, std::string_view zone, std::string& out) {
  std::int64_t days = ms / kMsPerDay;
  std::int64_t rem = ms % kMsPerDay;
  if (rem < 0) {
    rem += kMsPerDay;
    --days;
  }
  const Civil c = civil_from_days(days);
  char buf[48];
  char* p = buf;
  // Four digits at least; a year past 9999 with all its digits and no sign, as transit-java
  // writes it (SimpleDateFormat's "yyyy") and reads it (XML Schema's dateTime, which allows no
  // `+`: ISO 8601's expanded `+10000` is unreadable there); a year before 0 with its `-`.
  // Years 0 to 9999 take one test.
  if (static_cast<std::uint64_t>(c.year) < 10000) {
    p = put_digits(p, static_cast<unsigned>(c.year), 4);
  } else {
    if (c.year < 0) *p++ = '-';
    const std::uint64_t year = c.year < 0 ? 0 - static_cast<std::uint64_t>(c.year)
                                          : static_cast<std::uint64_t>(c.year);
    p = year < 10000 ? put_digits(p, static_cast<unsigned>(year), 4)
                     : std::to_chars(p, buf + sizeof buf, year).ptr;
  }
  const auto tod = static_cast<unsigned>(rem);
  *p++ = '-';
  p = put_digits(p, c.month, 2);
  *p++ = '-';
  p = put_digits(p, c.day, 2);
  *p++ = 'T';
  p = put_digits(p, tod / 3'600'000, 2);
  *p++ = ':';
  p = put_digits(p, tod / 60'000 % 60, 2);
  *p++ = ':';
  p = put_digits(p, tod / 1000 % 60, 2);
  *p++ = '.';
  p = put_digits(p, tod % 1000, 3);
  out.append(buf, p);
  out.append(zone);
}

// A cursor over instant text; every read returns false when the expected field is not there.
struct Scanner {
  std::string_view s;
  std::size_t i = 0;

  bool at_end() const noexcept { return i == s.size(); }
  bool peek(char c) const noexcept { return i < s.size() && s[i] == c; }
  bool eat(char c) noexcept {
    if (!peek(c)) return false;
    ++i;
    return true;
  }
  // Exactly `n` digits.
  bool fixed(int n, unsigned& v) noexcept {
    if (s.size() - i < static_cast<std::size_t>(n)) return false;
    v = 0;
    for (int k = 0; k < n; ++k) {
      const char c = s[i + static_cast<std::size_t>(k)];
      if (!is_digit(c)) return false;
      v = v * 10 + static_cast<unsigned>(c - '0');
    }
    i += static_cast<std::size_t>(n);
    return true;
  }
};

// acc += v unless that overflows.
bool checked_add(std::int64_t& acc, std::int64_t v) noexcept {
  if ((v > 0 && acc > std::numeric_limits<std::int64_t>::max() - v) ||
      (v < 0 && acc < std::numeric_limits<std::int64_t>::min() - v))
    return false;
  acc += v;
  return true;
}

// ---- UTF-8 -------------------------------------------------------------------------------------

// Decodes the sequence at p (avail > 0 bytes) per Unicode's table of well-formed byte
// sequences; returns its length, or 0 when it is ill-formed or truncated.
std::size_t decode_utf8(const unsigned char* p, std::size_t avail, char32_t& cp) noexcept {
  const unsigned b0 = p[0];
  if (b0 < 0x80) {
    cp = b0;
    return 1;
  }
  std::size_t len;
  unsigned lo = 0x80, hi = 0xBF;  // allowed range of the second byte
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    len = 2;
    cp = b0 & 0x1F;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    len = 3;
    cp = b0 & 0x0F;
    if (b0 == 0xE0) lo = 0xA0;  // overlong
    if (b0 == 0xED) hi = 0x9F;  // surrogates
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    len = 4;
    cp = b0 & 0x07;
    if (b0 == 0xF0) lo = 0x90;  // overlong
    if (b0 == 0xF4) hi = 0x8F;  // above U+10FFFF
  } else {
    return 0;
  }
  if (avail < len) return 0;
  if (p[1] < lo || p[1] > hi) return 0;
  for (std::size_t k = 1; k < len; ++k) {
    if ((p[k] & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (p[k] & 0x3F);
  }
  return len;
}

// ---- numbers -----------------------------------------------------------------------------------

// Shortest round-trip digits of a finite non-zero double: `digits` without sign, point or
// trailing zeros, and the decimal exponent of the first digit.
struct Decimal {
  char digits[20];
  int count;
  int exponent;
};

// Splits to_chars' scientific output `[-]d[.ddd]e[+-]xx`.
Decimal split_scientific(const char* first, const char* last) noexcept {
  Decimal dec{};
  const char* p = first;
  if (*p == '-') ++p;
  for (; *p != 'e'; ++p)
    if (*p != '.') dec.digits[dec.count++] = *p;
  while (dec.count > 1 && dec.digits[dec.count - 1] == '0') --dec.count;
  std::from_chars(p + (p[1] == '+' ? 2 : 1), last, dec.exponent);
  return dec;
}

Decimal java_digits(double d) noexcept {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific);
  Decimal dec = split_scientific(buf, r.ptr);
  if (dec.count == 1) {
    // Java always prints two significant digits (`d.d`) and, when one digit would do, picks the
    // two-digit decimal closest to the value: Double.MIN_VALUE is 4.9E-324, not 5.0E-324.
    char two[32];
    const auto r2 = std::to_chars(two, two + sizeof two, d, std::chars_format::scientific, 1);
    double back = 0;
    std::from_chars(two, r2.ptr, back);
    if (back == d) dec = split_scientific(two, r2.ptr);
  }
  return dec;
}

}  // namespace

// ---- base64 ------------------------------------------------------------------------------------

// Two base64 characters for every 12 bits: half the table lookups of one per 6 bits.
constexpr auto kBase64Pairs = [] {
  std::array<char, 2 * 4096> t{};
  for (std::size_t i = 0; i < 4096; ++i) {
    t[2 * i] = kBase64Alphabet[i >> 6];
    t[2 * i + 1] = kBase64Alphabet[i & 63];
  }
  return t;
}();

char* base64_encode_to_scalar(std::span<const std::byte> data, char* p) noexcept {
  const auto at = [&](std::size_t k) { return static_cast<std::uint32_t>(data[k]); };
  std::size_t i = 0;
  for (; i + 3 <= data.size(); i += 3) {
    const std::uint32_t n = (at(i) << 16) | (at(i + 1) << 8) | at(i + 2);
    std::memcpy(p, &kBase64Pairs[2 * (n >> 12)], 2);
    std::memcpy(p + 2, &kBase64Pairs[2 * (n & 4095)], 2);
    p += 4;
  }
  if (const std::size_t rest = data.size() - i; rest != 0) {
    const std::uint32_t n = (at(i) << 16) | (rest == 2 ? at(i + 1) << 8 : 0);
    p[0] = kBase64Alphabet[n >> 18];
    p[1] = kBase64Alphabet[(n >> 12) & 63];
    p[2] = rest == 2 ? kBase64Alphabet[(n >> 6) & 63] : '=';
    p[3] = '=';
    p += 4;
  }
  return p;
}

namespace {

// `data` encoded by `kernel`; inlined into both entry points, so that the dispatched one makes
// no second call.
[[gnu::always_inline]] inline char* encode_with(Base64Kernel kernel,
                                                std::span<const std::byte> data,
                                                char* p) noexcept {
#if defined(__x86_64__)
  // The AVX2 kernel for blocks of 24 bytes, the scalar code for the rest (under 28). Asked
  // first, the size before the kernel, as before VBMI: under valgrind (no AVX-512) the
  // dispatch costs what it cost then.
  if (data.size() >= 28 && kernel == Base64Kernel::avx2) {
    const std::size_t done =
        base64_encode_avx2(reinterpret_cast<const unsigned char*>(data.data()), data.size(), p);
    data = data.subspan(done);
    p += done / 3 * 4;
  } else if (kernel == Base64Kernel::vbmi) {
    return base64_encode_vbmi(reinterpret_cast<const unsigned char*>(data.data()), data.size(),
                              p);
  }
#endif
  (void)kernel;
  return base64_encode_to_scalar(data, p);
}

}  // namespace

char* base64_encode_to(Base64Kernel kernel, std::span<const std::byte> data, char* p) noexcept {
  return encode_with(kernel, data, p);
}

char* base64_encode_to(std::span<const std::byte> data, char* p) noexcept {
  return encode_with(kBase64Best, data, p);
}

bool base64_kernel_available(Base64Kernel kernel) noexcept {
  switch (kernel) {
#if defined(__x86_64__)
    case Base64Kernel::vbmi:
      return kBase64HaveVbmi;
    case Base64Kernel::avx2:
      return cpu_has_avx2();
#endif
    case Base64Kernel::scalar:
      return true;
    default:
      return false;
  }
}

std::string_view base64_kernel_name(Base64Kernel kernel) noexcept {
  // In the enum's order.
  constexpr std::string_view kNames[] = {"scalar", "avx2", "vbmi"};
  return kNames[static_cast<std::size_t>(kernel)];
}

std::string_view base64_kernel_name() noexcept { return base64_kernel_name(kBase64Best); }

void base64_encode(std::span<const std::byte> data, std::string& out) {
  const std::size_t start = out.size();
  out.resize(start + base64_length(data.size()));
  base64_encode_to(data, out.data() + start);
}

std::optional<std::string> base64_decode(std::string_view text) {
  std::string out(text.size() / 4 * 3 + 3, '\0');
  char* p = out.data();
  std::uint32_t acc = 0;
  int sextets = 0;  // held in acc, 0..3
  std::size_t i = 0;
  for (; i < text.size(); ++i) {
    const std::uint8_t v = kBase64Values[static_cast<unsigned char>(text[i])];
    if (v < 64) {
      acc = (acc << 6) | v;
      if (++sextets == 4) {
        p[0] = static_cast<char>(acc >> 16);
        p[1] = static_cast<char>(acc >> 8);
        p[2] = static_cast<char>(acc);
        p += 3;
        acc = 0;
        sextets = 0;
      }
    } else if (v == kPad) {
      break;
    } else if (v != kSpace) {
      return std::nullopt;
    }
  }
  // After the first '=' only padding and whitespace may follow.
  int pads = 0;
  for (; i < text.size(); ++i) {
    const std::uint8_t v = kBase64Values[static_cast<unsigned char>(text[i])];
    if (v == kPad)
      ++pads;
    else if (v != kSpace)
      return std::nullopt;
  }
  // Padding is all or nothing. Bits left over in the last sextet are ignored, as most decoders
  // do, rather than rejecting text another implementation accepted.
  switch (sextets) {
    case 0:
      if (pads != 0) return std::nullopt;
      break;
    case 1:
      return std::nullopt;
    case 2:
      if (pads != 0 && pads != 2) return std::nullopt;
      *p++ = static_cast<char>(acc >> 4);
      break;
    default:
      if (pads != 0 && pads != 1) return std::nullopt;
      *p++ = static_cast<char>(acc >> 10);
      *p++ = static_cast<char>(acc >> 2);
      break;
  }
  out.resize(static_cast<std::size_t>(p - out.data()));
  return out;
}

namespace {

// Per position in a group of four chars, each char's sextet shifted to its place in the
// group's 24 bits, or kBadBits for a char outside the alphabet ('=' and whitespace included):
// a group is the OR of four lookups, and one test of its top byte checks all four chars.
constexpr std::uint32_t kBadBits = 0xFF000000;
constexpr auto kBase64Shifted = [] {
  std::array<std::array<std::uint32_t, 256>, 4> t{};
  for (std::size_t pos = 0; pos < 4; ++pos) {
    for (std::size_t c = 0; c < 256; ++c) {
      const std::uint8_t v = kBase64Values[c];
      t[pos][c] = v < 64 ? std::uint32_t{v} << (18 - 6 * pos) : kBadBits;
    }
  }
  return t;
}();

}  // namespace

std::size_t base64_plain_size(std::string_view text) noexcept {
  const std::size_t n = base64_plain_chars(text);
  return n == kNotPlainBase64 ? n : base64_plain_bytes(n);
}

namespace {

// Decodes `n` chars of plain base64 (no padding among them) at `s` into n / 4 * 3 bytes and
// one or two more for a last partial group, writing nowhere else. False on a char outside
// the alphabet.
bool base64_decode_chars(const unsigned char* s, std::size_t n, char* out) noexcept {
  const auto& t = kBase64Shifted;
  const auto group = [&](std::size_t i) {
    return t[0][s[i]] | t[1][s[i + 1]] | t[2][s[i + 2]] | t[3][s[i + 3]];
  };
  // Bad chars are looked for once, at the end: what was written by then goes unused.
  std::uint32_t seen = 0;
  std::size_t i = 0;
  // While 4 bytes or more remain to be written, each group is stored in one 4-byte store
  // (its 3 bytes, then a byte the next group overwrites).
  if constexpr (std::endian::native == std::endian::little) {
    const std::size_t bytes = n / 4 * 3 + (n % 4 == 0 ? 0 : n % 4 - 1);
    const std::size_t wide_groups = bytes >= 4 ? (bytes - 4) / 3 + 1 : 0;
    for (const std::size_t wide_end = 4 * wide_groups; i < wide_end; i += 4, out += 3) {
      const std::uint32_t x = group(i);
      seen |= x;
      const std::uint32_t word = __builtin_bswap32(x << 8);
      std::memcpy(out, &word, 4);
    }
  }
  for (; i + 4 <= n; i += 4, out += 3) {
    const std::uint32_t x = group(i);
    seen |= x;
    out[0] = static_cast<char>(x >> 16);
    out[1] = static_cast<char>(x >> 8);
    out[2] = static_cast<char>(x);
  }
  if (i != n) {
    // Two or three chars left: one or two bytes; the bits below them are ignored, as
    // base64_decode ignores them.
    const std::uint32_t x = t[0][s[i]] | t[1][s[i + 1]] | (n - i == 3 ? t[2][s[i + 2]] : 0);
    seen |= x;
    out[0] = static_cast<char>(x >> 16);
    if (n - i == 3) out[1] = static_cast<char>(x >> 8);
  }
  return (seen & kBadBits) == 0;
}

}  // namespace

bool base64_decode_plain_scalar(std::string_view text, char* out) noexcept {
  const std::size_t n = base64_plain_chars(text);
  if (n == kNotPlainBase64) return false;
  return base64_decode_chars(reinterpret_cast<const unsigned char*>(text.data()), n, out);
}

namespace {

// `n` chars of plain base64 at `s` decoded by `kernel` (the scalar base64_decode_chars for what
// no vector kernel takes); inlined into the entry points, as encode_with is.
[[gnu::always_inline]] inline bool decode_with(Base64Kernel kernel, const unsigned char* s,
                                               std::size_t n, char* out) noexcept {
#if defined(__x86_64__)
  // The AVX2 kernel for blocks of 32 chars, the scalar code for the rest (under 32); asked
  // first, as base64_encode_to does.
  if (kernel == Base64Kernel::avx2 && n >= 32) {
    bool valid = false;
    const std::size_t done = base64_decode_avx2(s, n, out, valid);
    if (done == n) return valid;
    return base64_decode_chars(s + done, n - done, out + done / 4 * 3) && valid;
  }
  if (kernel == Base64Kernel::vbmi) return base64_decode_vbmi(s, n, out);
#endif
  (void)kernel;
  return base64_decode_chars(s, n, out);
}

}  // namespace

bool base64_decode_plain(Base64Kernel kernel, std::string_view text, char* out) noexcept {
  const std::size_t n = base64_plain_chars(text);
  if (n == kNotPlainBase64) return false;
  return decode_with(kernel, reinterpret_cast<const unsigned char*>(text.data()), n, out);
}

bool base64_decode_plain(std::string_view text, char* out) noexcept {
  return base64_decode_plain(kBase64Best, text, out);
}

bool base64_decode_plain_chars(const char* text, std::size_t chars, char* out) noexcept {
  return decode_with(kBase64Best, reinterpret_cast<const unsigned char*>(text), chars, out);
}

namespace {

// The last group of a text: `r` chars (2 to 4; of 4, the last one or two may be '=', as
// base64_plain_chars reads them) decoded to their 1 to 3 bytes at `out`; returns how many, or
// kNotPlainBase64 for a char outside the alphabet. base64_decode_chars for one group, without
// its loops.
std::size_t decode_last_group(const unsigned char* s, std::size_t r, char* out) noexcept {
  if (r == 4 && s[3] == '=') r = s[2] == '=' ? 2 : 3;
  const auto& t = kBase64Shifted;
  std::uint32_t x = t[0][s[0]] | t[1][s[1]];
  if (r >= 3) x |= t[2][s[2]];
  if (r == 4) x |= t[3][s[3]];
  if (x & kBadBits) return kNotPlainBase64;
  out[0] = static_cast<char>(x >> 16);
  if (r >= 3) out[1] = static_cast<char>(x >> 8);
  if (r == 4) out[2] = static_cast<char>(x);
  return r - 1;
}

}  // namespace

std::size_t base64_decode_plain_to(std::string_view text, char* out) noexcept {
  // The groups before the last hold no padding: decoded first, from the start of the text on.
  // Only then is the last group read, with the '=' that base64_plain_chars would have looked
  // for at the end before anything else: for a long text, a load of a line the decode had
  // not reached, that stalled the read on it (a third of decode_scalar's time on bytes.json).
  const std::size_t size = text.size();
  if (size % 4 == 1) return kNotPlainBase64;
  if (size == 0) return 0;
  const std::size_t body = size % 4 != 0 ? size - size % 4 : size - 4;
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  if (!decode_with(kBase64Best, s, body, out)) return kNotPlainBase64;
  const std::size_t last = decode_last_group(s + body, size - body, out + body / 4 * 3);
  return last == kNotPlainBase64 ? last : body / 4 * 3 + last;
}

// ---- UUID --------------------------------------------------------------------------------------

char* format_uuid_to(Uuid u, char* out) noexcept {
  // Two hex digits per byte from one table, the dashes at their fixed places: a UUID is 16
  // lookups, not 32 shifts and masks.
  static constexpr auto kPairs = [] {
    constexpr char hex[] = "0123456789abcdef";
    std::array<char, 512> t{};
    for (std::size_t b = 0; b < 256; ++b) {
      t[2 * b] = hex[b >> 4];
      t[2 * b + 1] = hex[b & 15];
    }
    return t;
  }();
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) *out++ = '-';
    const std::uint64_t half = i < 8 ? u.hi : u.lo;
    const std::size_t byte = (half >> (56 - 8 * (i % 8))) & 0xff;
    std::memcpy(out, &kPairs[2 * byte], 2);
    out += 2;
  }
  return out;
}

void format_uuid(Uuid u, std::string& out) {
  char buf[kUuidText];
  out.append(buf, static_cast<std::size_t>(format_uuid_to(u, buf) - buf));
}

namespace {

constexpr std::uint64_t kByteOnes = 0x0101010101010101ULL;

// The high bit of every byte of `w` that is no hex digit: one not ASCII, or, its high bit
// cleared (so that no sum below carries into the next byte), neither in '0'-'9' nor, with its
// case bit set, in 'a'-'f'. Each range is two sums that set a byte's high bit from its low
// end and past its high end.
constexpr std::uint64_t non_hex_digits(std::uint64_t w) noexcept {
  constexpr std::uint64_t high = 0x80 * kByteOnes;
  const std::uint64_t x = w & ~high;
  const std::uint64_t digit = (x + (0x80 - '0') * kByteOnes) & ~(x + (0x7F - '9') * kByteOnes);
  const std::uint64_t l = x | 0x20 * kByteOnes;
  const std::uint64_t letter = (l + (0x80 - 'a') * kByteOnes) & ~(l + (0x7F - 'f') * kByteOnes);
  return (((digit | letter) & high) ^ high) | (w & high);
}

// The value of 8 hex digits, the first in the lowest byte of `w`: each byte's nibble (a
// letter, bit 6 set, is 9 more than its low bits), then pairs, fours and all eight gathered.
constexpr std::uint64_t eight_hex_digits(std::uint64_t w) noexcept {
  std::uint64_t v = (w & 0x0F * kByteOnes) + ((w >> 6) & kByteOnes) * 9;
  v = (v << 4 | v >> 8) & 0x00FF00FF00FF00FFULL;
  v = (v << 8 | v >> 16) & 0x0000FFFF0000FFFFULL;
  return (v << 16 | v >> 32) & 0xFFFFFFFFULL;
}

}  // namespace

std::optional<Uuid> parse_uuid(std::string_view text) {
  if (text.size() != 36 || text[8] != '-' || text[13] != '-' || text[18] != '-' ||
      text[23] != '-')
    return std::nullopt;
  if constexpr (std::endian::native == std::endian::little) {
    // Four words of 8 digits, checked and read 8 at a time (a table lookup per digit cost
    // about 260 instructions a UUID): 0-7; 9-12 and 14-17; 19-22 and 24-27; 28-35.
    const char* const p = text.data();
    const auto word = [p](std::size_t a, std::size_t b) {
      std::uint32_t x, y;
      std::memcpy(&x, p + a, 4);
      std::memcpy(&y, p + b, 4);
      return std::uint64_t{x} | std::uint64_t{y} << 32;
    };
    const std::uint64_t w0 = word(0, 4), w1 = word(9, 14), w2 = word(19, 24), w3 = word(28, 32);
#if defined(__SSE2__) && defined(__x86_64__)
    // The same words as two vectors of 16 digits (a half each): each byte a digit or, its
    // case bit set, a letter a-f (a byte of 0x80 or more is negative, so neither), its nibble
    // (a letter's low bits plus 9), the nibbles of each 16-bit lane joined, and the 16 bytes
    // packed into two words, most significant first. The SWAR form below cost 208
    // instructions a UUID, its constants and words spilled to the stack.
    {
      const __m128i c[2] = {_mm_set_epi64x(static_cast<long long>(w1), static_cast<long long>(w0)),
                            _mm_set_epi64x(static_cast<long long>(w3), static_cast<long long>(w2))};
      __m128i joined[2];
      int ok = 0xFFFF;
      for (int k = 0; k < 2; ++k) {
        const __m128i digit = _mm_and_si128(_mm_cmpgt_epi8(c[k], _mm_set1_epi8('0' - 1)),
                                            _mm_cmpgt_epi8(_mm_set1_epi8('9' + 1), c[k]));
        const __m128i l = _mm_or_si128(c[k], _mm_set1_epi8(0x20));
        const __m128i letter = _mm_and_si128(_mm_cmpgt_epi8(l, _mm_set1_epi8('a' - 1)),
                                             _mm_cmpgt_epi8(_mm_set1_epi8('f' + 1), l));
        ok &= _mm_movemask_epi8(_mm_or_si128(digit, letter));
        const __m128i nibble = _mm_add_epi8(_mm_and_si128(c[k], _mm_set1_epi8(0x0F)),
                                            _mm_and_si128(letter, _mm_set1_epi8(9)));
        joined[k] = _mm_or_si128(_mm_slli_epi16(_mm_and_si128(nibble, _mm_set1_epi16(0x00FF)), 4),
                                 _mm_srli_epi16(nibble, 8));
      }
      if (ok != 0xFFFF) return std::nullopt;
      const __m128i packed = _mm_packus_epi16(joined[0], joined[1]);
      return Uuid{__builtin_bswap64(static_cast<std::uint64_t>(_mm_cvtsi128_si64(packed))),
                  __builtin_bswap64(static_cast<std::uint64_t>(
                      _mm_cvtsi128_si64(_mm_unpackhi_epi64(packed, packed))))};
    }
#endif
    if ((non_hex_digits(w0) | non_hex_digits(w1) | non_hex_digits(w2) | non_hex_digits(w3)) != 0)
      return std::nullopt;
    return Uuid{eight_hex_digits(w0) << 32 | eight_hex_digits(w1),
                eight_hex_digits(w2) << 32 | eight_hex_digits(w3)};
  }
  // A table lookup per digit, and the test for a bad one (0xFF in the table) once at the end:
  // a branch and three range tests per digit had cost about 25 instructions a digit, and
  // UUIDs are common values (`~u`).
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  std::uint8_t bad = 0;
  const auto digits = [&](std::uint64_t& half, std::size_t from, std::size_t count) {
    for (std::size_t i = from; i < from + count; ++i) {
      const std::uint8_t v = kHexDigit[p[i]];
      bad |= v;
      half = (half << 4) | (v & 0xF);
    }
  };
  Uuid u;
  digits(u.hi, 0, 8);
  digits(u.hi, 9, 4);
  digits(u.hi, 14, 4);
  digits(u.lo, 19, 4);
  digits(u.lo, 24, 12);
  if (bad > 0xF) return std::nullopt;
  return u;
}

// ---- instants ----------------------------------------------------------------------------------

void format_instant(std::int64_t ms, std::string& out) { append_instant(ms, "Z", out); }

void format_instant_edn(std::int64_t ms, std::string& out) {
  append_instant(ms, "-00:00", out);
}

namespace {

// The bytes of "YYYY-MM-DDTHH:MM:SS.mmmZ" (format_instant's form for a four-digit year) in
// three little-endian words: kDigit has 0xFF at a digit's byte, kSeparators the rest.
constexpr std::uint64_t kCanonDigit[3] = {0x00FFFF00FFFFFFFFULL, 0xFFFF00FFFF00FFFFULL,
                                          0x00FFFFFF00FFFF00ULL};
constexpr std::uint64_t kCanonSeparators[3] = {0x2D00002D00000000ULL, 0x00003A0000540000ULL,
                                               0x5A0000002E00003AULL};

// True when the word's bytes under `digits` are '0'-'9' and the others are `separators`:
// a digit's high nibble is 3, and its low one plus 6 does not reach 0x10.
constexpr bool canonical_word(std::uint64_t w, std::uint64_t digits,
                              std::uint64_t separators) noexcept {
  const std::uint64_t d = w & digits;
  return (w & ~digits) == separators && (d & 0xF0 * kByteOnes) == (0x30 * kByteOnes & digits) &&
         (((d & 0x0F * kByteOnes) + (0x06 * kByteOnes & digits)) & 0xF0 * kByteOnes) == 0;
}

}  // namespace

// Hot: without it GCC compiled this function's divisions by constants (/ 400, / 5, / 100,
// % 100) as `div` and `idiv` instructions, as for code it expects to run rarely, 20-40
// cycles each; with it, multiplications (and 5 fewer instructions an instant).
[[gnu::hot]] bool parse_instant(std::string_view text, std::int64_t& out) {
  // Every Transit writer's form for a year of four digits, "YYYY-MM-DDTHH:MM:SS.mmmZ"
  // (JSON-Verbose's `~t`), checked three words at a time and its fields read with no
  // Scanner: the general path below cost about 380 instructions an instant. Anything else
  // (another form, a bad one to refuse) goes there; a field out of range is refused here by
  // the same tests.
  if constexpr (std::endian::native == std::endian::little) {
    if (text.size() == 24) {
      std::uint64_t w[3];
      std::memcpy(w, text.data(), 24);
      if (canonical_word(w[0], kCanonDigit[0], kCanonSeparators[0]) &&
          canonical_word(w[1], kCanonDigit[1], kCanonSeparators[1]) &&
          canonical_word(w[2], kCanonDigit[2], kCanonSeparators[2])) {
        // Each word's digits less '0', then byte k of `t` is the two-digit field that
        // starts at byte k (10 * d[k] + d[k + 1], at most 99: no carry between bytes).
        const auto digits = [&w](int k) {
          return (w[k] & kCanonDigit[k]) - (0x30 * kByteOnes & kCanonDigit[k]);
        };
        const auto pairs = [](std::uint64_t d) { return d * 10 + (d >> 8); };
        const auto byte = [](std::uint64_t x, int k) {
          return static_cast<unsigned>(x >> (8 * k) & 0xFF);
        };
        const std::uint64_t d2 = digits(2), t0 = pairs(digits(0)), t1 = pairs(digits(1)),
                            t2 = pairs(d2);
        const unsigned year = byte(t0, 0) * 100 + byte(t0, 2), month = byte(t0, 5),
                       day = byte(t1, 0), hour = byte(t1, 3), minute = byte(t1, 6),
                       second = byte(t2, 1), millis = byte(t2, 4) * 10 + byte(d2, 6);
        if ((month - 1 > 11) | (day - 1 > 30) | (hour > 23) | (minute > 59) | (second > 59))
          return false;
        if (day > 28 && day > days_in_month(year, month)) return false;
        // days_from_civil in unsigned arithmetic, the year moved 400 years on (one era) so
        // that January and February of year 0 stay positive; years 0000-9999, so no sum
        // here can overflow.
        const unsigned y = year + 400 - (month <= 2 ? 1 : 0);
        const unsigned yoe = y % 400;
        const unsigned doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1;
        const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        const std::int64_t days =
            static_cast<std::int64_t>(y / 400) * 146097 + doe - 719468 - 146097;
        out = days * kMsPerDay +
              static_cast<std::int64_t>(((hour * 60 + minute) * 60 + second) * 1000 + millis);
        return true;
      }
    }
  }
  Scanner sc{text};
  // Four-digit years; a `+` and four to nine digits (ISO 8601's expanded years); a `-` and
  // four to nine (a year before 0 as format_instant writes it, `-0001`) or one to three with
  // no leading zero (as transit-js writes it, JavaScript's getUTCFullYear(): `-1-12-31...`);
  // and one to nine digits with no sign, as peers write them: transit-java's
  // SimpleDateFormat("yyyy") prints a year past 9999 with all its digits (`10000-...`, and
  // `292278994-...` for Long.MAX_VALUE ms, a common "never"), as format_instant does, and
  // transit-js one before 1000 with no padding (`1-01-01...`). A year of one to nine digits
  // before its `-` means one thing only.
  std::int64_t year = 0;
  const bool negative = sc.peek('-');
  const bool plus = !negative && sc.peek('+');
  if (negative || plus) ++sc.i;
  int digits = 0;
  for (; digits < 9 && !sc.at_end() && is_digit(text[sc.i]); ++digits, ++sc.i)
    year = year * 10 + (text[sc.i] - '0');
  if (digits < (plus ? 4 : 1) || (negative && digits < 4 && text[1] == '0')) return false;
  if (negative) year = -year;
  unsigned month, day, hour = 0, minute = 0, second = 0, millis = 0;
  if (!sc.eat('-') || !sc.fixed(2, month) || !sc.eat('-') || !sc.fixed(2, day))
    return false;
  if (month < 1 || month > 12 || day < 1 || day > days_in_month(year, month)) return false;
  std::int64_t offset_ms = 0;
  if (!sc.at_end()) {
    if (!sc.eat('T') && !sc.eat('t')) return false;
    if (!sc.fixed(2, hour) || !sc.eat(':') || !sc.fixed(2, minute)) return false;
    if (sc.eat(':')) {
      if (!sc.fixed(2, second)) return false;
      if (sc.eat('.')) {
        int n = 0;
        for (; !sc.at_end() && is_digit(text[sc.i]); ++n, ++sc.i)
          if (n < 3) millis = millis * 10 + static_cast<unsigned>(text[sc.i] - '0');
        if (n == 0) return false;
        for (; n < 3; ++n) millis *= 10;
      }
    }
    if (hour > 23 || minute > 59 || second > 59) return false;
    if (!sc.eat('Z') && !sc.eat('z')) {
      const bool behind = sc.peek('-');
      if (!behind && !sc.peek('+')) return false;
      ++sc.i;
      unsigned oh, om;
      if (!sc.fixed(2, oh)) return false;
      sc.eat(':');
      if (!sc.fixed(2, om) || oh > 23 || om > 59) return false;
      offset_ms = (static_cast<std::int64_t>(oh) * 60 + om) * 60'000;
      if (behind) offset_ms = -offset_ms;
    }
    if (!sc.at_end()) return false;
  }
  const std::int64_t days = days_from_civil(year, month, day);
  const std::int64_t tod = ((static_cast<std::int64_t>(hour) * 60 + minute) * 60 + second) * 1000 +
                           millis;
  // Before the epoch, step from the next midnight backwards so that the earliest representable
  // instant does not overflow on the way.
  const std::int64_t base_day = days < 0 ? days + 1 : days;
  constexpr std::int64_t kMaxDays = std::numeric_limits<std::int64_t>::max() / kMsPerDay;
  constexpr std::int64_t kMinDays = std::numeric_limits<std::int64_t>::min() / kMsPerDay;
  if (base_day > kMaxDays || base_day < kMinDays) return false;
  std::int64_t ms = base_day * kMsPerDay;
  if (!checked_add(ms, days < 0 ? tod - kMsPerDay : tod) || !checked_add(ms, -offset_ms))
    return false;
  out = ms;
  return true;
}

// ---- UTF-8 -------------------------------------------------------------------------------------

namespace {
// The scalar check: short text, and all text where no vector kernel runs.
[[gnu::always_inline]] inline bool utf8_valid_scalar(std::string_view s) noexcept {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const auto* const end = p + s.size();
  while (p != end) {
    // Text is mostly ASCII: skip it eight bytes at a time.
    if (end - p >= 8) {
      std::uint64_t word;
      std::memcpy(&word, p, 8);
      if ((word & 0x8080808080808080ULL) == 0) {
        p += 8;
        continue;
      }
    }
    if (*p < 0x80) {
      ++p;
      continue;
    }
    char32_t cp;
    const std::size_t len = decode_utf8(p, static_cast<std::size_t>(end - p), cp);
    if (len == 0) return false;
    p += len;
  }
  return true;
}
}  // namespace

// Text this long (a tweet, a description) is checked by a vectorized validator where the CPU
// has one: utf8_valid_avx2 (utf8_simd.h) from 32 bytes, else simdjson's, when the library has
// simdjson, from 64. Each accepts exactly what the scalar loop accepts (RFC 3629: no overlong
// form, surrogate or code point above U+10FFFF). Shorter text is not worth the call. On the
// Zen 5, 64 bytes of mixed text took simdjson's 26 ns, ours 7 ns, the scalar loop 60 ns
// (transit-bench's Codec/Utf8 rows, bench/codec_bench.cpp).
// (Each constant defined only where used: clang's -Werror refuses an unused one.)
#if defined(__x86_64__)
constexpr std::size_t kAvx2Utf8From = 32;
static_assert(kAvx2Utf8From >= 32);  // utf8_valid_avx2 takes no less
#endif
#ifdef TRANSIT_HAVE_SIMDJSON
constexpr std::size_t kSimdjsonUtf8From = 64;
#endif

bool is_valid_utf8(std::string_view s) noexcept {
#if defined(__x86_64__)
  if (s.size() >= kAvx2Utf8From && cpu_has_avx2())
    return utf8_valid_avx2(reinterpret_cast<const unsigned char*>(s.data()), s.size());
#endif
#ifdef TRANSIT_HAVE_SIMDJSON
  if (s.size() >= kSimdjsonUtf8From) return simdjson::validate_utf8(s.data(), s.size());
#endif
  return utf8_valid_scalar(s);
}

bool is_valid_utf8_scalar(std::string_view s) noexcept { return utf8_valid_scalar(s); }

void throw_invalid_utf8(std::string_view s, bool json) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const auto* const end = p + s.size();
  char32_t cp;
  std::size_t len;
  while (p != end && (len = decode_utf8(p, static_cast<std::size_t>(end - p), cp)) != 0) p += len;
  if (end - p >= 3 && p[0] == 0xED && p[1] >= 0xA0 && (p[2] & 0xC0) == 0x80) {
    const unsigned surrogate = 0xD000 | (p[1] & 0x3Fu) << 6 | (p[2] & 0x3Fu);
    // "U+DC00, ... (an escape \udc00 without its pair, or the bytes ED B0 80)": only a low
    // half gets here from an escape (RapidJSON refuses a high one not followed by a low).
    char text[80];
    std::snprintf(text, sizeof text, "U+%04X, a UTF-16 surrogate, which UTF-8 does not encode (",
                  surrogate);
    std::string detail = text;
    if (json && surrogate >= 0xDC00) {
      std::snprintf(text, sizeof text, "an escape \\u%04x without its pair, or ", surrogate);
      detail += text;
    }
    std::snprintf(text, sizeof text, "the bytes %02X %02X %02X)", p[0], p[1], p[2]);
    throw_error(Errc::invalid_utf8, "string is not valid UTF-8: it holds " + detail + text);
  }
  throw_error(Errc::invalid_utf8, "string is not valid UTF-8");
}

std::size_t utf16_length(std::string_view s) noexcept {
  std::size_t n = 0;
  for (const char ch : s) {
    const auto b = static_cast<unsigned char>(ch);
    // One unit per lead byte, a second for four-byte sequences (surrogate pairs).
    n += (b & 0xC0) != 0x80 ? 1 : 0;
    n += b >= 0xF0 ? 1 : 0;
  }
  return n;
}

std::optional<char32_t> decode_one_code_point(std::string_view s) noexcept {
  if (s.empty()) return std::nullopt;
  char32_t cp;
  const std::size_t len = decode_utf8(reinterpret_cast<const unsigned char*>(s.data()), s.size(), cp);
  if (len == 0 || len != s.size()) return std::nullopt;
  return cp;
}

void append_utf8(char32_t c, std::string& out) {
  char buf[4];
  std::size_t n;
  if (c < 0x80) {
    buf[0] = static_cast<char>(c);
    n = 1;
  } else if (c < 0x800) {
    buf[0] = static_cast<char>(0xC0 | (c >> 6));
    buf[1] = static_cast<char>(0x80 | (c & 0x3F));
    n = 2;
  } else if (c < 0x10000) {
    buf[0] = static_cast<char>(0xE0 | (c >> 12));
    buf[1] = static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    buf[2] = static_cast<char>(0x80 | (c & 0x3F));
    n = 3;
  } else {
    buf[0] = static_cast<char>(0xF0 | (c >> 18));
    buf[1] = static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    buf[2] = static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    buf[3] = static_cast<char>(0x80 | (c & 0x3F));
    n = 4;
  }
  out.append(buf, n);
}

// ---- numbers -----------------------------------------------------------------------------------

namespace {

// Digits of `text` (a to_chars result) up to any exponent, without trailing zeros.
std::size_t significant_digits(const char* first, const char* last) noexcept {
  std::size_t n = 0, zeros = 0;
  bool leading = true;
  for (const char* p = first; p != last && *p != 'e'; ++p) {
    if (*p < '0' || *p > '9') continue;
    if (leading && *p == '0') continue;
    leading = false;
    ++n;
    zeros = *p == '0' ? zeros + 1 : 0;
  }
  return n - zeros;
}

}  // namespace

namespace {

// The common case of coordinates, prices and measurements: a non-integral value in
// [0.001, 1e6) with at most 7 decimals. Writes what std::to_chars writes for it (the shortest
// digits that read back as d, in fixed notation, which is never longer than the exponent form
// in that range) without its general algorithm; returns nullptr when d is not such a value.
//
// Why it is the same text: m / 10^7 with m < 2^53 is rounded once by the division, as a
// correct decimal reader rounds the text "m e-7", so `m / 10^7 == d` says exactly that the
// 7-decimal text reads back as d. The candidate is unique: 10^-7 is far wider than d's ulp (at
// most 2^-33 below 1e6), so to_chars has no tie to break, and m is d * 10^7 rounded (its
// rounding error is below 0.001). A text of d's decade with fewer digits has fewer decimals,
// and is the same rational with trailing zeros: so the shortest is m without its trailing zeros.
char* format_decimal_fast(double d, char* out) noexcept {
  const double magnitude = std::fabs(d);
  if (!(magnitude >= 1e-3 && magnitude < 1e6)) return nullptr;
  constexpr double kScale = 1e7;
  std::uint64_t m = static_cast<std::uint64_t>(magnitude * kScale + 0.5);
  if (static_cast<double>(m) / kScale != magnitude) return nullptr;
  std::uint64_t whole = m / 10000000;
  m %= 10000000;
  if (m == 0) return nullptr;  // integral: the general path decides its form
  int decimals = 7;
  while (m % 10 == 0) {
    m /= 10;
    --decimals;
  }
  char* p = out;
  if (d < 0) *p++ = '-';
  p = std::to_chars(p, p + 8, whole).ptr;
  *p++ = '.';
  for (int i = decimals - 1; i >= 0; --i) {
    p[i] = static_cast<char>('0' + m % 10);
    m /= 10;
  }
  return p + decimals;
}

}  // namespace

char* format_double_json_to(double d, char* out) noexcept {
  if (char* end = format_decimal_fast(d, out)) return end;
  const auto r = std::to_chars(out, out + kMaxDoubleJson, d);
  if (std::any_of(out, r.ptr, [](char c) { return c == '.' || c == 'e' || c == 'E'; })) return r.ptr;
  // An integral value in fixed notation. to_chars prints the exact integer, which for large
  // magnitudes has more digits than the shortest round trip: 2^60 is 1152921504606846976, where
  // 16 digits suffice. Readers that guess a big decimal from the digit count (transit-ruby on
  // Oj) then read a BigDecimal, so such values take the exponent form, which has only the
  // shortest digits.
  char sci[kMaxDoubleJson];
  const auto rs = std::to_chars(sci, sci + sizeof sci, d, std::chars_format::scientific);
  if (significant_digits(out, r.ptr) > significant_digits(sci, rs.ptr)) {
    const std::size_t n = static_cast<std::size_t>(rs.ptr - sci);
    std::memcpy(out, sci, n);
    return out + n;
  }
  // `42` or `-0` would read back as integers.
  char* end = r.ptr;
  *end++ = '.';
  *end++ = '0';
  return end;
}

void format_double_json(double d, std::string& out) {
  char buf[kMaxDoubleJson];
  out.append(buf, format_double_json_to(d, buf));
}

void format_double_java(double d, std::string& out) {
  if (std::isnan(d)) {
    out.append("NaN");
    return;
  }
  if (std::isinf(d)) {
    out.append(d < 0 ? "-Infinity" : "Infinity");
    return;
  }
  if (d == 0) {
    out.append(std::signbit(d) ? "-0.0" : "0.0");
    return;
  }
  const Decimal dec = java_digits(d);
  const std::string_view digits(dec.digits, static_cast<std::size_t>(dec.count));
  const int e = dec.exponent;
  if (d < 0) out.push_back('-');
  if (e >= 0 && e < 7) {
    // 1 <= |d| < 10^7: plain, with the point after e + 1 digits.
    const auto int_len = static_cast<std::size_t>(e) + 1;
    if (digits.size() <= int_len) {
      out.append(digits);
      out.append(int_len - digits.size(), '0');
      out.append(".0");
    } else {
      out.append(digits.substr(0, int_len));
      out.push_back('.');
      out.append(digits.substr(int_len));
    }
  } else if (e < 0 && e >= -3) {
    // 10^-3 <= |d| < 1: plain, `0.00ddd`.
    out.append("0.");
    out.append(static_cast<std::size_t>(-e - 1), '0');
    out.append(digits);
  } else {
    out.push_back(digits[0]);
    out.push_back('.');
    if (digits.size() > 1)
      out.append(digits.substr(1));
    else
      out.push_back('0');
    out.push_back('E');
    char buf[8];
    out.append(buf, std::to_chars(buf, buf + sizeof buf, e).ptr);
  }
}

namespace {
// The decimal exponent of the first significant digit of a number's text, plus one (0 for a
// text of zeros), saturated: whether a value from_chars found out of range overflowed
// (above 0) or underflowed. Only that rare case pays this second pass over the text.
std::int64_t decimal_magnitude(std::string_view text) noexcept {
  const char* p = text.data();
  const char* const last = p + text.size();
  if (p != last && *p == '-') ++p;
  std::int64_t magnitude = 0;
  bool seen_significant = false;
  for (; p != last && is_digit(*p); ++p) {
    if (*p != '0') seen_significant = true;
    if (seen_significant) ++magnitude;
  }
  if (p != last && *p == '.') {
    for (++p; p != last && is_digit(*p); ++p) {
      if (*p != '0') seen_significant = true;
      if (!seen_significant) --magnitude;
    }
  }
  if (p != last && (*p == 'e' || *p == 'E')) {
    ++p;
    const bool exp_negative = p != last && *p == '-';
    if (p != last && (*p == '-' || *p == '+')) ++p;
    std::int64_t exp = 0;
    for (; p != last && is_digit(*p); ++p)
      exp = std::min<std::int64_t>(exp * 10 + (*p - '0'), 1'000'000'000);
    magnitude += exp_negative ? -exp : exp;
  }
  return magnitude;
}
}  // namespace

std::optional<double> parse_double(std::string_view text) noexcept {
  const char* const first = text.data();
  const char* const last = first + text.size();
  // from_chars reads exactly this syntax (a sign, digits with a point anywhere, an exponent
  // with a sign), but for a leading '+', which it refuses as this function does, and for
  // "inf", "infinity" and "nan", which it reads and this refuses: the only texts it reads
  // to a value that is not finite (a decimal out of range is an error there, below).
  // (A first pass of its own over the text, which it used to make, cost a JSON read of
  // doubles through RapidJSON as much time again as from_chars.)
  double value = 0;
  const auto r = std::from_chars(first, last, value);
  if (r.ptr != last) return std::nullopt;
  if (r.ec == std::errc{}) return std::isfinite(value) ? std::optional(value) : std::nullopt;
  if (r.ec != std::errc::result_out_of_range) return std::nullopt;
  value = decimal_magnitude(text) > 0 ? std::numeric_limits<double>::infinity() : 0.0;
  return first != last && *first == '-' ? -value : value;
}

namespace {

// The high bit of every byte of `w` that is no ASCII digit: one whose high bit is set, or
// that subtracting '0' or adding 0x46 (which takes ':' and above past 0x7F) sets it. A borrow
// or carry only ever crosses out of a byte that is no digit.
constexpr std::uint64_t non_digits(std::uint64_t w) noexcept {
  return (w | (w - '0' * kByteOnes) | (w + 0x46 * kByteOnes)) & 0x80 * kByteOnes;
}

// The value of 8 ASCII digits, the first in the lowest byte: pairs, then fours, then all
// eight, a multiply each.
constexpr std::uint64_t eight_digits(std::uint64_t w) noexcept {
  w = (w & 0x0F0F0F0F0F0F0F0FULL) * 2561 >> 8;
  w = (w & 0x00FF00FF00FF00FFULL) * 6553601 >> 16;
  return (w & 0x0000FFFF0000FFFFULL) * 42949672960001ULL >> 32;
}

}  // namespace

bool parse_int64(std::string_view text, std::int64_t& out) noexcept {
  const char* const last = text.data() + text.size();
  const bool negative = !text.empty() && text.front() == '-';
  const std::size_t digits = text.size() - negative;
  if (std::endian::native == std::endian::little && digits > 8 && digits <= 16) {
    // Two words of 8 digits (a `~m` instant has 13; a loop of a digit a step took about 170
    // instructions for them): the last 8, and the first `high` moved to the top of the first
    // word with '0's below them.
    const char* const first = text.data() + negative;
    const std::size_t high = digits - 8;
    std::uint64_t top, bottom;
    std::memcpy(&top, first, 8);
    std::memcpy(&bottom, first + high, 8);
    if (high < 8) top = top << (8 * (8 - high)) | ('0' * kByteOnes) >> (8 * high);
    if ((non_digits(top) | non_digits(bottom)) != 0) return false;
    const std::uint64_t v = eight_digits(top) * 100'000'000 + eight_digits(bottom);
    out = negative ? -static_cast<std::int64_t>(v) : static_cast<std::int64_t>(v);
    return true;
  }
  if (digits != 0 && digits <= 18) {
    // No 18 digits overflow: one pass with no check but the verdict on the digits, at the end
    // (a `~m` instant has 13; from_chars took about 190 instructions for them).
    std::uint64_t v = 0;
    bool bad = false;
    for (const char* p = text.data() + negative; p != last; ++p) {
      const auto d = static_cast<unsigned char>(*p - '0');
      bad |= d > 9;
      v = v * 10 + d;
    }
    if (bad) return false;
    out = negative ? -static_cast<std::int64_t>(v) : static_cast<std::int64_t>(v);
    return true;
  }
  std::int64_t v = 0;
  // from_chars takes no '+' and no whitespace, exactly the syntax wanted.
  const auto r = std::from_chars(text.data(), last, v);
  if (r.ec != std::errc{} || r.ptr != last) return false;
  out = v;
  return true;
}

bool is_integer_text(std::string_view text) noexcept {
  if (!text.empty() && text.front() == '-') text.remove_prefix(1);
  const std::size_t n = text.size();
  if (n < 8) {
    if (n == 0) return false;
    for (const char c : text)
      if (static_cast<unsigned char>(c - '0') > 9) return false;
    return true;
  }
  // Eight chars a step (the last step overlapping the one before): a byte is a digit when its
  // high bit is clear and neither subtracting '0' nor adding 0x46 (which takes ':' and above
  // past 0x7F) sets it. A borrow or carry only ever crosses out of a byte that is no digit.
  // A big integer's `~n` text, 20 to 40 digits, is checked here.
  constexpr std::uint64_t kOnes = 0x0101010101010101ULL;
  std::uint64_t bad = 0;
  const auto check = [&](std::size_t at) {
    std::uint64_t w;
    std::memcpy(&w, text.data() + at, 8);
    bad |= w | (w - '0' * kOnes) | (w + 0x46 * kOnes);
  };
  for (std::size_t i = 0; i + 8 < n; i += 8) check(i);
  check(n - 8);
  return (bad & 0x80 * kOnes) == 0;
}

bool is_decimal_text(std::string_view text) noexcept {
  std::size_t i = 0;
  const std::size_t n = text.size();
  if (i < n && (text[i] == '+' || text[i] == '-')) ++i;
  std::size_t digits = 0;
  for (; i < n && is_digit(text[i]); ++i) ++digits;
  std::int64_t fraction_digits = 0;
  if (i < n && text[i] == '.')
    for (++i; i < n && is_digit(text[i]); ++i) ++fraction_digits;
  if (digits + static_cast<std::size_t>(fraction_digits) == 0) return false;
  if (i == n) return fraction_digits <= std::numeric_limits<std::int32_t>::max();
  if (text[i] != 'e' && text[i] != 'E') return false;
  ++i;
  const bool exp_negative = i < n && text[i] == '-';
  if (i < n && (text[i] == '+' || text[i] == '-')) ++i;
  if (i == n) return false;
  // BigDecimal keeps the exponent in an int and the scale (fraction digits minus exponent) too.
  std::int64_t exp = 0;
  for (; i < n; ++i) {
    if (!is_digit(text[i])) return false;
    exp = exp * 10 + (text[i] - '0');
    if (exp > std::numeric_limits<std::int32_t>::max()) return false;
  }
  const std::int64_t scale = fraction_digits - (exp_negative ? -exp : exp);
  return scale >= std::numeric_limits<std::int32_t>::min() &&
         scale <= std::numeric_limits<std::int32_t>::max();
}

const char* user_tag_fault(std::string_view tag) noexcept {
  if (!is_valid_tag(tag)) return "is not a valid tag: empty, or has whitespace or a control character";
  if (is_builtin_tag(tag)) return "is a built-in Transit tag; a user type needs a tag of its own";
  return nullptr;
}

std::string elide_middle(std::string_view s, std::size_t max) {
  if (s.size() <= max) return std::string(s);
  const std::size_t head = utf8_floor(s, max / 2);
  std::size_t tail = s.size() - max / 2;
  while (tail < s.size() && (static_cast<unsigned char>(s[tail]) & 0xC0) == 0x80) ++tail;
  std::string out(s.substr(0, head));
  out.append("\xE2\x80\xA6[").append(std::to_string(tail - head)).append(" bytes]\xE2\x80\xA6");
  out.append(s.substr(tail));
  return out;
}

}  // namespace transit::detail
