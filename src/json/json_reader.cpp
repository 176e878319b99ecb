// SPDX-License-Identifier: Apache-2.0
// JSON and JSON-Verbose input on RapidJSON's SAX Reader: events go straight to the decoder,
// with no DOM in between.
// RapidJSON scans strings and whitespace 16 bytes at a time with SSE2 (every x86-64 has it).
#if defined(__SSE2__) && !defined(RAPIDJSON_SSE2)
#define RAPIDJSON_SSE2
#endif
#include <rapidjson/error/en.h>
#include <rapidjson/reader.h>

#include <cstring>

#include <algorithm>

#include "backend.h"
#include "codec.h"
#include "decoder.h"

namespace transit::detail {
namespace {

// Numbers arrive as text so that integers beyond int64 keep every digit (big integers) and
// doubles are parsed correctly rounded. UTF-8 is validated per string by is_valid_utf8, which
// has an ASCII fast path, instead of RapidJSON's per-character transcoder.
constexpr unsigned kParseFlags = rapidjson::kParseStopWhenDoneFlag |
                                 rapidjson::kParseNumbersAsStringsFlag;

class SaxHandler {
 public:
  explicit SaxHandler(Decoder& decoder) : d_(decoder) {}

  bool Null() { return d_.null(), true; }
  bool Bool(bool b) { return d_.boolean(b), true; }
  // Only RawNumber is called under kParseNumbersAsStringsFlag; these complete the concept.
  bool Int(int i) { return d_.integer(i), true; }
  bool Uint(unsigned u) { return d_.integer(u), true; }
  bool Int64(std::int64_t i) { return d_.integer(i), true; }
  bool Uint64(std::uint64_t u) { return number(std::to_string(u)); }
  bool Double(double d) { return d_.floating(d), true; }
  bool RawNumber(const char* s, rapidjson::SizeType n, bool) { return number({s, n}); }
  bool String(const char* s, rapidjson::SizeType n, bool) {
    const std::string_view text(s, n);
    if (!is_valid_utf8(text)) throw_error(Errc::invalid_utf8, "string is not valid UTF-8");
    d_.string(text);
    return true;
  }
  bool Key(const char* s, rapidjson::SizeType n, bool copy) { return String(s, n, copy); }
  bool StartObject() { return d_.map_begin(), true; }
  bool EndObject(rapidjson::SizeType) { return d_.map_end(), true; }
  bool StartArray() { return d_.array_begin(), true; }
  bool EndArray(rapidjson::SizeType) { return d_.array_end(), true; }

 private:
  bool number(std::string_view text) {
    if (text.find_first_of(".eE") != std::string_view::npos) {
      auto d = parse_double(text);
      if (!d) throw_error(Errc::syntax, "bad number " + std::string(text));
      d_.floating(*d);
    } else if (auto i = parse_int64(text)) {
      d_.integer(*i);
    } else {
      d_.big_integer(text);
    }
    return true;
  }

  Decoder& d_;
};

/// Input from a Source, as a RapidJSON stream. It holds one chunk at a time: RapidJSON
/// copies what it keeps (strings, numbers), so bytes behind the cursor can be dropped and
/// memory stays flat however long the stream is.
class SourceInput {
 public:
  using Ch = char;
  using Stream = SourceInput;
  static constexpr unsigned kFlags = 0;

  SourceInput(Source& source, std::size_t chunk_size) : source_(&source), buf_(chunk_size) {
    chunk_ = p_ = end_ = buf_.data();
  }
  Stream& stream() noexcept { return *this; }

  Ch Peek() {
    if (p_ == end_ && !refill()) return '\0';
    return *p_;
  }
  Ch Take() {
    const Ch c = Peek();
    if (p_ != end_) ++p_;
    return c;
  }
  std::size_t Tell() const noexcept { return before_ + static_cast<std::size_t>(p_ - chunk_); }
  // Output half of RapidJSON's stream concept; only in-situ parsing uses it, and we don't.
  Ch* PutBegin() { return nullptr; }
  void Put(Ch) {}
  void Flush() {}
  std::size_t PutEnd(Ch*) { return 0; }

  /// Skips whitespace between values; false at the end of the input.
  bool skip_to_value() {
    for (;;) {
      const Ch c = Peek();
      if (p_ == end_) return false;
      if (c != ' ' && c != '\n' && c != '\r' && c != '\t') return true;
      ++p_;
    }
  }
  /// True when the input is exhausted at the cursor.
  bool at_end() { return p_ == end_ && !refill(); }

  /// Line and column of an absolute offset at or after the current chunk's start.
  Location locate(std::size_t offset) const {
    Location where{offset, 1 + lines_, 0};
    std::size_t line_start = line_start_;
    const std::size_t upto = std::min<std::size_t>(offset - before_, static_cast<std::size_t>(end_ - chunk_));
    for (std::size_t i = 0; i < upto; ++i)
      if (chunk_[i] == '\n') {
        ++where.line;
        line_start = before_ + i + 1;
      }
    where.column = offset - line_start + 1;
    return where;
  }

 private:
  bool refill() {
    if (!source_ || eof_) return false;
    // Keep line numbers for error messages across dropped chunks.
    for (const char* q = chunk_; q != p_; ++q)
      if (*q == '\n') {
        ++lines_;
        line_start_ = before_ + static_cast<std::size_t>(q - chunk_) + 1;
      }
    before_ += static_cast<std::size_t>(p_ - chunk_);
    const std::size_t n = source_->read(buf_.data(), buf_.size());
    chunk_ = p_ = buf_.data();
    end_ = p_ + n;
    eof_ = n == 0;
    return n != 0;
  }

  Source* source_ = nullptr;
  std::vector<char> buf_;
  const char* chunk_;  // start of the bytes held; `before_` bytes came before it
  const char* p_;
  const char* end_;
  std::size_t before_ = 0;
  std::size_t lines_ = 0;       // newlines before chunk_
  std::size_t line_start_ = 0;  // offset just after the last of them
  bool eof_ = false;
};

/// Input in memory: a private NUL-terminated copy, parsed in situ so that RapidJSON's SSE2
/// string and whitespace scanners apply and strings are unescaped in place, not copied.
class MemoryInput {
 public:
  using Stream = rapidjson::InsituStringStream;
  static constexpr unsigned kFlags = rapidjson::kParseInsituFlag;

  explicit MemoryInput(std::string_view text)
      : text_(text), buf_(std::make_unique<char[]>(text.size() + 1)), stream_(buf_.get()) {
    if (!text.empty()) std::memcpy(buf_.get(), text.data(), text.size());
    buf_[text.size()] = '\0';
  }
  Stream& stream() noexcept { return stream_; }
  std::size_t Tell() const noexcept { return static_cast<std::size_t>(stream_.src_ - buf_.get()); }

  bool skip_to_value() noexcept {
    const char* end = buf_.get() + text_.size();
    char* p = stream_.src_;
    while (p != end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) ++p;
    stream_.src_ = p;
    return p != end;
  }
  bool at_end() const noexcept { return Tell() >= text_.size(); }

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
  std::string_view text_;
  std::unique_ptr<char[]> buf_;
  Stream stream_;
};

template <class Input>
class JsonReader final : public Reader::Impl {
 public:
  template <class... Args>
  JsonReader(const ReadOptions& options, Args&&... args)
      : input_(std::forward<Args>(args)...), decoder_(options) {}

  std::optional<Value> next() override {
    if (failed_) std::rethrow_exception(failed_);
    if (!input_.skip_to_value()) return std::nullopt;
    const std::size_t start = input_.Tell();
    decoder_.reset();
    SaxHandler handler(decoder_);
    try {
      const rapidjson::ParseResult r =
          parser_.Parse<kParseFlags | Input::kFlags>(input_.stream(), handler);
      if (r.IsError()) fail_parse(r.Code(), start + r.Offset());
    } catch (const Error& e) {
      if (e.offset() != Location::npos) throw;
      // Decoder errors know what went wrong; the position is the parser's.
      remember_and_throw(e.code(), e.detail(), input_.Tell());
    }
    return decoder_.take();
  }

  std::size_t offset() const noexcept override { return input_.Tell(); }

 private:
  [[noreturn]] void fail_parse(rapidjson::ParseErrorCode code, std::size_t at) {
    if (at >= input_.Tell() && input_.at_end())
      remember_and_throw(Errc::truncated, "input ends inside a value", input_.Tell());
    if (code == rapidjson::kParseErrorStringUnicodeSurrogateInvalid ||
        code == rapidjson::kParseErrorStringInvalidEncoding)
      remember_and_throw(Errc::invalid_utf8, rapidjson::GetParseError_En(code), at);
    remember_and_throw(Errc::syntax, rapidjson::GetParseError_En(code), at);
  }

  [[noreturn]] void remember_and_throw(Errc code, std::string_view detail, std::size_t at) {
    try {
      throw_error(code, detail, input_.locate(at), decoder_.path());
    } catch (...) {
      failed_ = std::current_exception();
      throw;
    }
  }

  Input input_;
  Decoder decoder_;
  rapidjson::Reader parser_;
  std::exception_ptr failed_;
};

}  // namespace

std::unique_ptr<Reader::Impl> make_json_reader(std::string_view input, const ReadOptions& options) {
  return std::make_unique<JsonReader<MemoryInput>>(options, input);
}

std::unique_ptr<Reader::Impl> make_json_reader(Source& source, const ReadOptions& options) {
  return std::make_unique<JsonReader<SourceInput>>(options, source, options.chunk_size);
}

}  // namespace transit::detail
