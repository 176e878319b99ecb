// SPDX-License-Identifier: Apache-2.0
// transit-simdjson-walk FILE N dom|dom-in-place|ondemand: parses FILE N times with simdjson and
// walks each document into a sink that takes the events the JSON reader gives its decoder
// (out-of-line calls standing in for the decoder), to compare, without the decoder's cost:
//   dom           the reader's way: dom::parser::parse copying the text into its padded
//                 buffer, then a loop over the document's tape (as json::emit)
//   dom-in-place  the same, parsing a padded copy made once, outside the loop: the cost of
//                 the copy is the difference
//   ondemand      On-Demand: the same copy, then a recursive walk of every value, keys and
//                 values alike, and a check that nothing follows the value
// For instruction counts (docs/performance.md, "The walk of simdjson's tape"):
//   valgrind --tool=callgrind --toggle-collect='*walk_once(*' transit-simdjson-walk FILE 3 dom
// and for times: `time transit-simdjson-walk FILE 2000 MODE`. Its documents must be an array or
// an object (On-Demand reads a scalar document by another API), as the corpora are.
#include <simdjson.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>

namespace {

// Sums what it is given, so that nothing is optimised away.
struct Sink {
  std::uint64_t sum = 0;
  [[gnu::noinline]] void null() { sum += 1; }
  [[gnu::noinline]] void boolean(bool b) { sum += b ? 2 : 3; }
  [[gnu::noinline]] void integer(std::int64_t i) { sum += static_cast<std::uint64_t>(i); }
  [[gnu::noinline]] void uinteger(std::uint64_t u) { sum += u; }
  [[gnu::noinline]] void floating(double d) { sum += static_cast<std::uint64_t>(d > 0 ? d : -d); }
  [[gnu::noinline]] void string(std::string_view s) {
    sum += s.size() + (s.empty() ? 0 : static_cast<unsigned char>(s[0]));
  }
  [[gnu::noinline]] void array_begin(std::size_t count) { sum += count; }
  [[gnu::noinline]] void array_end() { sum += 5; }
  [[gnu::noinline]] void map_begin() { sum += 7; }
  [[gnu::noinline]] void map_end() { sum += 11; }
};

// The tape loop of json::emit (src/json/json_reader.h), into the sink.
bool walk_tape(const simdjson::dom::document& doc, Sink& d) {
  constexpr std::uint64_t kPayload = simdjson::internal::JSON_VALUE_MASK;
  const std::uint64_t* const tape = doc.tape.get();
  const std::uint8_t* const strings = doc.string_buf.get();
  const std::size_t end = static_cast<std::size_t>(tape[0] & kPayload) - 1;
  for (std::size_t i = 1; i < end; ++i) {
    const std::uint64_t word = tape[i];
    switch (static_cast<char>(word >> 56)) {
      case '"': {
        const std::uint8_t* const s = strings + (word & kPayload);
        std::uint32_t length;
        std::memcpy(&length, s, sizeof length);
        d.string({reinterpret_cast<const char*>(s + sizeof length), length});
        break;
      }
      case 'l': d.integer(static_cast<std::int64_t>(tape[++i])); break;
      case 'u': d.uinteger(tape[++i]); break;
      case 'd': {
        double x;
        std::memcpy(&x, &tape[++i], sizeof x);
        d.floating(x);
        break;
      }
      case 'n': d.null(); break;
      case 't': d.boolean(true); break;
      case 'f': d.boolean(false); break;
      case '[': d.array_begin((word >> 32) & simdjson::internal::JSON_COUNT_MASK); break;
      case ']': d.array_end(); break;
      case '{': d.map_begin(); break;
      case '}': d.map_end(); break;
      default: return false;
    }
  }
  return true;
}

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

struct Walker {
  explicit Walker(std::string_view t) : text(t), copy(t) {}
  std::string_view text;
  simdjson::padded_string copy;  // dom-in-place's padded text; ondemand's copy of it
  simdjson::dom::parser dom;
  simdjson::ondemand::parser ondemand;
};

[[gnu::noinline]] bool walk_once(Walker& w, const std::string& mode, Sink& d) {
  if (mode == "dom") {
    simdjson::dom::element root;
    if (w.dom.parse(w.text.data(), w.text.size(), true).get(root)) return false;
    return walk_tape(w.dom.doc, d);
  }
  if (mode == "dom-in-place") {
    simdjson::dom::element root;
    if (w.dom.parse(w.copy.data(), w.text.size(), false).get(root)) return false;
    return walk_tape(w.dom.doc, d);
  }
  // The same copy the DOM parser makes.
  std::memcpy(w.copy.data(), w.text.data(), w.text.size());
  simdjson::ondemand::document doc;
  if (w.ondemand.iterate(w.copy.data(), w.text.size(), w.copy.size() + simdjson::SIMDJSON_PADDING)
          .get(doc))
    return false;
  simdjson::ondemand::value root;
  if (doc.get_value().get(root) || walk_value(root, d)) return false;
  // Nothing may follow the value: 3.0.1 has no document::at_end(); past the end, there is no
  // current location.
  const char* rest = nullptr;
  return doc.current_location().get(rest) == simdjson::OUT_OF_BOUNDS;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: transit-simdjson-walk FILE N dom|dom-in-place|ondemand\n");
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  const int n = std::atoi(argv[2]);
  const std::string mode = argv[3];
  if (mode != "dom" && mode != "dom-in-place" && mode != "ondemand") {
    std::fprintf(stderr, "unknown mode %s\n", argv[3]);
    return 2;
  }
  Walker w(text);
  Sink sink;
  for (int i = 0; i < n; ++i)
    if (!walk_once(w, mode, sink)) {
      std::fprintf(stderr, "%s: not read\n", argv[1]);
      return 1;
    }
  std::printf("%llu\n", static_cast<unsigned long long>(sink.sum));
}
