// SPDX-License-Identifier: Apache-2.0
// Internal to json_reader.cpp and json_reader_tape.cpp.
#pragma once

// JSON and JSON-Verbose input. A text in memory is parsed by simdjson when the library is built
// with it, and its document walked into the decoder's events; a stream from a Source, and any
// text simdjson refuses, goes through RapidJSON's SAX Reader, whose events go straight to the
// decoder. Either way the Transit rules are the decoder's alone.
// RapidJSON scans strings and whitespace 16 bytes at a time with SSE2 (every x86-64 has it).
#if defined(__SSE2__) && !defined(RAPIDJSON_SSE2)
#define RAPIDJSON_SSE2
#endif
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include <rapidjson/error/en.h>
#include <rapidjson/reader.h>
#ifdef TRANSIT_HAVE_SIMDJSON
#include <simdjson.h>
#endif

#include <algorithm>
#include <bit>
#include <cstdint>
#include <charconv>
#include <cmath>
#include <cstring>
#include <exception>
#include <memory>
#include <optional>
#include <string_view>
#include <utility>
#include <type_traits>

#include "backend.h"
#include "codec/codec.h"
#include "read/decoder.h"
#include "json/readable_padding.h"
#include "testing.h"
#include "model/value_internal.h"

namespace transit::detail::json {

// JSON's whitespace (RFC 8259: space, tab, line feed, carriage return).
constexpr bool is_json_space(char c) noexcept {
  return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

// What may stand between two tokens.
constexpr bool is_separator(char c) noexcept { return is_json_space(c) || c == ',' || c == ':'; }

// Numbers arrive as text so that integers beyond int64 keep every digit (big integers) and
// doubles are parsed correctly rounded. UTF-8 is validated per string by is_valid_utf8, which
// has an ASCII fast path, instead of RapidJSON's per-character transcoder.
constexpr unsigned kParseFlags = rapidjson::kParseStopWhenDoneFlag |
                                 rapidjson::kParseNumbersAsStringsFlag;

// The error of a number that does not fit a double, whichever parser finds it: RapidJSON
// (kParseErrorNumberTooBig: an exponent past 308 plus the fraction digits, or an integer part
// past about 1.8e308) or SaxHandler::number (a value that rounds to infinity, `10e308`).
// JSON has no infinity and Transit writes one as "~zINF", so a bare number beyond a double is
// too_large on every path (Java's and JavaScript's parsers read it as Infinity; RapidJSON
// cannot, as it stops at `1e400`, and a Source has only RapidJSON).
inline constexpr std::string_view kNumberTooLarge =
    "number beyond the range of a double (or an integer of more than 308 digits)";

// Limits the handler checks on every event; see ReadOptions.
struct Limits {
  std::size_t max_string_length;
  std::size_t value_end;  // offset past which the value is too large
  std::size_t max_value_bytes;
};

// Each event first says where its token starts (see MemoryInput and SourceInput) and checks
// that the token ends within the value's byte limit; an error thrown after that is placed at
// the start of the token that raised it.
// kTape: the decoder records a tape for a typed read, and each event tells it where its token
// starts; an untyped read pays nothing for that.
template <class Input, bool kTape = false>
class SaxHandler {
 public:
  SaxHandler(Decoder& decoder, Input& input, const Limits& limits)
      : d_(decoder), in_(input), limits_(limits) {}

  bool Null() { return token(4), at(), d_.null(), done(); }
  bool Bool(bool b) { return token(b ? 4 : 5), at(), d_.boolean(b), done(); }
  // Only RawNumber is called under kParseNumbersAsStringsFlag; these complete the concept.
  bool Int(int i) { return d_.integer(i), done(); }
  bool Uint(unsigned u) { return d_.integer(u), done(); }
  bool Int64(std::int64_t i) { return d_.integer(i), done(); }
  bool Uint64(std::uint64_t u) { return number(std::to_string(u)); }
  bool Double(double d) { return d_.floating(d), done(); }
  bool RawNumber(const char* s, rapidjson::SizeType n, bool) {
    in_.mark_number(s);
    at();
    return number({s, n});
  }
  bool String(const char* s, rapidjson::SizeType n, bool) {
    in_.mark_string(s);
    at();
    check_string_extent(s, n);
    const std::string_view text(s, n);
    check_length(text, "string");
    d_.event_string(text);  // its UTF-8 checked there
    return done();
  }
  bool Key(const char* s, rapidjson::SizeType n, bool copy) { return String(s, n, copy); }
  // An untyped read's containers, which announce no count, by the decoder's paths for them
  // (uncounted_begin, uncounted_end); a typed read's as before, most of them onto the tape.
  // (Through uncounted_begin too, GCC compiled the typed unit otherwise: typed reads of JSON
  // in memory 0.5% more instructions; through helpers of this class with `if constexpr`,
  // JSON's unit: in-memory reads 0.1-0.6% more.)
  bool StartObject() {
    return token(1), at(), kTape ? d_.map_begin() : d_.uncounted_begin(false), done();
  }
  bool EndObject(rapidjson::SizeType) {
    return token(1), at(), kTape ? d_.map_end() : d_.uncounted_end(false), done();
  }
  bool StartArray() {
    return token(1), at(), kTape ? d_.array_begin() : d_.uncounted_begin(true), done();
  }
  bool EndArray(rapidjson::SizeType) {
    return token(1), at(), kTape ? d_.array_end() : d_.uncounted_end(true), done();
  }

 private:
  void at() {
    if constexpr (kTape) d_.mark(in_.token_start());
  }
  // A token of `length` bytes that ends at the cursor.
  void token(std::size_t length) {
    in_.mark_back(length);
    check_extent(length);
  }
  // The token takes at least `length` bytes from its start.
  void check_extent(std::size_t length) {
    if (in_.token_start() + length > limits_.value_end)
      throw_error(Errc::too_large, "value is longer than " +
                                       std::to_string(limits_.max_value_bytes) + " bytes");
  }
  // A string takes its raw bytes in the input, quotes and escapes included (max_value_bytes
  // counts bytes on the wire): for `n` bytes unescaped, at least n + 2 and at most 6n + 2 (a
  // `\u0041` is 6 bytes for 1). Counted exactly only when that could cross the limit.
  void check_string_extent(const char* s, std::size_t n) {
    if (in_.token_start() + 6 * n + 2 <= limits_.value_end) [[likely]]
      return;
    if (in_.string_end(s) > limits_.value_end)
      throw_error(Errc::too_large, "value is longer than " +
                                       std::to_string(limits_.max_value_bytes) + " bytes");
  }
  bool done() {
    in_.arm();
    return true;
  }
  void check_length(std::string_view text, const char* what) {
    if (text.size() > limits_.max_string_length)
      throw_error(Errc::too_large, std::string(what) + " of " + std::to_string(text.size()) +
                                       " bytes is longer than " +
                                       std::to_string(limits_.max_string_length));
  }

  bool number(std::string_view text) {
    check_extent(text.size());
    check_length(text, "number");
    // RapidJSON has checked the syntax: `-?(0|[1-9][0-9]*)`, then maybe a fraction or an
    // exponent. Up to 18 digits (every id and count of the corpora) cannot overflow an int64:
    // read by a loop with no overflow test, where from_chars cost about 90 instructions a
    // number (keywords' read without simdjson: 27,380 of them).
    const bool negative = text[0] == '-';
    const char* p = text.data() + negative;
    const char* const end = text.data() + text.size();
    if (end - p <= 18) {
      std::uint64_t digits = 0;
      for (; p != end; ++p) {
        const unsigned digit = static_cast<unsigned char>(*p) - unsigned{'0'};
        if (digit > 9) break;  // '.', 'e' or 'E'
        digits = 10 * digits + digit;
      }
      if (p != end)
        d_.floating(to_double(text));
      else
        d_.integer(negative ? -static_cast<std::int64_t>(digits)
                            : static_cast<std::int64_t>(digits));
      return done();
    }
    // Longer: an integer parses to the end; a number whose digits stop early, at '.', 'e' or
    // 'E', is a double (from_chars stops there whether or not the digits fit an int64);
    // digits to the end beyond int64 are a big integer.
    std::int64_t i = 0;
    const auto [stop, ec] = std::from_chars(text.data(), end, i);
    if (ec == std::errc() && stop == end) {
      d_.integer(i);
    } else if (stop != end) {
      d_.floating(to_double(text));
    } else {
      d_.big_integer(text);
    }
    return done();
  }

  // A double's text (RapidJSON has checked its syntax) as the double it rounds to. RapidJSON
  // passes a value that rounds past the largest double (`10e308`, `1.7976931348623159e308`);
  // simdjson refuses it and so leaves it to this function too: too_large, as RapidJSON's own
  // refusal of `1e400`. Out of line: kept inline, the test moved GCC's inlining elsewhere in
  // the unit (its copy of Decoder::null() grew from 0xd0 to 0x152 bytes, twitter JSON 0.13%
  // more instructions a read).
  [[gnu::noinline]] static double to_double(std::string_view text) {
    const auto d = parse_double(text);
    if (!d) throw_error(Errc::syntax, "bad number " + std::string(text));
    if (std::isinf(*d)) throw_error(Errc::too_large, kNumberTooLarge);
    return *d;
  }

  Decoder& d_;
  Input& in_;
  const Limits& limits_;
};

/// Where a scan for the bracket that closes an array's or object's text stands, `at` bytes from
/// the value's start: strings and their escapes minded, nothing else checked (whether the text
/// is JSON is the parser's to say; if it is, RapidJSON's read of the value ends where the scan
/// does). What lets simdjson read one value of many alone, from a Source's chunk
/// (SourceInput::buffered_value) or from a text in memory (MemoryInput::value_text).
struct ValueScan {
  std::size_t at = 0;
  std::size_t depth = 0;
  bool in_string = false;
  /// Scans on to `end`; true when the value closed (`at` is then its length). In
  /// json_source.cpp, out of JSON's unit (see there).
  bool run(const char* v, const char* end) noexcept;
};

/// Input from a Source, as a RapidJSON stream. It holds one chunk at a time: RapidJSON
/// copies what it keeps (strings, numbers), so bytes behind the cursor can be dropped and
/// memory stays flat however long the stream is. A value read in place may hold more (see
/// buffered_value), handed to RapidJSON a read at a time if it reads that value after all.
class SourceInput {
 public:
  using Ch = char;
  using Stream = SourceInput;
  static constexpr unsigned kFlags = 0;
  /// Bytes behind the cursor are dropped: a value cannot be read twice.
  static constexpr bool kRereadable = false;

  /// Bytes after a chunk that a parser of the text in place may read (their content unused):
  /// simdjson's padding (see buffered_value). Zeroed, so memcheck sees no undefined byte.
#ifdef TRANSIT_HAVE_SIMDJSON
  static constexpr std::size_t kPadding = simdjson::SIMDJSON_PADDING;
#else
  static constexpr std::size_t kPadding = 0;
#endif

  // A chunk of at least one byte: an empty buffer asked the Source for 0 bytes, took the 0 it
  // got for the end of the input, and the read returned no value at all.
  SourceInput(Source& source, std::size_t chunk_size)
      : source_(&source),
        chunk_size_(std::clamp<std::size_t>(chunk_size, 1, SIZE_MAX - kPadding)),
        buf_(chunk_size_ + kPadding) {
    chunk_ = p_ = end_ = filled_ = buf_.data();
  }
  Stream& stream() noexcept { return *this; }

  Ch Peek() {
    if (p_ == end_ && !refill()) return '\0';
    return *p_;
  }
  Ch Take() {
    const Ch c = Peek();
    if (p_ != end_) {
      if (armed_ && !is_separator(c)) {
        armed_ = false;
        token_ = Tell();
        token_located_ = false;
      }
      ++p_;
    }
    return c;
  }
  std::size_t Tell() const noexcept { return before_ + static_cast<std::size_t>(p_ - chunk_); }
  // Output half of RapidJSON's stream concept; only in-situ parsing uses it, and we don't.
  Ch* PutBegin() { return nullptr; }
  void Put(Ch) {}
  void Flush() {}
  std::size_t PutEnd(Ch*) { return 0; }

  /// Skips whitespace between values; false at the end of the input. No value is being
  /// read: a refill here drops only whitespace, and checks no value's limit (the last value's
  /// did: whitespace after it that crossed a chunk edge past its limit was an Error(too_large)
  /// with no byte, line or path, as soon as its chunk was used up).
  bool skip_to_value() {
    value_end_ = static_cast<std::size_t>(-1);
    for (;;) {
      const Ch c = Peek();
      if (p_ == end_) return false;
      if (c != ' ' && c != '\n' && c != '\r' && c != '\t') return true;
      ++p_;
    }
  }
  /// True when the input is exhausted at the cursor.
  bool at_end() { return p_ == end_ && !refill(); }

  /// The text of the array or object that starts at the cursor, when it is all in the
  /// buffer (kPadding readable bytes follow it); else empty: a value of another kind, or one
  /// not closed within `cap` bytes or before the input ends or fails. While the Source fills
  /// whole chunks (a file, a producer ahead of the reader) more chunks are read, up to `cap`
  /// bytes from the value's start; a read that came short may have waited, so none is read
  /// after one, and a reader never waits here for bytes the byte-at-a-time read would not wait
  /// for. The text ends at the bracket that closes the first one, strings and their escapes
  /// minded; whether it is JSON is the parser's to say. Bytes read ahead are handed to
  /// RapidJSON one read at a time (see refill), so a value read a byte at a time after all
  /// meets the chunk edges, the end and the Source's failure where it would have.
  std::string_view buffered_value(std::size_t cap) {
    if (p_ == end_ || (*p_ != '[' && *p_ != '{')) return {};
    ValueScan scan;
    for (;;) {
      if (scan.run(p_, filled_)) return {p_, scan.at};
      if (!read_ahead(cap)) return {};
    }
  }
  /// Moves the cursor past `n` bytes of the buffer (a value read from buffered_value), into
  /// the read it ends in.
  void skip(std::size_t n) noexcept {
    p_ += n;
    while (end_ < p_) next_edge();
  }

  /// A value starts at the cursor; reading past `value_end` is an Error(too_large).
  void begin_value(std::size_t value_end, std::size_t max_value_bytes) noexcept {
    value_end_ = value_end;
    max_value_bytes_ = max_value_bytes;
    armed_ = true;
  }
  /// A typed read's value starts at the cursor: the newlines in the chunks dropped while it is
  /// read are noted, so that locate places any of its tokens by line and column once the
  /// value is in and its binder fails (a parse error is placed while its chunk is held).
  /// Memory: 8 bytes a newline of the value, given back after a value of more than 4K. Off
  /// (`on` false) for a value read into a Value, which is placed while its chunk is held: a
  /// stream of such values pays one test a value here.
  void note_lines(bool on) {
    if (noting_) {
      if (newlines_.capacity() > 4096)
        std::vector<std::size_t>().swap(newlines_);
      else
        newlines_.clear();
    }
    noting_ = on;
    if (!on) return;
    noted_from_ = before_;
    noted_lines_ = lines_;
    noted_line_start_ = line_start_;
  }
  /// An event has been handled: the next byte taken that is not a separator starts a token.
  void arm() noexcept { armed_ = true; }
  /// Where the token being read (or the one that raised the last event) starts: noted as its
  /// first byte is taken, so the marks an event gives are not needed.
  std::size_t token_start() const noexcept { return armed_ ? Tell() : token_; }
  void mark_string(const char*) noexcept {}
  /// Where the string whose event is being handled ends, past its closing quote: the
  /// cursor, as RapidJSON reads a stream of this kind in place (no local copy).
  std::size_t string_end(const char*) const noexcept { return Tell(); }
  void mark_number(const char*) noexcept {}
  void mark_back(std::size_t) noexcept {}
  void rewind(std::size_t) noexcept {}

  /// Line and column of the token start, or of an absolute offset at or after the current
  /// chunk's start.
  Location locate(std::size_t offset) const {
    if (token_located_ && offset == token_) return token_loc_;
    // In a chunk already dropped: parse errors point a few bytes back (the start of an
    // escape), and tokens cannot hold a raw newline, so there is none between the offset and
    // this chunk when the last newline before the chunk is before it.
    if (offset < before_) {
      if (offset >= line_start_) return Location{offset, 1 + lines_, offset - line_start_ + 1};
      // A token of a typed read's value, placed after its chunk was dropped (see note_lines).
      if (noting_ && offset >= noted_from_) {
        const std::size_t k = static_cast<std::size_t>(
            std::lower_bound(newlines_.begin(), newlines_.end(), offset) - newlines_.begin());
        const std::size_t line_start = k != 0 ? newlines_[k - 1] + 1 : noted_line_start_;
        return Location{offset, 1 + noted_lines_ + k, offset - line_start + 1};
      }
      return Location{offset, 0, 0};
    }
    Location where{offset, 1 + lines_, 0};
    std::size_t line_start = line_start_;
    const std::size_t upto = std::min<std::size_t>(offset - before_, static_cast<std::size_t>(end_ - chunk_));
    // By memchr, as refill counts them: refill places every token begun in a chunk it drops,
    // and a byte at a time this was 4.3% of keywords' read from a Source.
    for (const char* q = chunk_;
         (q = static_cast<const char*>(std::memchr(q, '\n', static_cast<std::size_t>(chunk_ + upto - q)))) != nullptr;
         ++q) {
      ++where.line;
      line_start = before_ + static_cast<std::size_t>(q - chunk_) + 1;
    }
    where.column = offset - line_start + 1;
    return where;
  }

 private:
  // Drops the bytes behind the cursor and reads the next chunk; false at the end of the
  // input. In json_source.cpp, out of JSON's unit, which it would change (see there).
  bool refill();

  // Reads one more chunk after the bytes held, for a value not closed in them (see
  // buffered_value); false when none may be read. In json_source.cpp.
  bool read_ahead(std::size_t cap);
  // The bytes behind the cursor are dropped, their newlines counted.
  void drop_to_cursor();
  // The next read's bytes, held already, become the chunk RapidJSON reads.
  void next_edge() noexcept {
    end_ = chunk_ + (edges_[edge_head_++] - before_);
    if (edge_head_ == edges_.size()) edges_.clear(), edge_head_ = 0;
  }

  Source* source_ = nullptr;
  std::size_t chunk_size_;  // bytes asked of the Source at a time
  std::vector<char> buf_;   // at least a chunk and kPadding bytes
  const char* filled_;      // end of the bytes read; past end_ when some were read ahead
  std::vector<std::size_t> edges_;  // offsets where the reads past end_ end, oldest first
  std::size_t edge_head_ = 0;
  std::exception_ptr pending_;      // what a read ahead threw, for refill to throw at its read
  bool source_ended_ = false;       // a read ahead returned 0
  bool last_read_full_ = false;     // the last read filled its chunk
  const char* chunk_;  // start of the bytes held; `before_` bytes came before it
  const char* p_;
  const char* end_;
  std::size_t before_ = 0;
  std::size_t lines_ = 0;       // newlines before chunk_
  std::size_t line_start_ = 0;  // offset just after the last of them
  // While a typed read's value is read (note_lines): the offsets of the newlines dropped since
  // noted_from_, where lines_ and line_start_ were noted_lines_ and noted_line_start_.
  bool noting_ = false;
  std::vector<std::size_t> newlines_;
  std::size_t noted_from_ = 0;
  std::size_t noted_lines_ = 0;
  std::size_t noted_line_start_ = 0;
  std::size_t value_end_ = static_cast<std::size_t>(-1);
  std::size_t max_value_bytes_ = 0;
  std::size_t token_ = 0;  // offset of the last token's first byte
  Location token_loc_;     // its line and column, once its chunk is dropped
  bool token_located_ = false;
  bool armed_ = true;  // no token has started since the last event
  bool eof_ = false;
};

/// Drops a half-built value's frames when a read attempt ends, while its ArenaScope (declared
/// just before it) is still open. Items of an open sequence live in the arena's blocks; dropped
/// after the scope closed (by the next attempt's Decoder::reset after a CacheNeeded, or by
/// ~Decoder after an error), the item whose release frees the arena freed the slots still to
/// be destroyed: a heap-use-after-free the JSON fuzzer found
/// (tests/fuzz/regressions/json/cache-needed-arena-keywords.json). After a whole value the
/// frames are empty and this does nothing.
struct FramesDroppedInScope {
  Decoder& decoder;
  bool armed;
  ~FramesDroppedInScope() {
    if (armed) decoder.drop_frames();
  }
};

/// Input in memory: a private NUL-terminated copy, parsed in situ so that RapidJSON's SSE2
/// string and whitespace scanners apply and strings are unescaped in place, not copied. The
/// copy is made when RapidJSON first needs it: a text simdjson reads whole never pays for it.
class MemoryInput {
 public:
  using Stream = rapidjson::InsituStringStream;
  static constexpr unsigned kFlags = rapidjson::kParseInsituFlag;
  /// The original text is at hand, so a value can be read again (see rewind).
  static constexpr bool kRereadable = true;

  explicit MemoryInput(std::string_view text) : text_(text), stream_(nullptr) {}
  Stream& stream() {
    if (!buf_) make_copy();
    return stream_;
  }
  std::size_t Tell() const noexcept {
    return buf_ ? static_cast<std::size_t>(stream_.src_ - buf_.get()) : pos_;
  }
  /// The whole text, and a move of the cursor within it (after simdjson read a value).
  std::string_view text() const noexcept { return text_; }
  void seek(std::size_t offset) noexcept {
    if (buf_)
      stream_.src_ = buf_.get() + offset;
    else
      pos_ = offset;
  }

  bool skip_to_value() noexcept {
    std::size_t p = Tell();
    while (p != text_.size() && is_json_space(text_[p])) ++p;
    seek(p);
    return p != text_.size();
  }
  bool at_end() const noexcept { return Tell() >= text_.size(); }

  /// The text of the array or object that starts at the cursor when it closes within `cap`
  /// bytes; else empty (a value of another kind, or one not closed within them).
  std::string_view value_text(std::size_t cap) const noexcept {
    const std::size_t p = Tell();
    if (p == text_.size() || (text_[p] != '[' && text_[p] != '{')) return {};
    ValueScan scan;
    const std::size_t n = std::min(cap, text_.size() - p);
    if (!scan.run(text_.data() + p, text_.data() + p + n)) return {};
    return text_.substr(p, scan.at);
  }

  /// A value starts at the cursor (its size is checked by the handler, on every event).
  void begin_value(std::size_t, std::size_t) noexcept { token_ = Tell(); }
  void note_lines(bool) noexcept {}  // the text is at hand
  void arm() noexcept {}
  /// Where the token that raised the last event starts, as the event marked it. The cursor
  /// cannot say: RapidJSON parses strings and numbers on a copy of the stream and calls the
  /// handler before it writes the copy back.
  std::size_t token_start() const noexcept { return token_; }
  /// In situ, a string's text starts just after its opening quote, a number's at its start.
  void mark_string(const char* s) noexcept { token_ = static_cast<std::size_t>(s - buf_.get()) - 1; }
  /// Where the string whose text (in situ) starts at `s` ends, past its closing quote, found
  /// in the original text: the cursor is RapidJSON's copy's until the event returns.
  std::size_t string_end(const char* s) const noexcept {
    std::size_t i = static_cast<std::size_t>(s - buf_.get());
    for (;;) {
      i = text_.find_first_of("\\\"", i);
      if (i == std::string_view::npos) return text_.size();  // not met: RapidJSON found it
      if (text_[i] == '"') return i + 1;
      i += 2;  // a backslash and the byte it escapes
    }
  }
  void mark_number(const char* s) noexcept { token_ = static_cast<std::size_t>(s - buf_.get()); }
  /// A token of `length` bytes that ends at the cursor (brackets, null, true, false).
  void mark_back(std::size_t length) noexcept { token_ = Tell() - length; }

  /// Moves the cursor back to `start` and restores the bytes from there to the cursor, which
  /// parsing in situ has unescaped in place, from the original text. RapidJSON writes the
  /// stream back when an exception leaves a string, so nothing past the cursor was touched.
  void rewind(std::size_t start) noexcept {
    const std::size_t end = Tell();
    if (buf_) {
      std::memcpy(buf_.get() + start, text_.data() + start, end - start);
      blank_loose_controls(start, end);
    }
    seek(start);
  }

  /// Line and column from the original text (the copy has strings unescaped in place).
  Location locate(std::size_t offset) const {
    Location where{offset, 1, 0};
    const std::string_view before = text_.substr(0, offset);
    where.line += static_cast<std::size_t>(std::count(before.begin(), before.end(), '\n'));
    const std::size_t line_start = before.rfind('\n');
    where.column = offset - (line_start == std::string_view::npos ? 0 : line_start + 1) + 1;
    return where;
  }

 private:
  void make_copy() {
    buf_ = std::make_unique_for_overwrite<char[]>(padded(text_.size()));
    if (!text_.empty()) std::memcpy(buf_.get(), text_.data(), text_.size());
    std::memset(buf_.get() + text_.size(), 0, padded(text_.size()) - text_.size());
    blank_loose_controls(0, text_.size());
    stream_ = Stream(buf_.get());
    stream_.src_ = buf_.get() + pos_;
  }

  /// RapidJSON's SSE2 scan of strings in situ lets raw bytes 0x1A-0x1F through (it compares
  /// with 0x19), which its byte-by-byte scan, and so a Source, rejects. Raw, they are errors
  /// wherever they stand; as 0x01 in the copy parsed, they are the same error, at the same
  /// byte, on every path.
  void blank_loose_controls(std::size_t from, std::size_t to) noexcept {
    auto* p = reinterpret_cast<unsigned char*>(buf_.get());
    const std::size_t n = to;
    std::size_t i = from;
#ifdef __SSE2__
    // 16 bytes at a time (about 12 GB/s, against RapidJSON's 1-2): blocks without one are
    // only looked at.
    const __m128i first = _mm_set1_epi8(0x1a), five = _mm_set1_epi8(5), one = _mm_set1_epi8(1);
    for (; i + 16 <= n; i += 16) {
      __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
      const __m128i t = _mm_sub_epi8(x, first);
      const __m128i hit = _mm_cmpeq_epi8(_mm_min_epu8(t, five), t);  // x - 0x1a <= 5
      if (_mm_movemask_epi8(hit) == 0) continue;
      x = _mm_or_si128(_mm_andnot_si128(hit, x), _mm_and_si128(hit, one));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(p + i), x);
    }
#endif
    for (; i < n; ++i)
      if (static_cast<unsigned char>(p[i] - 0x1a) < 6) p[i] = 0x01;
  }

  // RapidJSON's SSE2 scanners load whole aligned 16-byte blocks, so the block holding the
  // terminating NUL must lie inside the allocation (new[] aligns to 16 on x86-64).
  static std::size_t padded(std::size_t size) noexcept {
    return ((size + 1 + 15) & ~std::size_t{15}) + 16;
  }

  std::string_view text_;
  std::unique_ptr<char[]> buf_;  // the copy RapidJSON parses, once it is needed
  Stream stream_;
  std::size_t pos_ = 0;    // the cursor while there is no copy
  std::size_t token_ = 0;  // offset of the first byte of the last event's token
};

#ifdef TRANSIT_HAVE_SIMDJSON
/// simdjson's DOM parser for in-memory text. One per thread: its buffers, sized to the largest
/// text read yet, serve every text after it; past kKeepCapacity bytes they are let go after
/// the read that needed them, so one huge text does not pin its buffers to the thread.
class SimdjsonParser {
 public:
  static constexpr std::size_t kKeepCapacity = std::size_t{4} << 20;

  /// The thread's parser, or null while it is in use (a read handler reading JSON inside a
  /// read): the inner read then goes to RapidJSON rather than overwrite the outer document.
  SimdjsonParser() : parser_(busy_ ? nullptr : &parser()) { busy_ = parser_ != nullptr; }
  /// `own` (a ValueStream's), held as the thread's parser is: unless busy, this thread's
  /// walk (and its zeros_stand) is of the document `own` holds, which adopt names.
  explicit SimdjsonParser(simdjson::dom::parser& own) : parser_(busy_ ? nullptr : &own) {
    busy_ = parser_ != nullptr;
  }
  ~SimdjsonParser() {
    if (!parser_) return;
    busy_ = false;
    if (parser_->capacity() > kKeepCapacity) *parser_ = simdjson::dom::parser();
  }
  SimdjsonParser(const SimdjsonParser&) = delete;
  SimdjsonParser& operator=(const SimdjsonParser&) = delete;

  /// Parses `text` as exactly one JSON value into the parser's document; null on any error,
  /// or when the parser is busy. The document is the parser's own (its public `doc`): valid
  /// until the next parse. simdjson reads up to SIMDJSON_PADDING bytes past the text (whatever
  /// they hold: strings are scanned in whole blocks, and the scan stops at the closing quote,
  /// which is inside the text); when those bytes are readable it parses the text in place,
  /// else from a copy in its padded buffer (a citm_catalog read: a 427 KB copy, 13.4 K
  /// first-level misses).
  const simdjson::dom::document* parse(std::string_view text) {
    return parse(text, !padding_readable(text.data(), text.size(), simdjson::SIMDJSON_PADDING));
  }
  /// As parse(text), from a copy or in place as `copy` says: in place only when the
  /// SIMDJSON_PADDING bytes after the text lie in its allocation (SourceInput's chunk).
  const simdjson::dom::document* parse(std::string_view text, bool copy) {
    simdjson::dom::element root;
    if (!parser_ || parser_->parse(text.data(), text.size(), copy).get(root)) return nullptr;
    text_ = text;
    zeros_ = Zeros::unknown;
    return &parser_->doc;
  }

  /// The document of the parser held (SimdjsonParser(own)), which a stream parsed from `text`;
  /// null when the parser is busy.
  const simdjson::dom::document* adopt(std::string_view text) noexcept {
    if (!parser_) return nullptr;
    text_ = text;
    zeros_ = Zeros::unknown;
    return &parser_->doc;
  }

  /// Whether the zero doubles of the document last parsed on this thread may be walked as
  /// simdjson read them. simdjson reads a zero mantissa with any exponent as 0 (`0e400`), where
  /// RapidJSON, the reference, refuses a positive exponent above 308 plus the fraction digits
  /// it counted (kParseErrorNumberTooBig), zero or not, and a Source has only RapidJSON; so a
  /// walk that meets a zero double asks here, and on false gives the value to RapidJSON, which
  /// then gives its own error. Asked once a document (the walk tests only for a zero; this is
  /// its cold side): a text with no 'e' after a mantissa of zeros and before an exponent of
  /// three digits or more is let through at once; else RapidJSON itself says, so its number
  /// rules are not copied here.
  /// Throws the Error that hands the value to RapidJSON unless zeros_stand().
  [[gnu::noinline, gnu::cold]] static void check_zero() {
    if (!zeros_stand()) refuse_zero();
  }
  [[noreturn, gnu::noinline, gnu::cold]] static void refuse_zero() {
    throw_error(Errc::too_large, "a zero with an exponent RapidJSON refuses");
  }
  /// Whether zeros_stand() found that they do not.
  static bool zeros_refused() noexcept { return zeros_ == Zeros::refused; }
  [[gnu::noinline, gnu::cold]] static bool zeros_stand() {
    if (zeros_ == Zeros::unknown)
      zeros_ = has_big_zero(text_) && refused_by_rapidjson(text_) ? Zeros::refused : Zeros::stand;
    return zeros_ == Zeros::stand;
  }

 private:
  static simdjson::dom::parser& parser() {
    thread_local simdjson::dom::parser p;
    return p;
  }
  /// Whether `text` holds an 'e' or 'E' after a mantissa of zeros (`0`, `-0.00`) and before a
  /// positive exponent of three significant digits or more. Such a mantissa ends in the digit
  /// 0, so only an 'e' just after a '0' is looked at: 16 bytes at a time with SSE2, where a
  /// byte-by-byte scan cost a document holding one zero double 45% more instructions (twitter
  /// with a 0.0 added: 6.2 M a read without the scan, 9.1 M with it).
  static bool has_big_zero(std::string_view text) noexcept {
    const char* const p = text.data();
    const std::size_t n = text.size();
    std::size_t e = 1;
#ifdef __SSE2__
    const __m128i zero = _mm_set1_epi8('0'), e_lower = _mm_set1_epi8('e');
    const __m128i case_bit = _mm_set1_epi8(0x20);
    for (; e + 16 <= n; e += 16) {
      const __m128i here = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + e));
      const __m128i before = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + e - 1));
      unsigned hits = static_cast<unsigned>(_mm_movemask_epi8(
          _mm_and_si128(_mm_cmpeq_epi8(_mm_or_si128(here, case_bit), e_lower),
                        _mm_cmpeq_epi8(before, zero))));
      for (; hits != 0; hits &= hits - 1)
        if (big_zero_at(text, e + static_cast<std::size_t>(std::countr_zero(hits)))) return true;
    }
#endif
    for (; e < n; ++e)
      if (p[e - 1] == '0' && (p[e] | 0x20) == 'e' && big_zero_at(text, e)) return true;
    return false;
  }

  /// Whether the 'e' or 'E' at `e`, just after a '0', ends a mantissa of zeros and starts a
  /// positive exponent of three significant digits or more.
  static bool big_zero_at(std::string_view text, std::size_t e) noexcept {
    const auto digit = [](char c) { return c >= '0' && c <= '9'; };
    std::size_t m = e;
    while (m != 0 && (text[m - 1] == '0' || text[m - 1] == '.')) --m;
    if (m != 0 && digit(text[m - 1])) return false;  // a mantissa not all zeros
    std::size_t x = e + 1;
    if (x < text.size() && text[x] == '+') ++x;
    while (x < text.size() && text[x] == '0') ++x;
    std::size_t significant = 0;
    while (x < text.size() && digit(text[x])) ++x, ++significant;
    return significant >= 3;
  }

  /// Whether RapidJSON refuses a number of `text` as too big (its other errors simdjson has
  /// already refused). Defined in json_reader_tape.cpp, so that the parser it instantiates is
  /// not compiled beside the untyped walk.
  static bool refused_by_rapidjson(std::string_view text);

  enum class Zeros : std::uint8_t { unknown, stand, refused };
  static thread_local bool busy_;
  static thread_local std::string_view text_;  // the text of the document last parsed
  static thread_local Zeros zeros_;            // what zeros_stand() found in it
  simdjson::dom::parser* parser_;
};

inline thread_local bool SimdjsonParser::busy_ = false;
inline thread_local std::string_view SimdjsonParser::text_;
inline thread_local SimdjsonParser::Zeros SimdjsonParser::zeros_ = SimdjsonParser::Zeros::unknown;

/// The values of a text of many in memory as simdjson's parse_many reads them: stage 1 runs
/// once over a batch of values (batch() bytes), which finds where each ends, and stage 2 over
/// one value at a time, into the parser's document; so a value pays neither a scan for its end
/// (ValueScan) nor a stage 1 call of its own. The stream is only a faster way to a value a
/// value's own parse would give: a document is used only when it starts where the reader's
/// cursor is and is an array or object (a scalar is RapidJSON's). Its bytes are then exactly
/// the value's text: stage 1 began at a value's start, outside any string, so every
/// structural it found is one, and stage 2 accepted the value whole from the cursor. Anything
/// else (an error anywhere in a batch, which stage 1 reports for the batch's first value; a
/// value longer than a batch; a stream that split the text otherwise, as around a scalar) ends
/// the stream or leaves the value to the reader's other paths, which read it as before.
/// The parser is the stream's own, held between values, which user code runs between: another
/// reader on the thread uses the thread's. Its buffers follow the batch, not the text. Its
/// stage 1 runs on the calling thread (simdjson's threaded mode, on in Debian's build, starts
/// a worker thread for it; a library starts none behind its user's back).
class ValueStream {
 public:
  /// Batch bytes (testing::set_json_stream_batch; 0: no stream). 16 KiB: about 220 KB of
  /// buffers, and the value cut at a batch's end, scanned again in the next, is then a small
  /// part of a batch; values longer than a batch go a value at a time as before.
  static std::size_t batch() noexcept { return testing::json_stream_batch(); }

  // In json_source.cpp, as `at` is.
  ValueStream();
  ~ValueStream();
  ValueStream(const ValueStream&) = delete;
  ValueStream& operator=(const ValueStream&) = delete;

  simdjson::dom::parser& parser() noexcept { return parser_; }

  /// The document of the array or object at `start` of `text` when the stream read it, at
  /// most `cap` bytes long (its end is then `start` plus its size, in `end`); else null. A
  /// stream starts at the first value asked for, and again after one ended with an error, a
  /// batch past the value that met it (so no byte is in more than two stage 1 runs).
  /// As `at`, of the stream `self` holds, made on first use. In json_source.cpp, out of JSON's
  /// unit: inline there, this moved GCC's inlining of the one-document read (its copy of
  /// Decoder::null() grew from 0xd0 to 0x152 bytes, twitter 0.13% more instructions a read).
  static const simdjson::dom::document* at(std::unique_ptr<ValueStream>& self, std::string_view text,
                                           std::size_t start, std::size_t cap, std::size_t& end);
  const simdjson::dom::document* at(std::string_view text, std::size_t start, std::size_t cap,
                                    std::size_t& end);

  /// Forgets the text (the reader is kept for another, or reads one from its start).
  void reset() noexcept;

 private:
  bool begin(std::string_view text, std::size_t start);
  void stop(std::size_t retry_from) noexcept {
    live_ = false;
    retry_from_ = retry_from;
  }

  simdjson::dom::parser parser_;
  std::optional<simdjson::dom::document_stream> stream_;
  simdjson::dom::document_stream::iterator it_;
  std::size_t base_ = 0;        // the offset in the text where the stream's bytes start
  std::size_t end_ = 0;         // and where they end (the text's end, or SIMDJSON_PADDING before)
  std::size_t batch_ = 0;       // the batch of the stream
  std::size_t retry_from_ = 0;  // no stream starts before this offset
  bool live_ = false;
};

/// Whether a container's word on simdjson's tape opens an empty array or object: its item
/// count (bits 32-55; saturated at 0xFFFFFF, never at 0) is 0.
constexpr bool is_empty_container(std::uint64_t word) noexcept {
  return ((word >> 32) & 0xFFFFFF) == 0;
}

/// A container's items (an object's entries), from its word's count, as the count hint of
/// Decoder::array_begin and map_begin; 0 (none announced) where the count saturates. simdjson
/// counts exactly what the text holds, so the hint never claims more than the input has.
constexpr std::size_t announced_items(std::uint64_t word) noexcept {
  const std::size_t n = (word >> 32) & 0xFFFFFF;
  return n == 0xFFFFFF ? 0 : n;
}

/// A container's items as a tape counts them (a map's keys and values), from its word's
/// count: what Token::size holds once the container ends; 0 (not known) where it saturates.
constexpr std::uint32_t tape_items(std::uint64_t word, bool map) noexcept {
  const auto n = static_cast<std::uint32_t>(announced_items(word));
  return map ? 2 * n : n;
}

/// Whether a word of simdjson's tape is the string "^ " (a map array's first item).
inline bool is_map_array_mark(std::uint64_t word, const std::uint8_t* strings) noexcept {
  if (static_cast<char>(word >> 56) != '"') return false;
  // Its 32-bit length, then (only when there are two) its bytes.
  const std::uint8_t* const s = strings + (word & simdjson::internal::JSON_VALUE_MASK);
  std::uint32_t length;
  std::memcpy(&length, s, sizeof length);
  return length == 2 && s[4] == '^' && s[5] == ' ';
}

/// Whether a word of simdjson's tape, an object's first key, is a string that can only be a
/// plain map's key: not a tag (`~#...`) and not a cache code (`^...`, which may name one).
inline bool is_plain_first_key(std::uint64_t word, const std::uint8_t* strings) noexcept {
  const std::uint8_t* const s = strings + (word & simdjson::internal::JSON_VALUE_MASK);
  std::uint32_t length;
  std::memcpy(&length, s, sizeof length);
  // s[4] is the string's first byte (a NUL after an empty one); s[5] is read only when
  // length >= 2.
  return length == 0 || (s[4] != '^' && (s[4] != '~' || length < 2 || s[5] != '#'));
}

/// Gives the decoder the events RapidJSON's handler gives for the same text, in the same
/// order, read straight off the tape of simdjson's document (simdjson 3's doc/tape.md): one
/// 64-bit word per token, its type in the top byte and a 56-bit payload, in document order,
/// keys and values of an object alternating, each container closed by its own word. So one
/// loop walks it with no recursion (however deep the text, no C stack is used) and no
/// element objects: about half the instructions of the element API's recursive walk.
/// simdjson has checked syntax, UTF-8 and numbers' range; an integer that fits neither int64
/// nor uint64 is an error to it, and so is read by RapidJSON, as a big integer. A zero double
/// is one test more: simdjson reads `0e400` as 0, which RapidJSON refuses, so when the text
/// holds such a number the value goes to RapidJSON (SimdjsonParser::zeros_stand). A word of a
/// type this walk does not know (a tape format it was not written for) is an Error, and
/// RapidJSON then reads the text.
///
/// A read into Values (`kTape` false): an empty array or object (a container word whose item
/// count is 0, its closing word next) goes to Decoder::empty_container, delivered whole with
/// no frame pushed and popped where the decoder's rules allow it, its closing word skipped
/// (else it takes the general path); and every other container announces its count.
///
/// A typed read (`kTape`, instantiated only by emit_tape in json_reader_tape.cpp, so that the
/// untyped walk, the hot loop of every untyped read, is compiled apart from it): the same
/// words give the same events, through a Decoder::TapeWalk, which keeps the tape's write
/// position and innermost frame in locals for the batch and goes straight to the tape's
/// path while the tape is being written. A tape (which empty_container always refuses) takes
/// no counts; an empty array is taped in one step (TapeWalk::empty_array), and an array
/// whose first word is "^ " begins as a map array with no string event
/// (TapeWalk::map_array_begin).
///
/// A bounded typed read walks the words from `first` to `stop` (0: to the end) and is told
/// the index of the next word to walk, which is `stop` or one past it (a number's second word).
///
/// `kPlain` (untyped only): the decoder has no tape and no user handlers (plain_walk()), so
/// strings, containers and doubles go to the decoder's forms that do not test that again
/// (json_string<true>, json_array_begin<true>, json_map_begin<true>, plain_scalar).
template <bool kTape, bool kPlain = false>
inline std::size_t emit(Decoder& d, const simdjson::dom::document& doc, std::size_t first = 1,
                        std::size_t stop = 0) {
  constexpr std::uint64_t kPayload = simdjson::internal::JSON_VALUE_MASK;
  const std::uint64_t* const tape = doc.tape.get();
  const std::uint8_t* const strings = doc.string_buf.get();
  // The root word at 0 holds the index just past the root word that closes the tape.
  const std::size_t end = stop != 0 ? stop : static_cast<std::size_t>(tape[0] & kPayload) - 1;
  // No more tokens than words: the tape grows once, not by doubling through the first read.
  if constexpr (kTape)
    if (stop == 0) d.tape_reserve(end);
  struct NoWalk {
    explicit NoWalk(Decoder&) noexcept {}
  };
  // Written back (finish) before any return or throw of this function's own.
  std::conditional_t<kTape, Decoder::TapeWalk, NoWalk> w(d);
  // A container's word also holds its exact item count (bits 32-55, saturated at 0xFFFFFF):
  // an untyped read passes it as the decoder's count hint, as MessagePack's is, so that a
  // plain array or map (a "^ " map array too) is built straight in a node of its size, with
  // no value stack and no copy. Taken out once for costing time (geojson 9%), it measures
  // level or better now that nodes are reserved with no call and maps checked as they are
  // adopted (docs/performance-log.md, "Building the tree"). A typed read's tape does not use it.
  std::size_t i = first;
  for (; i < end; ++i) {
    const std::uint64_t word = tape[i];
    switch (static_cast<char>(word >> 56)) {
      case '"': {  // at its offset in the string buffer: a 32-bit length, then the bytes
        const std::uint8_t* const s = strings + (word & kPayload);
        std::uint32_t length;
        std::memcpy(&length, s, sizeof length);
        const std::string_view text{reinterpret_cast<const char*>(s + sizeof length), length};
        if constexpr (kTape)
          w.string(text);
        else
          d.json_string<kPlain>(text);
        break;
      }
      case 'l':  // the number is the next word
        if constexpr (kTape)
          w.scalar(Kind::integer, static_cast<std::int64_t>(tape[++i]));
        else
          d.json_integer(static_cast<std::int64_t>(tape[++i]));
        break;
      case 'u': {  // above INT64_MAX: a big integer, its digits as written
        const std::uint64_t u = tape[++i];
        if constexpr (kTape)
          w.other([&] { d.uinteger(u); });
        else
          d.uinteger(u);
        break;
      }
      case 'd': {
        const std::uint64_t bits = tape[++i];
        const double x = std::bit_cast<double>(bits);
        // A zero RapidJSON may refuse: see SimdjsonParser::zeros_stand.
        if ((bits & ~(std::uint64_t{1} << 63)) == 0) [[unlikely]] {
          if constexpr (kTape) {
            if (!SimdjsonParser::zeros_stand()) {
              w.finish();
              SimdjsonParser::refuse_zero();
            }
          } else {
            SimdjsonParser::check_zero();
          }
        }
        if constexpr (kTape)
          w.scalar(Kind::floating, std::bit_cast<std::int64_t>(x));
        else if constexpr (kPlain)
          d.plain_scalar(Value(x));
        else
          d.floating(x);
        break;
      }
      case 'n':
        if constexpr (kTape)
          w.scalar(Kind::null, 0);
        else
          d.null();
        break;
      case 't':
        if constexpr (kTape)
          w.scalar(Kind::boolean, 1);
        else
          d.boolean(true);
        break;
      case 'f':
        if constexpr (kTape)
          w.scalar(Kind::boolean, 0);
        else
          d.boolean(false);
        break;
      case '[':
        if constexpr (kTape) {
          if (is_empty_container(word)) {
            w.empty_array();
            ++i;  // its ']'
          } else if (is_map_array_mark(tape[i + 1], strings) &&
                     w.map_array_begin(tape_items(word, false) - (announced_items(word) != 0))) {
            ++i;  // its "^ "
          } else {
            w.array_begin(tape_items(word, false));
          }
        } else if (is_empty_container(word) && d.empty_container_inline(false)) {
          ++i;  // its ']'
        } else {
          d.json_array_begin<kPlain>(announced_items(word));
        }
        break;
      case ']':
        if constexpr (kTape)
          w.array_end();
        else
          d.json_end<kPlain>(true);
        break;
      case '{':
        if constexpr (kTape) {
          w.map_begin(tape_items(word, true));
        } else if (is_empty_container(word) && d.empty_container_inline(true)) {
          ++i;  // its '}'
        } else if (kPlain && is_plain_first_key(tape[i + 1], strings)) {
          d.plain_object_begin(announced_items(word));
        } else {
          d.json_map_begin<kPlain>(announced_items(word));
        }
        break;
      case '}':
        if constexpr (kTape)
          w.map_end();
        else
          d.json_end<kPlain>(false);
        break;
      default:
        if constexpr (kTape) w.finish();
        throw_error(Errc::syntax, "unknown simdjson tape word");
    }
  }
  if constexpr (kTape) w.finish();
  return i;
}
/// emit<false>, the untyped walk, kept out of line as it was before the bounded tape gave emit
/// its word range: inlined into the reader's parse_next, it ran 0.4 M more instructions a
/// citm_catalog read.
[[gnu::noinline]] inline void emit_values(Decoder& d, const simdjson::dom::document& doc) {
  if (d.plain_walk())
    emit<false, true>(d, doc);
  else
    emit<false>(d, doc);
}
/// The index just past the last word a walk of `doc` reads (see emit).
inline std::size_t walk_end(const simdjson::dom::document& doc) noexcept {
  return static_cast<std::size_t>(doc.tape[0] & simdjson::internal::JSON_VALUE_MASK) - 1;
}
/// emit<true>, for a typed read: defined in json_reader_tape.cpp (see emit).
std::size_t emit_tape(Decoder& d, const simdjson::dom::document& doc, std::size_t first = 1,
                      std::size_t stop = 0);
#endif

/// Keeps `self`, a JsonReader<MemoryInput> done with, for the next reader of a text in memory
/// made on this thread (make_json_reader), unless one is kept already: then it is freed.
/// In json_spare.cpp, with take_json_reader (backend.h).
void keep_json_reader(std::unique_ptr<Reader::Impl>& self) noexcept;

template <class Input>
class JsonReader final : public Reader::Impl, private TapeFeeder {
 public:
  template <class... Args>
  JsonReader(const ReadOptions& options, bool use_simdjson, Args&&... args)
      : input_(std::forward<Args>(args)...),
        decoder_(options),
        limits_{options.max_string_length, 0, options.max_value_bytes},
        use_simdjson_(use_simdjson),
        batch_tokens_(options.typed_batch_tokens) {}

  std::optional<Value> next() override {
    end_walk();
    // The value is done when this returns or throws: no walk of it follows.
    struct Forget {
      Decoder& d;
      ~Forget() { d.forget_user_calls(); }
    } forget{decoder_};
    if (!parse_next<false>()) return std::nullopt;
    if (read_whole_) return std::exchange(read_whole_, std::nullopt);
    return decoder_.take();
  }

  // Defined in json_reader_tape.cpp, so that the typed instantiation of the parser is compiled
  // apart: beside the untyped one, it changes what GCC inlines into the untyped one.
  bool next_tape(Tape& tape) override;

  // A reader of a text in memory that read well, and no tape (the Reader asks only then),
  // may be kept for the next (keep_json_reader).
  void retire(std::unique_ptr<Reader::Impl>& self) noexcept override {
    if constexpr (std::is_same_v<Input, MemoryInput>)
      if (!failed_ && !walking_) keep_json_reader(self);
  }
  /// Whether this reader, reopened with the handlers of `options`, reads as one made with
  /// `options` and `use_simdjson` would.
  bool made_as(const ReadOptions& options, bool use_simdjson) const noexcept {
    return decoder_.made_as(options) && options.max_string_length == limits_.max_string_length &&
           options.max_value_bytes == limits_.max_value_bytes &&
           options.typed_batch_tokens == batch_tokens_ && use_simdjson == use_simdjson_;
  }
  /// Lets go of the last text and document, and of all the user's (Decoder::let_go), as the
  /// reader is kept (keep_json_reader). No value is left in read_whole_: next() hands it out
  /// whole.
  void empty() noexcept {
    decoder_.let_go();
    input_ = Input(std::string_view());
#ifdef TRANSIT_HAVE_SIMDJSON
    if (stream_) stream_->reset();
#endif
  }
  /// Reads `text` from its start with `handlers`, as a reader just made over it would (one
  /// kept, emptied).
  void reopen(std::string_view text, const ReadHandlers* handlers) noexcept {
    decoder_.rebind(handlers);
    input_ = Input(text);
    cache_lazily_ = Input::kRereadable;
    one_by_one_ = false;
#ifdef TRANSIT_HAVE_SIMDJSON
    if (stream_) stream_->reset();
#endif
    value_start_ = 0;
    tape_marked_ = true;
  }

  Location locate_mark(std::size_t mark) const override { return input_.locate(mark); }

  // Reads the next value into the decoder (or, read by simdjson, into read_whole_); false at
  // the end of the input.
  template <bool kTape>
  bool parse_next() {
    if (failed_) std::rethrow_exception(failed_);
    if (!input_.skip_to_value()) return false;
    const std::size_t start = input_.Tell();
    limits_.value_end = limits_.max_value_bytes > SIZE_MAX - start
                            ? SIZE_MAX
                            : start + limits_.max_value_bytes;
    value_start_ = start;
    tape_marked_ = true;
    input_.note_lines(kTape);
#ifdef TRANSIT_HAVE_SIMDJSON
    if constexpr (!kTape && std::is_same_v<Input, SourceInput>)
      if (testing::json_in_place() && (read_whole_ = read_buffered())) return true;
    if constexpr (std::is_same_v<Input, MemoryInput>)
      if (use_simdjson_)
        if ((read_whole_ = read_with_simdjson<kTape>(start))) {
          // A tape read by simdjson has no byte offsets: remark() finds them if a binder fails.
          if constexpr (kTape) read_whole_.reset(), tape_marked_ = false;
          return true;
        }
#endif
    for (;;) {
      // JSON and JSON-Verbose are told apart by reading: a value that can be read again
      // caches nothing until it shows a JSON-only form, and is read again if it needed what
      // went by (Decoder::reset). After a JSON value, the next ones cache from the start.
      decoder_.reset(cache_lazily_);
      // A walk again (CacheNeeded, or after simdjson's walk failed) runs no handler again.
      // Only a lazy cache's walk may be followed by another (a walk caching from the start
      // refuses what it refuses for good, and its tape has its marks).
      decoder_.walk_value_at(start, cache_lazily_);
      decoder_.place_user_calls({[](const void* self) {
                                   const Input& in = static_cast<const JsonReader*>(self)->input_;
                                   return in.locate(in.token_start());
                                 },
                                 this});
      // Without user handlers no user code runs while the document is built: build it in one
      // arena (see ArenaScope).
      std::optional<ArenaScope> arena;
      if (!kTape && decoder_.runs_no_user_code()) arena.emplace();
      const FramesDroppedInScope frames_dropped_in_scope{decoder_, arena.has_value()};
      input_.begin_value(limits_.value_end, limits_.max_value_bytes);
      SaxHandler<Input, kTape> handler(decoder_, input_, limits_);
      try {
        const rapidjson::ParseResult r =
            parser_.Parse<kParseFlags | Input::kFlags>(input_.stream(), handler);
        // Offsets are the stream's, which are absolute.
        if (r.IsError()) fail_parse(r.Code(), r.Offset());
      } catch (const Decoder::CacheNeeded&) {
        cache_lazily_ = false;
        input_.rewind(start);
        continue;
      } catch (const Error& e) {
        if (e.offset() != Location::npos) throw;
        // Decoder errors know what went wrong; where is the start of the token that raised
        // them. A failing Source is placed where reading stopped.
        remember_and_throw(e.code(), e.detail(),
                           e.code() == Errc::io ? input_.Tell() : input_.token_start());
      }
      if (decoder_.caching()) cache_lazily_ = false;
      // User code refused the value (see Decoder::walk_value_at): read whole, it fails this
      // call alone, a typed one before anything binds its tape.
      if (decoder_.refused()) [[unlikely]]
        decoder_.throw_refusal();
      return true;
    }
  }

  std::size_t offset() const noexcept override { return input_.Tell(); }

  // Reads the last value again with RapidJSON, whose events say where each token starts: the
  // decoder records the same tokens in the same order, now with their marks. Only a failed
  // typed read comes here, so simdjson's speed costs the error path alone.
  void remark(Tape& tape) override {
    if constexpr (std::is_same_v<Input, MemoryInput>) remark_from_memory(tape);
  }

  void retape(Tape& tape) override {
    end_walk();
    // A read that failed for good (a refill that gave the value to RapidJSON) stays where
    // RapidJSON stopped, as it does read by RapidJSON alone.
    if (failed_) std::rethrow_exception(failed_);
    input_.rewind(value_start_);
    const std::size_t batch = std::exchange(batch_tokens_, 0);
    struct Restore {
      std::size_t& to;
      std::size_t batch;
      ~Restore() { to = batch; }
    } restore{batch_tokens_, batch};
    (void)next_tape(tape);
  }

 private:
#ifdef TRANSIT_HAVE_SIMDJSON
  // ---- a bounded typed read (TapeFeeder): simdjson's document walked a batch at a time ----
  // Starts the walk of `doc` (the text ends at `text_end`) onto the decoder's tape and writes
  // its first batch; false when the decoder refuses the value (RapidJSON then reads it).
  bool begin_walk(const simdjson::dom::document& doc, std::size_t text_end) {
    for (;;) {
      decoder_.reset(cache_lazily_);
      decoder_.walk_value_at(value_start_, true);  // RapidJSON's read, or a retape, may follow
      decoder_.mark(Location::npos);
      walk_doc_ = &doc;
      walk_word_ = 1;
      walk_end_ = walk_end(doc);
      walk_text_end_ = text_end;
      held_at_ = SIZE_MAX;
      walking_ = true;
      try {
        walk_batch();
        return true;
      } catch (const Decoder::CacheNeeded&) {
        cache_lazily_ = false;  // walk the document again, caching from the start
        continue;
      } catch (const Error&) {
      } catch (...) {
        // User code refused the value with what is no Error (walk_batch throws the refusal as
        // it was thrown): as an Error, RapidJSON reads the value, so the call ends with the
        // cursor past it and the next call reads on.
        if (!decoder_.refused()) throw;
      }
      // RapidJSON reads the value onto the same tape, which the decoder's reset clears.
      walking_ = false;
      walk_tape_ = nullptr;
      held_at_ = SIZE_MAX;
      walk_parser_.reset();
      return false;
    }
  }

  void refill(std::size_t keep) override {
    Tape& tape = *walk_tape_;
    if (held_at_ != SIZE_MAX) tape.tokens[held_at_] = held_;  // where the refill token was
    tape.tokens.drop_before(keep < tape.tokens.size() ? keep : tape.tokens.size());
    decoder_.tape_dropped();
    try {
      walk_batch();
    } catch (const Error&) {
      if (!SimdjsonParser::zeros_refused()) throw;
      // A zero RapidJSON refuses, met after the first batch (begin_walk hands the value to
      // RapidJSON when it is met in the first): the value fails as RapidJSON fails it.
      end_walk();
      use_simdjson_ = false;
      input_.rewind(value_start_);
      decoder_.set_tape(&tape);
      (void)parse_next<true>();
      throw;  // not reached: RapidJSON refuses the value
    }
  }

  // Walks words until about batch_tokens_ more tokens are on the tape, then closes them with
  // an Op::refill token; or, at the end of the document, finishes the value.
  void walk_batch() {
    Tape& tape = *decoder_.tape();
    walk_tape_ = &tape;
    const std::size_t want = tape.tokens.size() + batch_tokens_;
    while (walk_word_ < walk_end_ && tape.tokens.size() < want) {
      const std::size_t stop = walk_end_ - walk_word_ > batch_tokens_ ? walk_word_ + batch_tokens_ : walk_end_;
      walk_word_ = emit_tape(decoder_, *walk_doc_, walk_word_, stop);
    }
    // User code refused the value: the batch that holds the refusal's null token is not handed
    // over (a binder would fail on the null), and the refusal, unplaced, ends the walk: as the
    // first batch, begin_walk gives the value to RapidJSON, which places it; later, the bind
    // stops and the value is read again whole (Reader::next<T>, retape), placed the same way.
    if (decoder_.refused()) [[unlikely]]
      decoder_.throw_refusal();
    if (walk_word_ >= walk_end_) {
      // The value is all on the tape: as read_with_simdjson ends a whole walk.
      tape.feeder = nullptr;
      held_at_ = SIZE_MAX;
      if (decoder_.caching()) cache_lazily_ = false;
      if constexpr (std::is_same_v<Input, MemoryInput>) input_.seek(walk_text_end_);
      (void)decoder_.take();
      decoder_.set_tape(nullptr);
      walk_parser_.reset();
      return;
    }
    tape.feeder = this;
    const std::size_t visible = decoder_.tape_visible();
    if (visible < tape.tokens.size()) {
      held_at_ = visible;
      held_ = tape.tokens[visible];
    } else {
      held_at_ = SIZE_MAX;
      tape.tokens.reserve(visible + 1);
    }
    // Written past the tokens (or over the one held back): the decoder's next token
    // replaces it.
    tape.tokens[visible].set(0, 0, Op::refill, Kind::null, false);
  }
#else
  // Only a bounded walk of simdjson's document makes this reader a tape's feeder; without
  // simdjson nothing calls this, but the reader must still be a complete class to be built.
  void refill(std::size_t) override {}
#endif

  // Ends a bounded walk left unfinished (a bind that stopped, a reader going on or away).
  void end_walk() noexcept {
#ifdef TRANSIT_HAVE_SIMDJSON
    if (!walking_) return;
    walking_ = false;
    if (walk_tape_ && walk_tape_->feeder == this) walk_tape_->feeder = nullptr;
    walk_tape_ = nullptr;
    held_at_ = SIZE_MAX;
    walk_parser_.reset();
    decoder_.set_tape(nullptr);
#endif
  }

  void remark_from_memory(Tape& tape) {
    if (tape_marked_) return;
    const std::size_t resume = input_.Tell();
    const bool use_simdjson = std::exchange(use_simdjson_, false);
    const std::exception_ptr failed = std::exchange(failed_, nullptr);
    input_.rewind(value_start_);
    decoder_.set_tape(&tape);
    try {
      (void)parse_next<true>();
    } catch (...) {
      // Both parsers accept the same texts; should they not, the failure stays unplaced.
      tape.clear();
    }
    decoder_.set_tape(nullptr);
    use_simdjson_ = use_simdjson;
    failed_ = failed;
    input_.seek(resume);
  }

#ifdef TRANSIT_HAVE_SIMDJSON
  // Texts longer than this are looked at before simdjson reads them whole (see below).
  static constexpr std::size_t kLookFrom = std::size_t{64} << 10;
  /// Reads the value at `start` with simdjson, or returns nothing and leaves the cursor at
  /// `start` for RapidJSON, which then gives exactly the value or error it gives without
  /// simdjson. The rest of the text is read as one document until it shows more than one value
  /// (simdjson refuses the rest, or its first value closes early: see one_by_one_); from then on
  /// each array or object is read alone, its text found by ValueScan as a Source's chunk's
  /// values are (SourceInput::buffered_value). RapidJSON reads a value when simdjson refuses it
  /// (an error, or a scalar that is one of many: the scan finds only brackets), when a limit
  /// could apply that simdjson's document cannot check (a token longer than max_string_length
  /// needs its raw text), and when the decoder throws (the error is placed at its token).
  template <bool kTape>
  std::optional<Value> read_with_simdjson(std::size_t start) {
    const std::string_view text = input_.text();
    // Past these bytes a value is RapidJSON's (see above).
    const std::size_t cap = std::min(limits_.max_value_bytes, limits_.max_string_length);
    std::size_t end = 0;
    std::string_view value;  // the value's text, once it is known to be one of many
    if (!one_by_one_) {
      // skip_to_value found a value at `start`, so the rest is not all whitespace.
      end = text.find_last_not_of(" \t\r\n") + 1;
      // A long text is looked at before simdjson reads it whole: one whose first value closes
      // within 1/1024 of it and is followed by more is read a value at a time from the start,
      // so simdjson's buffers are never sized to a text of many values (nor its stage 1 run
      // over all of it in vain). A shorter text is looked at by its first line (values_by_line).
      // Any other is tried whole: at worst one stage 1 over the text is lost, once a reader.
      const std::size_t rest = end - start;
      if (rest > cap) {
        one_by_one_ = true;
      } else if (rest > kLookFrom) {
        value = input_.value_text(rest >> 10);
        one_by_one_ = !value.empty() && value.size() != rest;
      } else {
        one_by_one_ = values_by_line(text, start, end);
      }
    }
    // A value the stream read (see ValueStream), else the value's text alone.
    const simdjson::dom::document* streamed = nullptr;
    if (one_by_one_) {
      if (value.empty()) streamed = ValueStream::at(stream_, text, start, cap, end);
      if (!streamed) {
        if (value.empty()) value = input_.value_text(cap);
        if (value.empty()) return std::nullopt;
        end = start + value.size();
      }
    }
    // A bounded walk keeps its parser (and its document) until the value is all taped.
    const bool bounded = kTape && batch_tokens_ != 0;
    std::optional<SimdjsonParser> local;
    std::optional<SimdjsonParser>& parser = bounded ? walk_parser_ : local;
    const simdjson::dom::document* doc = nullptr;
    if (streamed) {
      parser.emplace(stream_->parser());
      doc = parser->adopt(text.substr(start, end - start));
    } else {
      parser.emplace();
      // The padding simdjson reads past a value is the text's own bytes, unless the value
      // ends near the text's end.
      const bool copy = text.size() - end < simdjson::SIMDJSON_PADDING &&
                        !padding_readable(text.data(), text.size(), simdjson::SIMDJSON_PADDING);
      doc = parser->parse(text.substr(start, end - start), copy);
    }
    if (!doc) {
      parser.reset();
      if (one_by_one_) return std::nullopt;
      testing::count_json_whole_refusal();
      // The rest is not one value: its first value, if simdjson accepts it, is read alone.
      one_by_one_ = true;
      const std::string_view first = input_.value_text(cap);
      if (first.empty() || start + first.size() == end) return std::nullopt;
      return read_with_simdjson<kTape>(start);
    }
    if (one_by_one_) testing::count_json_value_alone(streamed != nullptr);
    if (bounded) {
      if (!begin_walk(*doc, end)) return std::nullopt;
      return Value();
    }
    std::optional<Value> v = walk_whole<kTape>(*doc);
    if (v) input_.seek(end);
    return v;
  }

  /// Whether the text from `start` to `end` shows, by its first line, that it holds values one
  /// a line (a log of values, a Writer's newline_after_value): the line ends, but for
  /// whitespace, with a bracket that closes the value at `start` (or an earlier one). Whether
  /// more follows is not asked: one value and its newline, read alone, read as read whole.
  /// Such a short text goes a value at a time at once, without the whole-text parse
  /// that would show it (a stage 1 over all of it, and buffers sized to it, in vain). The first
  /// line is looked for in the first 1/16 of the text (at least 256 bytes): over all of it, the
  /// memchr cost a read of one value of 6 KB 0.36% more instructions.
  bool values_by_line(std::string_view text, std::size_t start, std::size_t end) const noexcept {
    const std::size_t look = std::max<std::size_t>((end - start) >> 4, 256);
    const std::size_t newline = text.substr(0, std::min(end, start + look)).find('\n', start);
    if (newline == std::string_view::npos) return false;
    std::size_t last = newline;  // just past the line's last byte that is not whitespace
    while (last > start && (text[last - 1] == ' ' || text[last - 1] == '\r' || text[last - 1] == '\t'))
      --last;
    if (last == start || (text[last - 1] != ']' && text[last - 1] != '}')) return false;
    return !input_.value_text(last - start).empty();
  }

  /// Walks a document simdjson read into the decoder, again from the start if it turns out
  /// to need the cache; the value, or nothing when the decoder throws (the caller then leaves
  /// the value to RapidJSON, whose events place the error).
  template <bool kTape>
  std::optional<Value> walk_whole(const simdjson::dom::document& doc) {
    for (;;) {
      decoder_.reset(cache_lazily_);
      decoder_.walk_value_at(value_start_, true);  // RapidJSON's read, or a remark, may follow
      std::optional<ArenaScope> arena;
      if (!kTape && decoder_.runs_no_user_code()) arena.emplace();
      const FramesDroppedInScope frames_dropped_in_scope{decoder_, arena.has_value()};
      if constexpr (kTape) decoder_.mark(Location::npos);
      try {
        if constexpr (kTape)
          emit_tape(decoder_, doc);
        else
          emit_values(decoder_, doc);
      } catch (const Decoder::CacheNeeded&) {
        cache_lazily_ = false;  // walk the document again, caching from the start
        continue;
      } catch (const Error&) {
        return std::nullopt;
      }
      // A refusal this walk could not place: RapidJSON reads the value again, and places it.
      if (decoder_.refused()) [[unlikely]]
        return std::nullopt;
      if (decoder_.caching()) cache_lazily_ = false;
      return decoder_.take();
    }
  }
#endif

#ifdef TRANSIT_HAVE_SIMDJSON
  // The most text a Source reader holds to read a value in place: longer values are read a
  // byte at a time. The tree of a value this long takes more than this anyway.
  static constexpr std::size_t kInPlaceCap = std::size_t{4} << 20;
  /// From a Source: reads the array or object at the cursor with simdjson, in place, when its
  /// whole text is buffered (SourceInput::buffered_value, which may read ahead for it), as a
  /// text in memory is read; else, or when simdjson or the decoder refuses it, returns
  /// nothing and leaves the cursor where it was, and RapidJSON reads the value a byte at a
  /// time as before, with its values and errors. So a value this path reads is one RapidJSON
  /// would read the same, and every error and limit stays RapidJSON's.
  std::optional<Value> read_buffered() {
    // Limits simdjson's document cannot check (as in read_with_simdjson) bound the text read
    // ahead too, and so does kInPlaceCap.
    const std::string_view text = input_.buffered_value(
        std::min({kInPlaceCap, limits_.max_value_bytes, limits_.max_string_length}));
    if (text.empty() || text.size() > limits_.max_value_bytes ||
        text.size() > limits_.max_string_length)
      return std::nullopt;
    SimdjsonParser parser;
    const simdjson::dom::document* const doc = parser.parse(text, false);
    if (!doc) return std::nullopt;
    std::optional<Value> v = walk_whole<false>(*doc);
    if (v) {
      input_.skip(text.size());
      testing::count_json_buffered_read();
    }
    return v;
  }
#endif

  [[noreturn]] void fail_parse(rapidjson::ParseErrorCode code, std::size_t at) {
    // The parser stopped at the end of the input: whatever it says (a bad escape, a number
    // missing its digits), more bytes could have made it right.
    if (input_.at_end())
      remember_and_throw(Errc::truncated, "input ends inside a value", input_.Tell());
    // Well-formed JSON that RapidJSON cannot hold even as text (it checks numbers' range: an
    // exponent past 308 plus the fraction digits is refused even on a zero, as in `0e400`; a
    // text in memory keeps that rule, see SimdjsonParser::zeros_stand).
    if (code == rapidjson::kParseErrorNumberTooBig)
      remember_and_throw(Errc::too_large, kNumberTooLarge, at);
    if (code == rapidjson::kParseErrorStringUnicodeSurrogateInvalid ||
        code == rapidjson::kParseErrorStringInvalidEncoding)
      remember_and_throw(Errc::invalid_utf8, rapidjson::GetParseError_En(code), at);
    remember_and_throw(Errc::syntax, rapidjson::GetParseError_En(code), at);
  }

  // An error of the input ends the reading for good. When user code refused the value
  // before it (Decoder::walk_value_at), this call throws the refusal, which comes first in
  // the input, and the calls after it the input's error.
  [[noreturn]] void remember_and_throw(Errc code, std::string_view detail, std::size_t at) {
    try {
      throw_error(code, detail, input_.locate(at), placed_path(decoder_));
    } catch (...) {
      failed_ = std::current_exception();
      if (decoder_.refused()) decoder_.throw_refusal();
      throw;
    }
  }

  Input input_;
  Decoder decoder_;
  Limits limits_;
  bool cache_lazily_ = Input::kRereadable;
  bool use_simdjson_;  // in-memory text only
  bool one_by_one_ = false;  // in memory, the text holds more than one value (see read_with_simdjson)
  rapidjson::Reader parser_;
  std::exception_ptr failed_;
  std::optional<Value> read_whole_;  // a value simdjson read (see parse_next)
  std::size_t value_start_ = 0;      // where the last value read starts
  bool tape_marked_ = true;          // the last tape's tokens have their marks (see remark)
  std::size_t batch_tokens_;         // ReadOptions::typed_batch_tokens
  bool walking_ = false;             // a bounded walk began for the last value
#ifdef TRANSIT_HAVE_SIMDJSON
  // Declared before walk_parser_, which may hold its parser, so that it outlives it.
  std::unique_ptr<ValueStream> stream_;  // in memory, once one_by_one_ (kept with the reader)
  std::optional<SimdjsonParser> walk_parser_;  // holds walk_doc_
  const simdjson::dom::document* walk_doc_ = nullptr;
  Tape* walk_tape_ = nullptr;
  std::size_t walk_word_ = 0;      // the next word of simdjson's tape to walk
  std::size_t walk_end_ = 0;
  std::size_t walk_text_end_ = 0;  // where the text read ends
  std::size_t held_at_ = SIZE_MAX;  // the token the refill token stands over, if any
  Token held_{};
#endif
};

}  // namespace transit::detail::json
