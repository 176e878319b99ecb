// SPDX-License-Identifier: Apache-2.0
// MessagePack input, parsed by a loop of our own: events go straight to the decoder, with no
// msgpack::object in between. From a Source, a scanner first finds where the next value ends
// in the bytes buffered (reading more only while it is incomplete), so each value is parsed
// from one contiguous buffer as soon as its last byte is in.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <new>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "backend.h"
#include "codec/codec.h"
#include "read/decoder.h"
#include "testing.h"
#include "model/value_internal.h"

namespace transit::detail {
namespace {

// See testing::set_msgpack_pairs_look.
std::size_t pairs_look = 512;
thread_local std::size_t pairs_reads = 0;

// ---- framing ---------------------------------------------------------------------------------

/// What one item's header says: its size (type byte and length field), the bytes after it
/// (str, bin and ext payloads) and the items nested in it (array items, map keys and values).
struct Item {
  std::size_t header = 1;
  std::size_t payload = 0;
  std::uint64_t children = 0;
  std::uint64_t count = 0;     // array items or map entries, as the header declares them
  const char* what = nullptr;  // "str", "bin" or "ext" for items with a payload
  bool invalid = false;        // 0xc1, the one byte MessagePack never uses

  /// Whether header and payload are within `avail` bytes.
  bool fits(std::size_t avail) const noexcept {
    return avail >= header && avail - header >= payload;
  }
};

/// Big-endian load of a T.
template <class T>
inline T load_be_as(const unsigned char* p) noexcept {
  T v;
  std::memcpy(&v, p, sizeof v);
  if constexpr (sizeof(T) == 2) v = __builtin_bswap16(v);
  if constexpr (sizeof(T) == 4) v = __builtin_bswap32(v);
  if constexpr (sizeof(T) == 8) v = __builtin_bswap64(v);
  return v;
}

/// The size of each header of 0xc0-0xdf: the type byte, the length field and an ext's type
/// byte; a fixext's with its payload, and 1 for 0xc1. The one statement of them, for the
/// framing (read_header) and the parse loop (Parser::run) alike.
constexpr unsigned char kHeaderSize[32] = {
    1, 1, 1, 1, 2, 3, 5, 3, 4, 6, 5, 9, 2, 3, 5, 9,     // c0-cf
    2, 3, 5, 9, 3, 4, 6, 10, 18, 2, 3, 5, 3, 5, 3, 5};  // d0-df

/// The integer of header byte `b`, 0xcc-0xd3, whose field starts at `q`, as 64 bits: a uint
/// 8-64 zero-extended, an int 8-64 sign-extended. The one statement of the integer encodings,
/// for the parse loop (each case calls it with its own byte, so the switch folds away there)
/// and for Parser::int64_at.
[[gnu::always_inline]] inline std::uint64_t int_field(unsigned b, const unsigned char* q) noexcept {
  switch (b) {
    case 0xcc: return q[0];
    case 0xcd: return load_be_as<std::uint16_t>(q);
    case 0xce: return load_be_as<std::uint32_t>(q);
    case 0xcf: return load_be_as<std::uint64_t>(q);
    case 0xd0: return static_cast<std::uint64_t>(std::int64_t{static_cast<std::int8_t>(q[0])});
    case 0xd1:
      return static_cast<std::uint64_t>(
          std::int64_t{static_cast<std::int16_t>(load_be_as<std::uint16_t>(q))});
    case 0xd2:
      return static_cast<std::uint64_t>(
          std::int64_t{static_cast<std::int32_t>(load_be_as<std::uint32_t>(q))});
    default: return load_be_as<std::uint64_t>(q);  // 0xd3
  }
}

/// Reads the header at `p` (with `avail` bytes from it on), or returns false when its length
/// field is not all there yet. The caller checks the rest with `fits`.
bool read_header(const unsigned char* p, std::size_t avail, Item& item) noexcept {
  item = Item{};
  const unsigned b = p[0];
  if (b <= 0x7f || b >= 0xe0) return true;
  if (b <= 0x8f) return item.count = b & 0x0f, item.children = 2 * item.count, true;
  if (b <= 0x9f) return item.count = item.children = b & 0x0f, true;
  if (b <= 0xbf) return item.what = "str", item.payload = b & 0x1f, true;
  item.header = kHeaderSize[b - 0xc0];
  // What the length field counts, for the formats that have one.
  enum class Sized : std::uint8_t { payload, items, pairs } sized = Sized::payload;
  std::size_t before_length = 1;  // the type byte
  switch (b) {
    case 0xc1:
      return item.invalid = true, true;
    case 0xc4: case 0xc5: case 0xc6:  // bin 8/16/32
      item.what = "bin";
      break;
    case 0xc7: case 0xc8: case 0xc9:  // ext 8/16/32: the ext type byte follows the length
      item.what = "ext";
      before_length = 2;
      break;
    case 0xd4: case 0xd5: case 0xd6: case 0xd7: case 0xd8:  // fixext 1/2/4/8/16
      item.payload = item.header - 2u;
      item.header = 2;
      item.what = "ext";
      return true;
    case 0xd9: case 0xda: case 0xdb:  // str 8/16/32
      item.what = "str";
      break;
    case 0xdc: case 0xdd:
      sized = Sized::items;
      break;
    case 0xde: case 0xdf:
      sized = Sized::pairs;
      break;
    default:  // nil, booleans, numbers: no length field
      return true;
  }
  if (avail < item.header) return false;
  const std::size_t length_bytes = item.header - before_length;
  const std::uint64_t n = length_bytes == 1   ? p[1]
                          : length_bytes == 2 ? load_be_as<std::uint16_t>(p + 1)
                                              : load_be_as<std::uint32_t>(p + 1);
  switch (sized) {
    case Sized::payload:
      item.payload = static_cast<std::size_t>(n);
      break;
    case Sized::items:
      item.count = item.children = n;
      break;
    case Sized::pairs:
      item.count = n;
      item.children = 2 * n;
      break;
  }
  return true;
}

/// The reader's limits (see ReadOptions) as the framing and the parse loop check them.
struct Limits {
  std::size_t max_string_length;
  std::size_t max_collection_length;
  std::size_t max_value_bytes;
};

/// Finds where one value ends, resumably: `pos` is where the next header starts and `pending`
/// how many items are still to come; call again with more bytes after `incomplete`. Each header
/// is checked against the limits as soon as it is in, before the bytes it claims are waited for.
struct Scan {
  enum class Status : std::uint8_t { complete, incomplete, too_large };
  std::size_t pos = 0;
  std::uint64_t pending = 1;
  std::string detail;  // why, after too_large; `pos` is then the offending header

  /// Scans `data[0, size)`; the value may not reach past `value_end`.
  Status run(const char* data, std::size_t size, std::size_t value_end, const Limits& limits) {
    const auto* p = reinterpret_cast<const unsigned char*>(data);
    Item item;
    while (pending != 0) {
      if (pos >= size || !read_header(p + pos, size - pos, item)) return Status::incomplete;
      // An invalid byte is scanned as a one-byte item: the parser reports it, and the claims
      // around it are judged on the whole value, as in memory.
      if (item.what && item.payload > limits.max_string_length) {
        detail = std::string(item.what) + " of " + std::to_string(item.payload) +
                 " bytes is longer than " + std::to_string(limits.max_string_length);
        return Status::too_large;
      }
      if (item.count > limits.max_collection_length) {
        detail = "collection has more than " + std::to_string(limits.max_collection_length) +
                 " items or entries";
        return Status::too_large;
      }
      if (pos + item.header + item.payload > value_end) {
        detail = "value is longer than " + std::to_string(limits.max_value_bytes) + " bytes";
        return Status::too_large;
      }
      if (!item.fits(size - pos)) return Status::incomplete;
      pos += item.header + item.payload;
      pending += item.children - 1;
    }
    return Status::complete;
  }
};

/// `start + length`, or SIZE_MAX when that overflows.
std::size_t saturating_end(std::size_t start, std::size_t length) noexcept {
  return length > SIZE_MAX - start ? SIZE_MAX : start + length;
}

/// The offset of the item header `count` headers after `start`, walking `data[0, size)`; or
/// `size` when the input ends first. Used to find a typed read's mark (locate_mark): a mark is
/// an item index, so that a typed read records no offsets.
std::size_t header_offset(const char* data, std::size_t size, std::size_t start,
                          std::size_t count) noexcept {
  const auto* p = reinterpret_cast<const unsigned char*>(data);
  std::size_t pos = start;
  Item item;
  for (; count != 0 && pos < size; --count) {
    if (!read_header(p + pos, size - pos, item) || item.invalid) return pos;
    if (!item.fits(size - pos)) return size;
    pos += item.header + item.payload;
  }
  return pos < size ? pos : size;
}

// ---- the parse loop -----------------------------------------------------------------------------

/// Our own MessagePack parse loop: one value from a contiguous buffer, each item's event
/// given straight to the decoder. A counted loop per container (an explicit stack of the
/// items left in each open one, its kind in the low bit): no per-item state machine. It
/// knows where it is, so an error is placed at the header of the item being delivered, or
/// for a container's end, after its last item.
// kTape: each event tells the decoder which item it is (see MsgpackReader::locate_mark).
template <bool kTape = false>
class Parser {
 public:
  Parser(Decoder& decoder, std::size_t available, std::size_t visible, const Limits& limits,
         std::vector<std::uint64_t>& stack)
      : d_(decoder),
        available_(available),
        visible_(visible),
        limits_(limits),
        stack_(stack),
        codes_inline_(!kTape && decoder.codes_inline() && limits.max_string_length >= 3) {}

  /// Parses the value at data[off, end): true with `off` past it, false when the bytes run
  /// out first (or at 0xc1: bad_byte() then says where). Errors of the decoder and of the
  /// limits are thrown unplaced; at() places them.
  bool run(const char* data, std::size_t end, std::size_t& off) {
    if constexpr (!kTape) {
      if (d_.met_pair() || pairs_ahead(data + off, data + end)) {
        // The tests' count (testing::msgpack_pairs_reads), here: inside pairs_loop it made
        // that a call with a frame, 21 instructions a value, where it is a jump (3 with it).
        ++pairs_reads;
        return pairs_loop(data, end, off);
      }
    }
    return loop<false>(data, end, off);
  }

  /// Where the item being delivered starts, or after the last item of a container ending.
  std::size_t at() const noexcept { return static_cast<std::size_t>(at_ - base_); }
  std::size_t bad_byte() const noexcept { return bad_byte_; }

 private:
  // The parse loop. kPairs: the loop that reads an instant's or a UUID's pair whole
  // (read_pair), for a value whose start holds one (pairs_ahead); the plain loop reads a pair
  // item by item (other_text, Decoder::start_pair). One loop with the test of every array
  // of 2 cost every other MessagePack read 0.6-2.2% (round sixteen); the plain loop handing
  // the rest of a value over at its first pair's tag (a test after other_text) 0.3-0.5%.
  // Aligned to a cache line: its speed depended on where the linker put it. Left at GCC's 16
  // bytes, a change elsewhere in the library (round forty's prefetch for built trees) moved it
  // from 16 to 48 bytes into a line, the same instructions, and `transit bench` timed every
  // MessagePack read 10%-25% slower beside msgpack-cxx's unpack (twitter 1.30x against
  // 1.13x); at a line's start it reads as fast as at 16 whatever comes before it
  // (docs/performance-log.md, "The MessagePack loop's placement, round forty-one").
  template <bool kPairs>
  [[gnu::flatten, gnu::aligned(64)]] bool loop(const char* data, std::size_t end, std::size_t& off);
  // Whether the value's first 512 bytes (pairs_look) hold a pair's start, `92 a3 7e 23` and
  // `m` or `u` (70-230 instructions a value that holds none): the value is then read by
  // the loop that reads pairs whole. A value whose first pair comes later is read by the
  // plain loop, as before (documents of records with instants or UUIDs have one in their
  // first record), and so are the reader's next values unless it met a pair already
  // (Decoder::met_pair).
  static bool pairs_ahead(const char* p, const char* e) noexcept {
    // By the `#`, rarer in Transit than the other three bytes (0x92 starts every array of 2,
    // 0xa3 every string of 3, `~` every keyword).
    const char* const end = p + std::min<std::size_t>(static_cast<std::size_t>(e - p), pairs_look);
    if (end - p < 5) return false;
    for (const char* q = p + 3;
         (q = static_cast<const char*>(std::memchr(q, '#', static_cast<std::size_t>(end - 1 - q))));
         ++q)
      if (q[-3] == '\x92' && q[-2] == '\xa3' && q[-1] == '~' && (q[1] == 'm' || q[1] == 'u'))
        return true;
    return false;
  }
  [[gnu::noinline]] bool pairs_loop(const char* data, std::size_t end, std::size_t& off) {
    return loop<true>(data, end, off);
  }
  void str(const char* s, std::uint32_t n) {
    if (n > limits_.max_string_length) [[unlikely]]
      length_refused("str", n);
    if constexpr (kTape)
      text(s, n);
    else
      other_text(s, n);
  }
  // A cache code (most strings of a cached document) is placed inline in the loop, told by
  // its header (Decoder::cached_code), with no call; every other string comes here, out of
  // line, so that its frame and saved registers are not on a cache code's way. An instant's
  // or a UUID's tag, `~#m` or `~#u`, first in an array of 2, is a pair (see
  // Decoder::start_pair), before text()'s tests.
  [[gnu::noinline]] void other_text(const char* s, std::uint32_t n) {
    if (n == 3 && s[0] == '~' && s[1] == '#' && (s[2] == 'm' || s[2] == 'u') &&
        d_.start_pair(s[2]))
      return;
    text(s, n);
  }
  // The integer at `q` that fits an int64, in any encoding: its end, or nullptr for anything
  // else or when it runs past `e` (the loop then reads it, and reports it).
  static const unsigned char* int64_at(const unsigned char* q, const unsigned char* e,
                                       std::int64_t& v) noexcept {
    if (q == e) return nullptr;
    const unsigned b = *q;
    if (b <= 0x7f || b >= 0xe0) {  // a positive or a negative fixint
      v = static_cast<signed char>(b);
      return q + 1;
    }
    if (b < 0xcc || b > 0xd3) return nullptr;
    const std::size_t h = kHeaderSize[b - 0xc0];
    if (static_cast<std::size_t>(e - q) < h) return nullptr;
    const std::uint64_t u = int_field(b, q + 1);
    if (b == 0xcf && u > INT64_MAX) return nullptr;  // a big integer: no instant, no UUID half
    v = static_cast<std::int64_t>(u);
    return q + h;
  }
  // At an array of 2 (`p` at its 0x92): `["~#m", ms]` or `["~#u", [hi, lo]]` with integers
  // that fit an int64, read whole and delivered (no frame, no tag string, no node) where the
  // decoder allows it (pair_whole_allowed): its end. Else nullptr, having done nothing: the
  // loop reads the array item by item, as ever.
  const unsigned char* read_pair(const unsigned char* p, const unsigned char* e) {
    if (e - p < 6 || p[1] != 0xa3 || p[2] != '~' || p[3] != '#') return nullptr;
    std::int64_t a, b;
    if (p[4] == 'm') {
      const unsigned char* q = int64_at(p + 5, e, a);
      if (!q || !d_.pair_whole_allowed(1) || limits_.max_collection_length < 2) return nullptr;
      announced_ += 2;  // as start() counts the array's items
      at_ = q;          // where end_pair delivers it: after the pair's last item
      d_.instant_whole(a);
      return q;
    }
    if (p[4] != 'u' || p[5] != 0x92) return nullptr;
    const unsigned char* q = int64_at(p + 6, e, a);
    if (q) q = int64_at(q, e, b);
    if (!q || !d_.pair_whole_allowed(2) || limits_.max_collection_length < 2) return nullptr;
    announced_ += 4;
    at_ = q;
    d_.uuid_whole(static_cast<std::uint64_t>(a), static_cast<std::uint64_t>(b));
    return q;
  }
  // A typed read's tape takes its own cache codes (Decoder::tape_walk_string, from
  // checked_string), and its strings their whole path inline.
  [[gnu::always_inline]] void text(const char* s, std::uint32_t n) {
    const std::string_view text(s, n);
    // Keys, keywords and cache codes are short ASCII: the decoder takes them on its fast path,
    // told that the bytes are ASCII, so it need not count UTF-16 units to decide caching.
    if (is_short_ascii(s, n)) return d_.checked_string(text, true);
    // Bytes as `~b` base64 (every bytes value Transit writes): the decoder decodes every `~b`
    // string as base64 (a ground tag: no read handler takes its text), which refuses any byte
    // outside ASCII, so a UTF-8 check first would only read the text once more.
    if (n >= 2 && s[0] == '~' && s[1] == 'b') return d_.checked_base64(text);
    if (is_ascii_17_to_64(s, n)) return d_.checked_string(text, true);
    if (!is_valid_utf8(text)) throw_invalid_utf8(text, false);
    d_.checked_string(text, false);
  }
  void bin(const char* s, std::uint32_t n) {
    if (n > limits_.max_string_length) [[unlikely]]
      length_refused("bin", n);
    d_.bytes({s, n});
  }
  [[noreturn, gnu::cold, gnu::noinline]] void ext(const char* s) {
    throw_error(Errc::bad_rep, "MessagePack ext type " +
                                   std::to_string(static_cast<signed char>(s[0])) +
                                   " is not part of Transit");
  }
  // A container's header: true when it was delivered whole and has no end to come (an empty
  // one, where the decoder allows it: Decoder::empty_container_inline).
  bool start(std::uint64_t n, bool map) {
    if (!kTape && n == 0 && d_.empty_container_inline(map)) return true;
    // Every item takes at least a byte, so a count beyond the bytes of the input is a lie
    // told before any of it is read: fail now rather than build what does exist. Within the
    // input, the count must still be within the limit.
    const std::uint64_t items = map ? 2 * n : n;
    if (items > available_ || n > limits_.max_collection_length) [[unlikely]]
      claim_refused(items, n, map);
    // The count to give the decoder, which reserves room for it at once: `n`, while the items
    // announced and not yet seen, in every open container, fit in the bytes left at one byte
    // each; else 0, and the items get room as they arrive, so what is reserved never exceeds
    // the input. Every item seen took a byte of those bytes, so that is: all the items
    // announced so far (the value itself first) fit in the bytes the parser is given.
    announced_ += items;
    const std::size_t expected = announced_ <= visible_ ? n : 0;
    if (map)
      d_.sized_map_begin(expected);
    else
      d_.sized_array_begin(expected);
    return false;
  }
  void finish(bool map) {
    if constexpr (kTape) d_.mark(items_);
    if (map)
      d_.sized_map_end();
    else
      d_.sized_array_end();
  }
  [[noreturn, gnu::cold, gnu::noinline]] void claim_refused(std::uint64_t items, std::uint64_t n,
                                                            bool map) {
    if (items > available_)
      throw_error(Errc::truncated, std::string(map ? "map of" : "array of") + " " +
                                       std::to_string(n) + " " + (map ? "entries" : "items") +
                                       " cannot fit in the " + std::to_string(available_) +
                                       " bytes of input");
    throw_error(Errc::too_large, "collection has more than " +
                                       std::to_string(limits_.max_collection_length) +
                                       " items or entries");
  }
  [[noreturn, gnu::cold, gnu::noinline]] void length_refused(const char* what, std::uint32_t n) {
    throw_error(Errc::too_large, std::string(what) + " of " + std::to_string(n) +
                                     " bytes is longer than " +
                                     std::to_string(limits_.max_string_length));
  }
  [[gnu::noinline]] std::uint64_t* grow(std::size_t depth) {
    stack_.resize(std::max<std::size_t>(2 * depth, 16));
    return stack_.data();
  }

  Decoder& d_;
  std::size_t available_;  // bytes from the start of the value to the end of the input
  std::size_t visible_;    // bytes from the start of the value that the parser is given
  const Limits& limits_;
  std::vector<std::uint64_t>& stack_;
  // The loop places cache codes itself (Decoder::cached_code): codes_inline(), and a code's 3
  // bytes within max_string_length, so that str()'s test of the length need not be made.
  const bool codes_inline_;
  const unsigned char* base_ = nullptr;
  const unsigned char* at_ = nullptr;
  std::uint64_t announced_ = 1;  // items announced so far, the value itself first
  std::size_t items_ = 0;        // item headers seen (kTape only)
  std::size_t bad_byte_ = Location::npos;
};

template <bool kTape>
template <bool kPairs>
bool Parser<kTape>::loop(const char* data, std::size_t end, std::size_t& off) {
  base_ = reinterpret_cast<const unsigned char*>(data);
  const unsigned char* p = base_ + off;
  const unsigned char* const e = base_ + end;
  std::uint64_t left = 1;  // items left in the innermost open container (the value first)
  std::size_t depth = 0;
  std::uint64_t* st = stack_.data();
  // In a local, not reloaded from the Parser at every string: GCC's code for the whole loop
  // came out shorter so (geojson MessagePack, its doubles, 2% fewer instructions in the loop).
  const bool codes_inline = codes_inline_;
  for (;;) {
    if (p == e) [[unlikely]]
      return false;
    at_ = p;
    if constexpr (kTape) d_.mark(items_++);
    const unsigned b = *p;
    --left;
    std::uint64_t n;  // a container's count
    bool map;
    if (b <= 0x7f) {
      ++p;
      d_.integer(b);
      goto next;
    }
    if (b >= 0xa0) {
      if (b <= 0xbf) {
        n = b & 0x1f;
        if (static_cast<std::size_t>(e - p) <= n) return false;
        const char* s = reinterpret_cast<const char*>(p + 1);
        p += 1 + n;
        if constexpr (!kTape) {
          // A cache code is `^` and one or two digits: a fixstr of 2 or 3 bytes (0xa2, 0xa3)
          // starting with `^`. No other string tests for one (a code's bad digit, or `"^ "`:
          // cached_code declines, and str() reads it whole).
          if ((b & 0xfe) == 0xa2 && s[0] == '^' && codes_inline && d_.cached_code(s + 1, b & 1))
            goto next;
        }
        str(s, static_cast<std::uint32_t>(n));
        goto next;
      }
      if (b >= 0xe0) {
        ++p;
        d_.integer(static_cast<signed char>(b));
        goto next;
      }
    } else {
      if constexpr (kPairs) {
        if (b == 0x92) {
          if (const unsigned char* q = read_pair(p, e)) {
            p = q;
            goto next;
          }
        }
      }
      n = b & 0x0f;
      ++p;
      map = b <= 0x8f;
      goto container;
    }
    {
      const std::size_t h = kHeaderSize[b - 0xc0];
      if (static_cast<std::size_t>(e - p) < h) return false;
      const unsigned char* q = p + 1;
      p += h;
      switch (b) {
        case 0xc0: d_.null(); goto next;
        case 0xc1:
          bad_byte_ = at();
          return false;
        case 0xc2: d_.boolean(false); goto next;
        case 0xc3: d_.boolean(true); goto next;
        case 0xc4: n = q[0]; goto bin;
        case 0xc5: n = load_be_as<std::uint16_t>(q); goto bin;
        case 0xc6: n = load_be_as<std::uint32_t>(q); goto bin;
        case 0xc7: n = q[0]; goto ext;
        case 0xc8: n = load_be_as<std::uint16_t>(q); goto ext;
        case 0xc9: n = load_be_as<std::uint32_t>(q); goto ext;
        case 0xca: d_.floating(std::bit_cast<float>(load_be_as<std::uint32_t>(q))); goto next;
        case 0xcb: d_.floating(std::bit_cast<double>(load_be_as<std::uint64_t>(q))); goto next;
        // Each its own case, so that int_field's switch folds away: one case for the seven
        // signed results ran the switch again, +0.09% to +1.5% instructions a MessagePack read
        // (citm_catalog the most).
        case 0xcc: d_.integer(static_cast<std::int64_t>(int_field(0xcc, q))); goto next;
        case 0xcd: d_.integer(static_cast<std::int64_t>(int_field(0xcd, q))); goto next;
        case 0xce: d_.integer(static_cast<std::int64_t>(int_field(0xce, q))); goto next;
        case 0xcf: d_.uinteger(int_field(0xcf, q)); goto next;
        case 0xd0: d_.integer(static_cast<std::int64_t>(int_field(0xd0, q))); goto next;
        case 0xd1: d_.integer(static_cast<std::int64_t>(int_field(0xd1, q))); goto next;
        case 0xd2: d_.integer(static_cast<std::int64_t>(int_field(0xd2, q))); goto next;
        case 0xd3: d_.integer(static_cast<std::int64_t>(int_field(0xd3, q))); goto next;
        case 0xd4: case 0xd5: case 0xd6: case 0xd7: case 0xd8:
          ext(reinterpret_cast<const char*>(q));
        case 0xd9: n = q[0]; goto str;
        case 0xda: n = load_be_as<std::uint16_t>(q); goto str;
        case 0xdb: n = load_be_as<std::uint32_t>(q); goto str;
        case 0xdc: n = load_be_as<std::uint16_t>(q); map = false; goto container;
        case 0xdd: n = load_be_as<std::uint32_t>(q); map = false; goto container;
        case 0xde: n = load_be_as<std::uint16_t>(q); map = true; goto container;
        default: n = load_be_as<std::uint32_t>(q); map = true; goto container;
      }
    str:
      if (static_cast<std::size_t>(e - p) < n) return false;
      p += n;
      str(reinterpret_cast<const char*>(p - n), static_cast<std::uint32_t>(n));
      goto next;
    bin:
      if (static_cast<std::size_t>(e - p) < n) return false;
      p += n;
      bin(reinterpret_cast<const char*>(p - n), static_cast<std::uint32_t>(n));
      goto next;
    ext:
      // The type byte, counted in h, is the payload's first.
      if (static_cast<std::size_t>(e - p) < n) return false;
      ext(reinterpret_cast<const char*>(p - 1));
    }
  container:
    if (start(n, map)) goto next;
    if (n == 0) {
      at_ = p;
      finish(map);
      goto next;
    }
    if (depth == stack_.size()) [[unlikely]]
      st = grow(depth);
    st[depth++] = left << 1 | map;
    left = map ? 2 * n : n;
    continue;
  next:
    while (left == 0) {
      if (depth == 0) {
        off = static_cast<std::size_t>(p - base_);
        return true;
      }
      const std::uint64_t top = st[--depth];
      at_ = p;
      finish(top & 1);
      left = top >> 1;
    }
  }
}

// ---- reader ----------------------------------------------------------------------------------

/// The bytes read from a Source and not yet consumed. It grows (by doubling) only when one
/// value is larger than it, and with realloc: a large block is moved by remapping its pages,
/// not copied, and the room not yet read into is never touched, so it costs no memory. (A
/// std::vector zero-filled its new half at each doubling: 32 MB resident for a 17 MB value.)
class InputBuffer {
 public:
  InputBuffer() = default;  // reading from memory: unused
  explicit InputBuffer(std::size_t capacity)
      : data_(static_cast<char*>(std::malloc(capacity))), capacity_(capacity) {
    if (!data_) throw std::bad_alloc();
  }
  ~InputBuffer() { std::free(data_); }
  InputBuffer(const InputBuffer&) = delete;
  InputBuffer& operator=(const InputBuffer&) = delete;

  char* data() noexcept { return data_; }
  std::size_t capacity() const noexcept { return capacity_; }
  /// Room for `capacity` bytes, those there kept.
  void grow(std::size_t capacity) {
    char* grown = static_cast<char*>(std::realloc(data_, capacity));
    if (!grown) throw std::bad_alloc();
    data_ = grown;
    capacity_ = capacity;
  }

 private:
  char* data_ = nullptr;
  std::size_t capacity_ = 0;
};

class MsgpackReader final : public Reader::Impl {
 public:
  /// Over bytes in memory.
  MsgpackReader(std::string_view input, const ReadOptions& options)
      : decoder_(options),
        limits_(limits_of(options)),
        data_(input.data()),
        size_(input.size()) {}
  /// Over a Source: `buf_` holds the unread bytes, [begin_, size_).
  MsgpackReader(Source& source, const ReadOptions& options)
      : decoder_(options),
        limits_(limits_of(options)),
        source_(&source),
        buf_(std::max<std::size_t>(options.chunk_size, 16)),
        chunk_size_(buf_.capacity()) {
    data_ = buf_.data();
  }

  /// Whether a reader kept by retire() reads as one made with `options` over text in memory
  /// would, reopened with their handlers: the same limits.
  bool made_as(const ReadOptions& options) const noexcept {
    return decoder_.made_as(options) && options.max_string_length == limits_.max_string_length &&
           options.max_value_bytes == limits_.max_value_bytes;
  }

  /// Reads `input` from its start with `handlers`, as a reader just made over it (one that
  /// retire() kept: its decoder emptied, no failure, no tape, no Source).
  void reopen(std::string_view input, const ReadHandlers* handlers) noexcept {
    data_ = input.data();
    size_ = input.size();
    begin_ = 0;
    before_ = 0;
    value_begin_ = 0;
    value_end_ = 0;
    decoder_.forget_pairs();
    decoder_.rebind(handlers);
  }

  void retire(std::unique_ptr<Reader::Impl>& self) noexcept override;

  std::optional<Value> next() override {
    if (failed_) std::rethrow_exception(failed_);
    // An untyped read's value is done when this returns or throws; a typed read's record
    // stays for remark.
    struct Forget {
      Decoder& d;
      bool tape;
      ~Forget() {
        if (!tape) d.forget_user_calls();
      }
    } forget{decoder_, tape_};
    std::size_t end = size_;
    if (source_) {
      scan_ = Scan{begin_, 1, {}};
      for (;;) {
        // The value's end moves with begin_ when fill() drops the bytes before it.
        const Scan::Status status =
            scan_.run(data_, size_, saturating_end(begin_, limits_.max_value_bytes), limits_);
        if (status == Scan::Status::complete) break;
        if (status == Scan::Status::too_large) fail_at(Errc::too_large, scan_.detail, scan_.pos);
        if (!fill()) {
          if (begin_ == size_) return std::nullopt;
          // At the end of the input its size is known, and claims are checked against it as
          // they are in memory.
          fail_at(Errc::truncated, "input ends inside a value", size_, size_ - begin_);
        }
      }
      end = scan_.pos;
    } else if (begin_ == size_) {
      return std::nullopt;
    } else {
      // In memory the input is all there; the parser sees no more of it than the limit allows.
      end = std::min(size_, saturating_end(begin_, limits_.max_value_bytes));
    }
    return parse(end);
  }

  std::size_t offset() const noexcept override { return before_ + begin_; }

  bool next_tape(Tape& tape) override {
    decoder_.set_tape(&tape);
    // Unset however the read ends: a refusal fails this call alone, and a next() may follow.
    struct Unset {
      MsgpackReader& r;
      ~Unset() {
        r.decoder_.set_tape(nullptr);
        r.tape_ = false;
      }
    } unset{*this};
    tape_ = true;
    // In memory, the strings stay in the caller's bytes for as long as this reader is read:
    // the tape refers to them. A Source's buffer moves as it is refilled: copied.
    decoder_.set_tape_input_stable(source_ == nullptr);
    tape.input_base = reinterpret_cast<std::uintptr_t>(data_);
    // Marks (an item index per token) are written only when a bind fails: see remark.
    decoder_.set_tape_marks(false);
    return next().has_value();
  }

  // Reads the last value again, its bytes still in data_, into the tape with each token's
  // mark: only a failed typed read comes here, so a typed read writes no marks.
  void remark(Tape& tape) override {
    if (tape.marks.size() == tape.tokens.size()) return;
    decoder_.set_tape(&tape);
    decoder_.set_tape_input_stable(source_ == nullptr);
    struct Restore {
      MsgpackReader& r;
      std::size_t begin;
      std::exception_ptr failed;
      ~Restore() {
        r.decoder_.drop_frames();
        r.decoder_.set_tape(nullptr);
        r.begin_ = begin;
        r.failed_ = std::move(failed);
      }
    } restore{*this, std::exchange(begin_, value_begin_), failed_};
    decoder_.reset();
    decoder_.walk_value_at(before_ + begin_, false);  // the handlers' results of the read
    std::size_t off = value_begin_;
    try {
      if (!feed<true>(value_end_, size_ - value_begin_, off)) tape.clear();
    } catch (...) {
      // The bytes read well once; should they not now, the failure stays unplaced.
      tape.clear();
    }
  }

  // A mark is an item index within the value last read; its header is found again here, on
  // the error path only.
  Location locate_mark(std::size_t mark) const override {
    return {before_ + header_offset(data_, value_end_, value_begin_, mark), 0, 0};
  }

 private:
  // Parses the value at begin_ from data_[begin_, end).
  Value parse(std::size_t end) {
    decoder_.reset();
    // Read again only by a typed read's remark, or in memory where the limit cut the input
    // short of its end (fail_short, fail_at).
    decoder_.walk_value_at(before_ + begin_, tape_ || (!source_ && end < size_));
    // A refusal of user code ends this walk, placed as any error of the decoder: see
    // skip_refused (a typed read's too: its tape is then not bound).
    decoder_.pass_refusals();
    // Without user handlers no user code runs while the document is built: build it in one
    // arena (see ArenaScope).
    std::optional<ArenaScope> arena;
    if (!tape_ && decoder_.runs_no_user_code()) arena.emplace();
    // Containers left open by a failure hold slots in the arena: dropped before it closes.
    struct DropFrames {
      Decoder& d;
      ~DropFrames() { d.drop_frames(); }
    } drop{decoder_};
    std::size_t off = begin_;
    if (tape_ ? feed<true>(end, size_ - begin_, off) : feed<false>(end, size_ - begin_, off)) {
      value_begin_ = begin_;
      value_end_ = off;
      begin_ = off;
      return decoder_.take();
    }
    // Any other failure was thrown: what is left is running out of input.
    fail_short(end, "input ends inside a value");
  }

  // Runs the parser over data_[begin_, end), `available` bytes being what the input holds
  // from begin_ on: true once the value is complete, false when the bytes run out. Any other
  // failure is thrown, placed.
  template <bool kTape>
  bool feed(std::size_t end, std::size_t available, std::size_t& off) {
    Parser<kTape> parser(decoder_, available, end - begin_, limits_, stack_);
    try {
      if (parser.run(data_, end, off)) return true;
    } catch (const Error& e) {
      if (e.offset() != Location::npos) refused_as_thrown();
      // The decoder knows what went wrong; where is the header of the item it was given, or
      // for a container's end, the byte after its last item.
      // A refusal is user code's, whatever its code: not the input's end.
      if (e.code() == Errc::truncated && !refusing()) fail_short(end, e.detail());
      fail(e.code(), e.detail(), before_ + parser.at(), placed_path(decoder_));
    } catch (...) {
      refused_as_thrown();
    }
    if (parser.bad_byte() != Location::npos)
      fail(Errc::syntax, "0xc1 is not a MessagePack type", before_ + parser.bad_byte(),
           decoder_.path());
    return false;
  }

  // The parser ran out of bytes at `end`: the input is truncated, or in memory, the value
  // is longer than the limit that cut the input short at `end`.
  [[noreturn]] void fail_short(std::size_t end, std::string_view detail) {
    if (end < size_) {
      Scan scan{begin_, 1, {}};
      // The bytes before the offending header are read again with the claims unjudged, as
      // from a Source: a claim beyond the input is what may have brought the read here, and
      // judged again, it would bring it back here without end.
      if (scan.run(data_, size_, end, limits_) == Scan::Status::too_large)
        fail_at(Errc::too_large, scan.detail, scan.pos);
    }
    fail(Errc::truncated, detail, before_ + end, decoder_.path());
  }

  // Fails at `at`, inside the value at begin_, with the path of the item there: the bytes
  // before it are given to the decoder again (or for the first time, from a Source), and an
  // error in them comes first, as reading them would have found it first.
  // `available` is what the input holds from begin_ on, when that is known.
  [[noreturn]] void fail_at(Errc code, std::string_view detail, std::size_t at,
                            std::size_t available = static_cast<std::size_t>(-1)) {
    decoder_.reset();
    decoder_.walk_value_at(before_ + begin_, false);  // in memory, parse() walked it first
    if (skipping_) {
      // The refused value's error is this one (skip_refused): no user code runs again.
      decoder_.mute_user_calls();
    } else {
      // From a Source, the first walk of the value: a refusal in it ends it (skip_refused),
      // and this error then comes after it.
      decoder_.pass_refusals();
      pending_ = Pending{code, std::string(detail), at, available};
    }
    std::size_t off = begin_;
    (void)feed<false>(at, available, off);
    fail(code, detail, before_ + at, decoder_.path());
  }

  // An exception the parse does not place: an Error of user code that says where already (a
  // read in its code), or what is no transit::Error. Thrown as it is; when it is user code's
  // refusal of the value (refused(): anything else is the library's own, a failed
  // allocation), it fails this call alone, as a refusal fail() places does.
  [[noreturn, gnu::cold, gnu::noinline]] void refused_as_thrown() {
    if (refusing()) skip_refused();
    throw;
  }

  // Whether the error being handled is user code's refusal of the value (pass_refusals), not
  // met while skip_refused reads the value again with user code muted.
  bool refusing() const noexcept { return decoder_.refused() && !skipping_; }

  // User code refused the value at begin_ (Decoder::walk_value_at), and its error, placed as
  // any error of the decoder (the parse loop gives no one its place: the parser's address
  // given away, or the loop given a second caller, made GCC compile it otherwise, keywords'
  // MessagePack Value read 2% more instructions with no handlers), is being handled. The
  // value is read again with no user code run (Decoder::mute_user_calls) to its end, and the
  // next call reads the value after it; or to an error of the input in it (or, from fail_at,
  // the error it was placing), which stays this reader's failure. Then the refusal is thrown.
  [[noreturn, gnu::cold, gnu::noinline]] void skip_refused() {
    const std::exception_ptr refusal = std::current_exception();
    struct Skipping {
      MsgpackReader& r;
      ~Skipping() {
        r.skipping_ = false;
        r.pending_.reset();
      }
    } skipping{*this};
    skipping_ = true;
    try {
      if (pending_) {
        // From fail_at: its error, with the rest of the value before it read as any value is.
        const Pending p = *pending_;
        fail_at(p.code, p.detail, p.at, p.available);
      }
      const std::size_t end = source_ ? scan_.pos : std::min(size_, saturating_end(begin_, limits_.max_value_bytes));
      decoder_.reset();
      decoder_.walk_value_at(before_ + begin_, false);
      decoder_.mute_user_calls();
      std::size_t off = begin_;
      if (!feed<false>(end, size_ - begin_, off)) fail_short(end, "input ends inside a value");
      decoder_.drop_frames();
      value_begin_ = begin_;
      value_end_ = off;
      begin_ = off;
    } catch (const Error&) {
      // The input's error, kept in failed_ by fail().
    }
    std::rethrow_exception(refusal);
  }

  static Limits limits_of(const ReadOptions& o) noexcept {
    return {o.max_string_length, o.max_collection_length, o.max_value_bytes};
  }

  // Reads more from the source, keeping the bytes of the value being scanned; false at the end.
  bool fill() {
    if (begin_ != 0) {
      std::memmove(buf_.data(), buf_.data() + begin_, size_ - begin_);
      before_ += begin_;
      scan_.pos -= begin_;
      size_ -= begin_;
      begin_ = 0;
    }
    // Grows only when a value is larger than the buffer, so memory follows the largest value.
    if (size_ == buf_.capacity()) buf_.grow(2 * buf_.capacity());
    data_ = buf_.data();
    // A chunk at a time, so the scanner checks the limits at least once per chunk.
    const std::size_t n =
        read_checked(*source_, buf_.data() + size_, std::min(buf_.capacity() - size_, chunk_size_));
    size_ += n;
    return n != 0;
  }

  [[noreturn]] void fail(Errc code, std::string_view detail, std::size_t at, std::string path) {
    try {
      throw_error(code, detail, Location{at, 0, 0}, std::move(path));
    } catch (...) {
      failed_ = std::current_exception();
      // As JSON's remember_and_throw: a refusal before the error is this call's error.
      if (refusing()) [[unlikely]] {
        // The error is a refusal of user code: it fails this call alone.
        failed_ = nullptr;
        skip_refused();
      }
      throw;
    }
  }

  Decoder decoder_;
  Limits limits_;
  Source* source_ = nullptr;
  InputBuffer buf_;
  std::size_t chunk_size_ = 0;
  const char* data_;
  std::size_t size_ = 0;    // bytes in data_
  std::size_t begin_ = 0;   // first byte not yet consumed
  std::size_t before_ = 0;  // bytes dropped before data_[0]
  Scan scan_;
  std::exception_ptr failed_;
  // While skip_refused reads a refused value again; and the error fail_at was placing when a
  // refusal came first.
  bool skipping_ = false;
  struct Pending {
    Errc code;
    std::string detail;
    std::size_t at;
    std::size_t available;
  };
  std::optional<Pending> pending_;
  bool tape_ = false;           // next() records a tape (see next_tape)
  std::size_t value_begin_ = 0;  // the last value read, in data_
  std::size_t value_end_ = 0;
  std::vector<std::uint64_t> stack_;  // the parser's, kept from value to value
};

// A Reader made for one small message (transit::read) paid, on every message, for making its
// MsgpackReader: the object, the decoder's frames and cache slots, the parser's stack and the
// value stack, five allocations and frees of the six a 97-byte message made, and their
// constructors. One reader per thread is kept for the next: only one that read from memory
// with no failure and no tape, emptied (Decoder::let_go: no Value of the last document, nothing
// a read handler made or threw, no handlers); what it holds stays bounded (Decoder::reset
// lets go of a large value stack; the frames and slots are bounded by the depth and cache
// limits). Nothing is shared between threads, and a reader in use is never the one kept: a
// read handler's own read, or a second Reader alive, takes it or makes another.
thread_local std::unique_ptr<MsgpackReader> spare_reader;
thread_local bool reuse_readers = true;  // testing::set_msgpack_reader_reuse

void MsgpackReader::retire(std::unique_ptr<Reader::Impl>& self) noexcept {
  if (spare_reader || !reuse_readers || source_ || tape_ || failed_ || skipping_ || pending_)
    return;
  decoder_.let_go();
  // A destructor let_go ran (of a user object a handler made) may have read, and left its
  // reader here: that one stays.
  if (!spare_reader) spare_reader.reset(static_cast<MsgpackReader*>(self.release()));
}

}  // namespace

void testing::set_msgpack_pairs_look(std::size_t bytes) noexcept { pairs_look = bytes; }
std::size_t testing::msgpack_pairs_reads() noexcept { return pairs_reads; }
void testing::set_msgpack_reader_reuse(bool on) noexcept {
  reuse_readers = on;
  if (!on) spare_reader.reset();
}
bool testing::msgpack_reader_kept() noexcept { return spare_reader != nullptr; }

std::unique_ptr<Reader::Impl> make_msgpack_reader(std::string_view input,
                                                  const ReadOptions& options) {
  if (spare_reader && spare_reader->made_as(options)) {
    spare_reader->reopen(input, options.handlers);
    return std::move(spare_reader);
  }
  return std::make_unique<MsgpackReader>(input, options);
}

std::unique_ptr<Reader::Impl> make_msgpack_reader(Source& source, const ReadOptions& options) {
  return std::make_unique<MsgpackReader>(source, options);
}

}  // namespace transit::detail
