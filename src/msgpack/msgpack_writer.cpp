// SPDX-License-Identifier: Apache-2.0
// MessagePack output, encoded by hand: the formats a Transit writer uses are few and simple.
#include <algorithm>
#include <bit>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "backend.h"
#include "codec/codec.h"
#include "write/encoder.h"
#include "io/out_buffer.h"

namespace transit::detail {
namespace {

/// Whether `d` survives the trip through float unchanged. NaN counts (Transit has one NaN);
/// out-of-range values are checked before the cast, which would be undefined for them.
bool fits_float32(double d) noexcept {
  if (std::isnan(d) || std::isinf(d)) return true;
  if (std::fabs(d) > FLT_MAX) return false;
  return static_cast<double>(static_cast<float>(d)) == d;
}

/// Stores `bits` big-endian at `p` and returns the byte after them.
template <class U>
char* put_be(char* p, U bits) noexcept {
  for (std::size_t i = 0; i < sizeof(U); ++i)
    p[i] = static_cast<char>(bits >> (8 * (sizeof(U) - 1 - i)));
  return p + sizeof(U);
}

/// A header in its smallest form: the fix form `fix | n` below `fix_limit`, else the 8-, 16-
/// or 32-bit length forms starting at type byte `first_sized` (`has8`: whether an 8-bit one
/// exists, as for str but not for array and map).
inline char* put_header(char* p, std::uint32_t n, unsigned fix, std::uint32_t fix_limit,
                        unsigned first_sized, bool has8) noexcept {
  if (n < fix_limit) {
    *p = static_cast<char>(fix | n);
    return p + 1;
  }
  unsigned type = first_sized;
  if (has8) {
    if (n <= UINT8_MAX) {
      p[0] = static_cast<char>(type);
      p[1] = static_cast<char>(n);
      return p + 2;
    }
    ++type;
  }
  if (n <= UINT16_MAX) {
    *p = static_cast<char>(type);
    return put_be(p + 1, static_cast<std::uint16_t>(n));
  }
  *p = static_cast<char>(type + 1);
  return put_be(p + 1, n);
}

/// The encoder's backend for MessagePack: each call encodes one item in its smallest form
/// straight into the output buffer (one bounds check per item, no call per header byte), with
/// the same bytes as msgpack-cxx's packer.
class MsgpackEmitter {
 public:
  /// Values delimit themselves, and a newline byte would be read as the integer 10:
  /// WriteOptions::newline_after_value does not apply.
  static constexpr bool kNewlines = false;

  MsgpackEmitter(OutBuffer& out, bool float32) : out_(out), float32_(float32) {}

  void next_root() noexcept {}  // MessagePack values need no separator or reset

  void null() { put_byte(0xc0); }
  void boolean(bool b) { put_byte(b ? 0xc3 : 0xc2); }
  // Non-negative values take the unsigned forms, negative ones the signed forms, as
  // msgpack-cxx's pack_int64 does.
  void integer(std::int64_t i) {
    char* p = room(9);
    if (i >= -32 && i <= 127) {
      *p++ = static_cast<char>(i);  // positive or negative fixint
    } else if (i > 0) {
      const auto u = static_cast<std::uint64_t>(i);
      if (u <= UINT8_MAX) {
        *p++ = static_cast<char>(0xcc);
        *p++ = static_cast<char>(u);
      } else if (u <= UINT16_MAX) {
        *p++ = static_cast<char>(0xcd);
        p = put_be(p, static_cast<std::uint16_t>(u));
      } else if (u <= UINT32_MAX) {
        *p++ = static_cast<char>(0xce);
        p = put_be(p, static_cast<std::uint32_t>(u));
      } else {
        *p++ = static_cast<char>(0xcf);
        p = put_be(p, u);
      }
    } else if (i >= INT8_MIN) {
      *p++ = static_cast<char>(0xd0);
      *p++ = static_cast<char>(i);
    } else if (i >= INT16_MIN) {
      *p++ = static_cast<char>(0xd1);
      p = put_be(p, static_cast<std::uint16_t>(i));
    } else if (i >= INT32_MIN) {
      *p++ = static_cast<char>(0xd2);
      p = put_be(p, static_cast<std::uint32_t>(i));
    } else {
      *p++ = static_cast<char>(0xd3);
      p = put_be(p, static_cast<std::uint64_t>(i));
    }
    out_.commit(p);
  }
  // Never as an integer, as msgpack-cxx's pack_double/pack_float do for a whole-number double
  // since 4.1.2 (msgpack-c PR #1018): Transit tells 2.0 from 2.
  void floating(double d) {
    char* p = room(9);
    if (float32_ && fits_float32(d)) {
      *p = static_cast<char>(0xca);
      p = put_be(p + 1, std::bit_cast<std::uint32_t>(static_cast<float>(d)));
    } else {
      *p = static_cast<char>(0xcb);
      p = put_be(p + 1, std::bit_cast<std::uint64_t>(d));
    }
    out_.commit(p);
  }
  void string(std::string_view s) {
    if (s.size() < 32) {  // a fixstr: keys, keywords, most text; no call to copy it
      char* p = room(32);
      *p = static_cast<char>(0xa0 | s.size());
      out_.commit(copy_short(p + 1, s.data(), s.size()));
      return;
    }
    const std::uint32_t n = length(s.size());
    char* p = put_header(room(5 + std::size_t{n}), n, 0xa0, 32, 0xd9, true);
    std::memcpy(p, s.data(), n);
    out_.commit(p + n);
  }
  /// "~" + tag + body, as one str written from its parts: a keyword's name (from its Value or
  /// from the write cache) needs no "~:name" built to be written.
  void prefixed_string(char tag, std::string_view body) {
    if (body.size() < 30) {  // a fixstr, copied with no call
      char* p = room(32);
      p[0] = static_cast<char>(0xa0 | (body.size() + 2));
      p[1] = '~';
      p[2] = tag;
      out_.commit(copy_short(p + 3, body.data(), body.size()));
      return;
    }
    const std::uint32_t n = length(2 + body.size());
    char* p = put_header(room(5 + std::size_t{n}), n, 0xa0, 32, 0xd9, true);
    p[0] = '~';
    p[1] = tag;
    std::memcpy(p + 2, body.data(), n - 2);
    out_.commit(p + n);
  }
  /// `~b` + the base64 of `data`, as one str encoded in place: no scratch string to fill and
  /// copy (Transit has no binary type on the wire; see Encoder::bytes).
  void base64_string(std::span<const std::byte> data) {
    const std::uint32_t n = length(2 + base64_length(data.size()));
    char* p = put_header(room(5 + std::size_t{n}), n, 0xa0, 32, 0xd9, true);
    *p++ = '~';
    *p++ = 'b';
    out_.commit(base64_encode_to(data, p));
  }
  /// A cache code: 2 or 3 chars, with a third readable (see Encoder::emit_code).
  [[gnu::always_inline]] void cache_code(std::string_view s) {
    char* p = room(4);
    *p = static_cast<char>(0xa0 | s.size());
    std::memcpy(p + 1, s.data(), 3);
    out_.commit(p + 1 + s.size());
  }
  // Inline wherever a container opens (as Encoder::open_array).
  [[gnu::always_inline]] void array_begin(std::size_t n) {
    out_.commit(put_header(room(5), length(n), 0x90, 16, 0xdc, false));
  }
  void array_end() {}
  [[gnu::always_inline]] void map_begin(std::size_t n) {
    out_.commit(put_header(room(5), length(n), 0x80, 16, 0xde, false));
  }
  void map_end() {}

 private:
  [[gnu::always_inline]] char* room(std::size_t n) {
    out_.Reserve(n);
    return out_.cursor();
  }
  [[gnu::always_inline]] void put_byte(unsigned char b) {
    char* p = room(1);
    *p = static_cast<char>(b);
    out_.commit(p + 1);
  }

  // The test inline, the error out of line: a call of the whole was left in prefixed_string.
  static std::uint32_t length(std::size_t n) {
    if (n > UINT32_MAX) [[unlikely]]
      too_long(n);
    return static_cast<std::uint32_t>(n);
  }
  [[gnu::noinline, gnu::cold, noreturn]] static void too_long(std::size_t n) {
    throw_error(Errc::invalid_argument,
                "MessagePack cannot hold " + std::to_string(n) + " items or bytes in one value");
  }

  OutBuffer& out_;
  bool float32_;
};

}  // namespace

std::unique_ptr<Writer::Impl> make_msgpack_writer(Sink& sink, const WriteOptions& options) {
  return std::make_unique<BackendWriter<OutBuffer, MsgpackEmitter>>(sink, Mode::msgpack, options,
                                                               options.float32);
}

}  // namespace transit::detail
