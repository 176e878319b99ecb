// SPDX-License-Identifier: Apache-2.0
// JSON and JSON-Verbose input on RapidJSON's SAX Reader: events go straight to the decoder,
// with no DOM in between.
#include <rapidjson/error/en.h>
#include <rapidjson/memorystream.h>
#include <rapidjson/reader.h>

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

class JsonReader final : public Reader::Impl {
 public:
  JsonReader(std::string_view input, const ReadOptions& options)
      : input_(input), decoder_(options) {}

  std::optional<Value> next() override {
    if (failed_) std::rethrow_exception(failed_);
    pos_ = std::min(input_.size(), input_.find_first_not_of(" \t\r\n", pos_));
    if (pos_ == input_.size()) return std::nullopt;
    decoder_.reset();
    rapidjson::MemoryStream stream(input_.data() + pos_, input_.size() - pos_);
    SaxHandler handler(decoder_);
    try {
      const rapidjson::ParseResult r = parser_.Parse<kParseFlags>(stream, handler);
      if (r.IsError()) fail_parse(r.Code(), pos_ + r.Offset());
    } catch (const Error& e) {
      if (e.offset() != Location::npos) throw;
      // Decoder errors know what went wrong; the position is the parser's.
      remember_and_throw(e.code(), e.detail(), pos_ + stream.Tell());
    }
    pos_ += stream.Tell();
    return decoder_.take();
  }

  std::size_t offset() const noexcept override { return pos_; }

 private:
  [[noreturn]] void fail_parse(rapidjson::ParseErrorCode code, std::size_t at) {
    if (at >= input_.size())
      remember_and_throw(Errc::truncated, "input ends inside a value", input_.size());
    if (code == rapidjson::kParseErrorStringUnicodeSurrogateInvalid ||
        code == rapidjson::kParseErrorStringInvalidEncoding)
      remember_and_throw(Errc::invalid_utf8, rapidjson::GetParseError_En(code), at);
    remember_and_throw(Errc::syntax, rapidjson::GetParseError_En(code), at);
  }

  [[noreturn]] void remember_and_throw(Errc code, std::string_view detail, std::size_t at) {
    Location where{at, 1, 1};
    const std::string_view before = input_.substr(0, at);
    where.line += static_cast<std::size_t>(std::count(before.begin(), before.end(), '\n'));
    const std::size_t line_start = before.rfind('\n');
    where.column = at - (line_start == std::string_view::npos ? 0 : line_start + 1) + 1;
    try {
      throw_error(code, detail, where, decoder_.path());
    } catch (...) {
      failed_ = std::current_exception();
      pos_ = input_.size();
      throw;
    }
  }

  std::string_view input_;
  std::size_t pos_ = 0;
  Decoder decoder_;
  rapidjson::Reader parser_;
  std::exception_ptr failed_;
};

}  // namespace

std::unique_ptr<Reader::Impl> make_json_reader(std::string_view input, const ReadOptions& options) {
  return std::make_unique<JsonReader>(input, options);
}

}  // namespace transit::detail
