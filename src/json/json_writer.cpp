// SPDX-License-Identifier: Apache-2.0
// JSON and JSON-Verbose output on RapidJSON's Writer.
#include <rapidjson/writer.h>

#include <vector>

#include "backend.h"
#include "codec.h"
#include "encoder.h"

namespace transit::detail {

/// RapidJSON output stream: a flat buffer that spills to the sink when full, so the writer
/// never makes a virtual call per byte and the sink sees large chunks.
class JsonOut {
 public:
  using Ch = char;

  JsonOut(Sink& sink, std::size_t capacity) : sink_(sink), buf_(std::max<std::size_t>(capacity, 256)) {
    cur_ = buf_.data();
  }

  void Put(char c) {
    Reserve(1);
    *cur_++ = c;
  }
  void PutUnsafe(char c) noexcept { *cur_++ = c; }
  void Reserve(std::size_t n) {
    if (static_cast<std::size_t>(buf_.data() + buf_.size() - cur_) < n) make_room(n);
  }
  void Flush() {}  // RapidJSON calls this at the end of each root; the Writer decides when

  void spill() {
    const std::size_t used = static_cast<std::size_t>(cur_ - buf_.data());
    if (used != 0) sink_.write(buf_.data(), used);
    cur_ = buf_.data();
  }
  void flush_sink() {
    spill();
    sink_.flush();
  }
  std::size_t buffered() const noexcept { return static_cast<std::size_t>(cur_ - buf_.data()); }
  std::size_t capacity() const noexcept { return buf_.size(); }

 private:
  void make_room(std::size_t n) {
    spill();
    if (buf_.size() < n) {
      buf_.resize(n);
      cur_ = buf_.data();
    }
  }

  Sink& sink_;
  std::vector<char> buf_;
  char* cur_;
};

}  // namespace transit::detail

namespace rapidjson {
template <>
inline void PutReserve(transit::detail::JsonOut& stream, size_t count) {
  stream.Reserve(count);
}
template <>
inline void PutUnsafe(transit::detail::JsonOut& stream, char c) {
  stream.PutUnsafe(c);
}
}  // namespace rapidjson

namespace transit::detail {
namespace {

/// The encoder's backend for JSON: RapidJSON handles structure and string escaping; doubles
/// are printed with the shortest round-trip digits.
class JsonEmitter {
 public:
  explicit JsonEmitter(JsonOut& out) : out_(out), writer_(out) {}

  void null() { writer_.Null(); }
  void boolean(bool b) { writer_.Bool(b); }
  void integer(std::int64_t i) { writer_.Int64(i); }
  void floating(double d) {
    number_.clear();
    format_double_json(d, number_);
    writer_.RawValue(number_.data(), number_.size(), rapidjson::kNumberType);
  }
  void string(std::string_view s) {
    writer_.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
  }
  void array_begin(std::size_t) { writer_.StartArray(); }
  void array_end() { writer_.EndArray(); }
  void map_begin(std::size_t) { writer_.StartObject(); }
  void map_end() { writer_.EndObject(); }

  /// Lets the next top-level value start.
  void next_root() { writer_.Reset(out_); }

 private:
  JsonOut& out_;
  rapidjson::Writer<JsonOut> writer_;
  std::string number_;
};

class JsonWriter final : public Writer::Impl {
 public:
  JsonWriter(Sink& sink, bool verbose, const WriteOptions& options)
      : out_(sink, options.buffer_size), emitter_(out_), encoder_(emitter_, verbose ? Mode::verbose : Mode::json) {}

  void write(const Value& v) override {
    emitter_.next_root();
    encoder_.write_top(v);
    if (out_.buffered() >= out_.capacity() / 2) out_.spill();
  }
  void flush() override { out_.flush_sink(); }

 private:
  JsonOut out_;
  JsonEmitter emitter_;
  Encoder<JsonEmitter> encoder_;
};

}  // namespace

std::unique_ptr<Writer::Impl> make_json_writer(Sink& sink, bool verbose,
                                               const WriteOptions& options) {
  return std::make_unique<JsonWriter>(sink, verbose, options);
}

}  // namespace transit::detail
