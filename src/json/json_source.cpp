// SPDX-License-Identifier: Apache-2.0
// Pieces of a read from RapidJSON's events (a Source, or text simdjson leaves to RapidJSON)
// kept out of JSON's unit (json_reader.cpp), so that they move none of the code of its walk
// of simdjson's documents, the counted read every in-memory read takes: changed there, the
// memchr of SourceInput::refill made GCC inline otherwise in that walk (twitter's in-memory
// JSON read 0.4% more instructions).
#include <algorithm>
#include <bit>
#include <cstring>
#include <exception>
#include <memory>
#include <string>
#include <utility>

#ifdef __GLIBCXX__
#include <cxxabi.h>
#endif

#include "read/decoder.h"
#include "json/json_reader.h"

namespace transit::detail {

void Decoder::event_string(std::string_view raw) {
  if (is_short_ascii(raw.data(), raw.size()) || is_ascii_17_to_64(raw.data(), raw.size()))
    return checked_string(raw, true, true);
  if (!is_valid_utf8(raw)) throw_invalid_utf8(raw, true);
  checked_string(raw, false, true);
}

void Decoder::uncounted_begin(bool array) {
  json_begin_inline(array ? FrameKind::array_pending : FrameKind::object_pending, 0);
  // With no tape and no handlers, the frame's items go onto the stack from the first, by
  // deliver's inline path, where place() took the first one to end the frame's pending
  // state (about 50 instructions a container). It stays pending instead: what only a first
  // item may be ("^ ", a tag) is asked of a pending frame that holds no item yet
  // (at_array_start, start_tagged_in), and its end takes it as the plain container it is.
  if (!tape_ && !handlers_) {
    Frame& f = frames_.back();
    f.stack_until = f.start + (array ? uncounted_array_until_ : uncounted_map_until_);
  }
}

void Decoder::uncounted_end(bool array) {
  if (tape_ || handlers_) [[unlikely]]
    return array ? array_end() : map_end();
  Frame& f = frames_.back();
  // A tagged value first, as array_end_frame and map_end_frame take it (sets, lists, and
  // JSON-Verbose's `{"~#tag": rep}`).
  if (f.kind == (array ? FrameKind::tagged_array : FrameKind::tagged_object)) return end_tagged(f);
  const bool map = array ? f.kind == FrameKind::map_array
                         : f.kind == FrameKind::object || f.kind == FrameKind::object_pending;
  const bool plain = map || (array && (f.kind == FrameKind::array || f.kind == FrameKind::array_pending));
  const std::size_t n = stack_.size() - f.start;
  // A long array moved to slots of its own (see place), an odd map, a tagged value, an end
  // that does not match: array_end_frame and map_end_frame, which report what is wrong.
  if (!plain || f.slots.items || (map && n % 2 != 0)) [[unlikely]]
    return array ? array_end_frame() : map_end_frame();
  closing_ = true;
  Value v = node_of_stack({stack_.data() + f.start, n}, map);
  // Where deliver() would put it: onto the stack, at this frame's start, when the parent
  // takes its next item there (no slots of its own, room below its limits). Put there
  // directly, with none of deliver's tests.
  if (n != 0 && frames_.size() >= 2) {
    const Frame& parent = frames_.end()[-2];
    if (parent.count >= parent.slots_until && f.start < parent.stack_until) {
      new (stack_.data() + f.start) Value(std::move(v));
      stack_.forget_from(f.start + 1);
      frames_.pop_back();
      closing_ = false;
      return;
    }
  }
  stack_.forget_from(f.start);
  frames_.pop_back();
  closing_ = false;
  deliver(std::move(v));
}

namespace json {

bool SourceInput::refill() {
  if (!source_) return false;
  // Bytes read ahead (see buffered_value) are handed out one read at a time, as read.
  const bool held = end_ != filled_;
  if (!held && eof_) return false;
  // A token that started in this chunk is placed now, before its bytes are dropped.
  if (!armed_ && !token_located_ && token_ >= before_) {
    token_loc_ = locate(token_);
    token_located_ = true;
  }
  drop_to_cursor();
  if (!held) chunk_ = p_ = end_ = filled_ = buf_.data();
  // Checked before reading more, so a value never holds more than the limit plus a chunk.
  if (before_ > value_end_)
    throw_error(Errc::too_large, "value is longer than " + std::to_string(max_value_bytes_) + " bytes");
  if (held) {
    next_edge();
    return true;
  }
  if (pending_) std::rethrow_exception(std::exchange(pending_, nullptr));
  if (source_ended_) {
    eof_ = true;
    return false;
  }
  const std::size_t n = read_checked(*source_, buf_.data(), chunk_size_);
  end_ = filled_ = p_ + n;
  eof_ = n == 0;
  last_read_full_ = n == chunk_size_;
  return n != 0;
}

void SourceInput::drop_to_cursor() {
  // A typed read's value: where its newlines are, for locate (see note_lines). A loop of its
  // own, so that a read into Value pays one test a chunk, not one a newline.
  if (noting_) [[unlikely]]
    for (const char* q = chunk_;
         (q = static_cast<const char*>(std::memchr(q, '\n', static_cast<std::size_t>(p_ - q)))) != nullptr;
         ++q)
      newlines_.push_back(before_ + static_cast<std::size_t>(q - chunk_));
  // Keep line numbers for error messages across dropped chunks. By memchr: a byte at a time,
  // this loop was 8.5% of keywords' read from a Source (11.1 M instructions for its 1.4 MB
  // with no newline).
  for (const char* q = chunk_;
       (q = static_cast<const char*>(std::memchr(q, '\n', static_cast<std::size_t>(p_ - q)))) != nullptr;
       ++q) {
    ++lines_;
    line_start_ = before_ + static_cast<std::size_t>(q - chunk_) + 1;
  }
  before_ += static_cast<std::size_t>(p_ - chunk_);
  chunk_ = p_;
}

bool SourceInput::read_ahead(std::size_t cap) {
  if (!source_ || eof_ || source_ended_ || pending_ || !last_read_full_) return false;
  const auto held = static_cast<std::size_t>(filled_ - p_);
  if (held >= cap) return false;
  // The bytes before the value are dropped, the value's moved to the buffer's start, and
  // room made for a chunk and the padding after it.
  drop_to_cursor();
  const auto exposed = static_cast<std::size_t>(end_ - p_);
  // Once the value is at the buffer's start it stays there while chunks are read after it:
  // moved at every read, keywords' 1.4 MB was copied 22 times over (4.2 M instructions).
  if (p_ != buf_.data()) std::memmove(buf_.data(), p_, held);
  const std::size_t need = held + chunk_size_ + kPadding;
  if (buf_.size() < need) buf_.resize(std::max(need, 2 * buf_.size()));
  chunk_ = p_ = buf_.data();
  end_ = p_ + exposed;
  filled_ = p_ + held;
  std::size_t n = 0;
  try {
    n = read_checked(*source_, buf_.data() + held, chunk_size_);
#ifdef __GLIBCXX__
  } catch (abi::__forced_unwind&) {
    throw;  // the thread cancelled in the Source's read: no error to keep for later
#endif
  } catch (...) {
    pending_ = std::current_exception();
    return false;
  }
  if (n == 0) {
    source_ended_ = true;
    return false;
  }
  filled_ += n;
  edges_.push_back(before_ + held + n);
  last_read_full_ = n == chunk_size_;
  return true;
}

bool ValueScan::run(const char* v, const char* end) noexcept {
  const char* q = v + at;
  // A byte at a time up to `stop` (or just past it, after an escape); true when the value
  // closed, just before q.
  const auto bytewise = [&](const char* stop) {
    while (q < stop) {
      const char c = *q++;
      if (in_string) {
        if (c == '\\')
          ++q;
        else if (c == '"')
          in_string = false;
      } else if (c == '"') {
        in_string = true;
      } else if (c == '[' || c == '{') {
        ++depth;
      } else if ((c == ']' || c == '}') && --depth == 0) {
        return true;
      }
    }
    return false;
  };
  const auto closed = [&] {
    at = static_cast<std::size_t>(q - v);
    return true;
  };
#ifdef __SSE2__
  // 16 bytes at a time: the bytes inside strings are those after an odd number of quotes (a
  // prefix XOR of the quotes' bits), and the brackets outside them count the depth. `[` and
  // `]` are `{` and `}` with the 0x20 bit clear. A block with a backslash goes a byte at a
  // time.
  const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\');
  const __m128i open = _mm_set1_epi8('{'), close = _mm_set1_epi8('}'), case_bit = _mm_set1_epi8(0x20);
  while (end - q >= 16) {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(q));
    if (_mm_movemask_epi8(_mm_cmpeq_epi8(x, backslash)) != 0) {
      if (bytewise(q + 16)) return closed();
      continue;
    }
    unsigned inside = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(x, quote)));
    inside ^= inside << 1;
    inside ^= inside << 2;
    inside ^= inside << 4;
    inside ^= inside << 8;
    if (in_string) inside = ~inside;
    inside &= 0xffff;
    const __m128i folded = _mm_or_si128(x, case_bit);
    const auto opens = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(folded, open)));
    const auto closes = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(folded, close)));
    for (unsigned b = (opens | closes) & ~inside; b != 0; b &= b - 1) {
      const int i = std::countr_zero(b);
      if ((opens >> i & 1) != 0) {
        ++depth;
      } else if (--depth == 0) {
        q += i + 1;
        return closed();
      }
    }
    in_string = (inside >> 15) != 0;
    q += 16;
  }
#endif
  if (bytewise(end)) return closed();
  at = static_cast<std::size_t>(q - v);  // past `end` after a backslash at its last byte
  return false;
}


#ifdef TRANSIT_HAVE_SIMDJSON
ValueStream::ValueStream() {
#ifdef SIMDJSON_THREADS_ENABLED
  parser_.threaded = false;
#endif
}
ValueStream::~ValueStream() = default;

void ValueStream::reset() noexcept {
  stream_.reset();
  live_ = false;
  retry_from_ = 0;
}

const simdjson::dom::document* ValueStream::at(std::unique_ptr<ValueStream>& self,
                                               std::string_view text, std::size_t start,
                                               std::size_t cap, std::size_t& end) {
  if (!self) self = std::make_unique<ValueStream>();
  return self->at(text, start, cap, end);
}

const simdjson::dom::document* ValueStream::at(std::string_view text, std::size_t start,
                                             std::size_t cap, std::size_t& end) {
  if (!live_ && !begin(text, start)) return nullptr;
  std::size_t at = 0;
  for (;;) {
    if (!(it_ != stream_->end())) {
      stop(SIZE_MAX);  // the stream's text is all read
      return nullptr;
    }
    if ((*it_).error()) {
      stop(start + batch_);
      return nullptr;
    }
    at = base_ + it_.current_index();
    if (at >= start) break;
    ++it_;  // a value the reader read otherwise
  }
  if (at != start || (text[start] != '[' && text[start] != '{')) return nullptr;
  const std::size_t size = it_.source().size();
  // simdjson ends the stream's last batch at its last complete document, as it sees them, and
  // marks the batch's end as the next structural: a value cut there by something it took for
  // a document's start (`["a" \0 ]`: the NUL) is closed by whatever byte follows the stream's
  // bytes, read as `]` or `}` when it is one. That byte is past the stream's text (the rest of
  // the text, or the bytes past it): such a document reaches one byte past the stream's end.
  // It is the stream's last; the value is read alone, as the reader reads it without a stream.
  // (An earlier batch ends at such a start too, but keeps the structurals after it: a value
  // that reaches past it meets that start, two values with no comma between, an error.)
  if (start + size > end_) {
    stop(SIZE_MAX);
    return nullptr;
  }
  // simdjson 3.0.1's stream also takes a value its text leaves invalid (a missing comma:
  // `["a"3]` read as ["a",3]; a trailing one; a key with no value) for a document when the
  // next byte after it that is not whitespace is `,`, `:`, `]` or `}`, whether that byte is
  // the text's own or past the stream's end (up to SIMDJSON_PADDING bytes past it, all
  // readable: the text's, or its padding's). In a valid text of many values no value is
  // followed by any of them: such a value is read alone, by simdjson's strict parse, and the
  // text's error is found as without a stream; the stream goes on for the values after it,
  // if the reader gets there.
  const char* next = text.data() + start + size;
  const char* const readable_end = text.data() + end_ + simdjson::SIMDJSON_PADDING;
  while (next < readable_end && is_json_space(*next)) ++next;
  if (next < readable_end && (*next == ',' || *next == ':' || *next == ']' || *next == '}')) return nullptr;
  if (size > cap) return nullptr;
  end = start + size;
  return &parser_.doc;
}

bool ValueStream::begin(std::string_view text, std::size_t start) {
  // A parser past SimdjsonParser::kKeepCapacity is let go when its holder ends: a stream's
  // must live on, so no batch is longer.
  if (start < retry_from_ || (batch_ = std::min(batch(), SimdjsonParser::kKeepCapacity)) == 0) return false;
  // simdjson reads up to SIMDJSON_PADDING bytes past a value: the stream stops that much
  // before the text's end unless those bytes are readable (the values it leaves are read
  // as before).
  std::size_t end = text.size();
  if (!padding_readable(text.data(), text.size(), simdjson::SIMDJSON_PADDING))
    end = end > simdjson::SIMDJSON_PADDING ? end - simdjson::SIMDJSON_PADDING : 0;
  if (end <= start) {
    retry_from_ = SIZE_MAX;
    return false;
  }
  const std::size_t len = end - start;
  stream_.emplace();
  // A batch no longer than the text: the buffers follow the text when it is short.
  if (parser_.parse_many(text.data() + start, len, std::min(batch_, len)).get(*stream_)) {
    stop(start + batch_);
    return false;
  }
  base_ = start;
  end_ = end;
  it_ = stream_->begin();
  live_ = true;
  return true;
}
#endif

}  // namespace json
}  // namespace transit::detail
