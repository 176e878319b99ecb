// SPDX-License-Identifier: Apache-2.0
// JSON and JSON-Verbose output on RapidJSON's Writer.
#include <rapidjson/writer.h>

#include <vector>

#include "backend.h"
#include "codec.h"
#include "encoder.h"
#include "out_buffer.h"

namespace transit::detail {

}  // namespace transit::detail

namespace rapidjson {
template <>
inline void PutReserve(transit::detail::OutBuffer& stream, size_t count) {
  stream.Reserve(count);
}
template <>
inline void PutUnsafe(transit::detail::OutBuffer& stream, char c) {
  stream.PutUnsafe(c);
}
}  // namespace rapidjson

namespace transit::detail {
namespace {

/// The encoder's backend for JSON: RapidJSON handles structure and string escaping; doubles
/// are printed with the shortest round-trip digits.
class JsonEmitter {
 public:
  explicit JsonEmitter(OutBuffer& out) : out_(out), writer_(out) {}

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
  OutBuffer& out_;
  rapidjson::Writer<OutBuffer> writer_;
  std::string number_;
};

}  // namespace

std::unique_ptr<Writer::Impl> make_json_writer(Sink& sink, bool verbose,
                                               const WriteOptions& options) {
  return std::make_unique<BackendWriter<OutBuffer, JsonEmitter>>(
      sink, verbose ? Mode::verbose : Mode::json, options);
}

}  // namespace transit::detail
