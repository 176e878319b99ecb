// SPDX-License-Identifier: Apache-2.0
// What the two translation units of transit-simdjson-walk share: the sink of events and the
// On-Demand walk, which simdjson_walk.cpp compiles for simdjson's builtin kernel (baseline
// x86-64: `fallback`) and simdjson_walk_haswell.cpp for its AVX2 (haswell) kernel.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

namespace walk {

// Sums what it is given, so that nothing is optimised away. Its members are defined out of
// line in simdjson_walk.cpp (compiled for the baseline target), standing in for the decoder.
struct Sink {
  std::uint64_t sum = 0;
  // check-fused sets it: then every event, its kind and its whole value (a string's bytes, a
  // double's bits) is also hashed into `hash`, so that two walks agree only on the same events
  bool strict = false;
  std::uint64_t hash = 0;
  void null();
  void boolean(bool b);
  void integer(std::int64_t i);
  void uinteger(std::uint64_t u);
  void floating(double d);
  void string(std::string_view s);
  void array_begin(std::size_t count);
  void array_end();
  void map_begin();
  void map_end();
};

// On-Demand through simdjson::haswell::ondemand: walks the text in `buffer` (length bytes,
// capacity bytes readable, at least length + SIMDJSON_PADDING) into `d`. False if simdjson
// refuses it or something follows the value. Call only where the CPU has AVX2, BMI1, PCLMUL
// and LZCNT (haswell_supported()).
bool ondemand_haswell(char* buffer, std::size_t length, std::size_t capacity, Sink& d);
bool haswell_supported();

// simdjson's stage 1 through its compiled kernel's public virtuals, then a stage 2 of our own
// over the structural index, delivering to the Sink with no tape (simdjson_fused.cpp). The text
// is `padded`: `length` bytes, then SIMDJSON_PADDING zero bytes.
class Fused {
 public:
  explicit Fused(std::size_t capacity);  // the longest text it will read
  ~Fused();
  Fused(const Fused&) = delete;
  Fused& operator=(const Fused&) = delete;
  // Stage 1 only; gives the Sink the number of tokens. False where stage 1 refuses the text.
  bool stage1(const char* padded, std::size_t length, Sink& d);
  // Stage 1, then the walk: the same events as the tape walk, in the same order, with the same
  // values; with_counts false passes 0 as every array's count (no pass to count them). False on
  // anything the tape's stage 2 would refuse.
  bool read(const char* padded, std::size_t length, bool with_counts, Sink& d);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace walk

// The recursive On-Demand walk, for the kernel `simdjson::ondemand` names in the including
// translation unit. Include after <simdjson.h>.
#ifdef SIMDJSON_BUILTIN_IMPLEMENTATION
namespace walk {
namespace {

simdjson::error_code walk_value(simdjson::ondemand::value v, Sink& d) {
  using simdjson::ondemand::json_type;
  json_type type;
  if (auto e = v.type().get(type)) return e;
  switch (type) {
    case json_type::array: {
      simdjson::ondemand::array items;
      if (auto e = v.get_array().get(items)) return e;
      d.array_begin(0);  // On-Demand does not know the count before the items
      for (auto item : items) {
        simdjson::ondemand::value x;
        if (auto e = item.get(x)) return e;
        if (auto e = walk_value(x, d)) return e;
      }
      d.array_end();
      return simdjson::SUCCESS;
    }
    case json_type::object: {
      simdjson::ondemand::object fields;
      if (auto e = v.get_object().get(fields)) return e;
      d.map_begin();
      for (auto field : fields) {
        std::string_view key;
        if (auto e = field.unescaped_key().get(key)) return e;
        d.string(key);
        simdjson::ondemand::value x;
        if (auto e = field.value().get(x)) return e;
        if (auto e = walk_value(x, d)) return e;
      }
      d.map_end();
      return simdjson::SUCCESS;
    }
    case json_type::number: {
      simdjson::ondemand::number n;
      if (auto e = v.get_number().get(n)) return e;
      switch (n.get_number_type()) {
        case simdjson::ondemand::number_type::signed_integer: d.integer(n.get_int64()); break;
        case simdjson::ondemand::number_type::unsigned_integer: d.uinteger(n.get_uint64()); break;
        default: d.floating(n.get_double()); break;
      }
      return simdjson::SUCCESS;
    }
    case json_type::string: {
      std::string_view s;
      if (auto e = v.get_string().get(s)) return e;
      d.string(s);
      return simdjson::SUCCESS;
    }
    case json_type::boolean: {
      bool b;
      if (auto e = v.get_bool().get(b)) return e;
      d.boolean(b);
      return simdjson::SUCCESS;
    }
    case json_type::null: {
      bool is_null;
      if (auto e = v.is_null().get(is_null)) return e;
      if (!is_null) return simdjson::INCORRECT_TYPE;
      d.null();
      return simdjson::SUCCESS;
    }
  }
  return simdjson::INCORRECT_TYPE;
}

// Iterates the padded text and walks its one value; nothing may follow it (3.0.1 has no
// document::at_end(): past the end, there is no current location).
bool walk_document(simdjson::ondemand::parser& parser, char* buffer, std::size_t length,
                   std::size_t capacity, Sink& d) {
  simdjson::ondemand::document doc;
  if (parser.iterate(buffer, length, capacity).get(doc)) return false;
  simdjson::ondemand::value root;
  if (doc.get_value().get(root) || walk_value(root, d)) return false;
  const char* rest = nullptr;
  return doc.current_location().get(rest) == simdjson::OUT_OF_BOUNDS;
}

}  // namespace
}  // namespace walk
#endif
