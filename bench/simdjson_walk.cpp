// SPDX-License-Identifier: Apache-2.0
// transit-simdjson-walk FILE N MODE: parses FILE N times with simdjson and walks each document
// into a sink that takes the events the JSON reader gives its decoder (out-of-line calls
// standing in for the decoder), to compare, without the decoder's cost:
//   dom           the reader's way: dom::parser::parse copying the text into its padded
//                 buffer, then a loop over the document's tape (as json::emit)
//   dom-in-place  the same, parsing a padded copy made once, outside the loop: the cost of
//                 the copy is the difference
//   ondemand      On-Demand: the same copy, then a recursive walk of every value, keys and
//                 values alike, and a check that nothing follows the value; its value
//                 parsing compiled for simdjson's builtin kernel, `fallback` on baseline x86-64
//   ondemand-haswell  the same walk through simdjson::haswell::ondemand (AVX2), compiled in
//                 simdjson_walk_haswell.cpp, behind a run-time check of the CPU
//   stage1        the same copy into a padded buffer as `dom` pays, then simdjson's stage 1 only
//                 (the structural index, by the CPU's best kernel), no walk
//   stage1-fused  the same copy and stage 1, then a stage 2 of our own (simdjson_fused.cpp):
//                 one loop over the structural index delivering the same events as `dom`, in
//                 the same order, with the same values (arrays' counts from one pass over the
//                 index first), no tape, no string buffer
//   stage1-fused-nocount  the same without the counting pass: every array's count is 0
//   check-fused   reads FILE once with `dom` and once with `stage1-fused` into two sinks that
//                 also hash every event whole, prints both checksums and hashes and fails
//                 unless both read it with equal ones, or both refuse it (N is not used)
// For instruction counts (docs/performance-log.md, "The walk of simdjson's tape", "JSON read,
// round twenty"):
//   valgrind --tool=callgrind --toggle-collect='*walk_once(*' transit-simdjson-walk FILE 3 dom
// and for times: `time transit-simdjson-walk FILE 2000 MODE`. Its documents must be an array or
// an object (On-Demand reads a scalar document by another API), as the corpora are.
#include <simdjson.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>

#include "simdjson_walk.h"

namespace walk {

namespace {

// FNV-1a over an event's kind and bytes, for check-fused.
void mix(Sink& d, char kind, const void* bytes, std::size_t size) {
  constexpr std::uint64_t kPrime = 0x100000001b3;
  std::uint64_t h = (d.hash ^ static_cast<unsigned char>(kind)) * kPrime;
  const auto* b = static_cast<const unsigned char*>(bytes);
  for (std::size_t i = 0; i < size; ++i) h = (h ^ b[i]) * kPrime;
  d.hash = h;
}

}  // namespace

void Sink::null() {
  sum += 1;
  if (strict) mix(*this, 'n', nullptr, 0);
}
void Sink::boolean(bool b) {
  sum += b ? 2 : 3;
  if (strict) mix(*this, b ? 't' : 'f', nullptr, 0);
}
void Sink::integer(std::int64_t i) {
  sum += static_cast<std::uint64_t>(i);
  if (strict) mix(*this, 'l', &i, sizeof i);
}
void Sink::uinteger(std::uint64_t u) {
  sum += u;
  if (strict) mix(*this, 'u', &u, sizeof u);
}
void Sink::floating(double d) {
  sum += static_cast<std::uint64_t>(d > 0 ? d : -d);
  if (strict) mix(*this, 'd', &d, sizeof d);
}
void Sink::string(std::string_view s) {
  sum += s.size() + (s.empty() ? 0 : static_cast<unsigned char>(s[0]));
  if (strict) {
    const std::uint64_t size = s.size();
    mix(*this, '"', &size, sizeof size);
    mix(*this, '"', s.data(), s.size());
  }
}
void Sink::array_begin(std::size_t count) {
  sum += count;
  if (strict) mix(*this, '[', &count, sizeof count);
}
void Sink::array_end() {
  sum += 5;
  if (strict) mix(*this, ']', nullptr, 0);
}
void Sink::map_begin() {
  sum += 7;
  if (strict) mix(*this, '{', nullptr, 0);
}
void Sink::map_end() {
  sum += 11;
  if (strict) mix(*this, '}', nullptr, 0);
}

bool haswell_supported() {
  const simdjson::implementation* haswell = simdjson::get_available_implementations()["haswell"];
  return haswell != nullptr && haswell->supported_by_runtime_system();
}

}  // namespace walk

namespace {

using walk::Sink;

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

struct Walker {
  // padded_string zeroes its padding, and nothing here writes there: the fused walk's end,
  // which Fused::read checks.
  explicit Walker(std::string_view t) : text(t), copy(t), fused(t.size()) {}
  std::string_view text;
  simdjson::padded_string copy;  // dom-in-place's padded text; ondemand's and stage1's copy
  simdjson::dom::parser dom;
  simdjson::ondemand::parser ondemand;
  walk::Fused fused;
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
  const std::size_t capacity = w.copy.size() + simdjson::SIMDJSON_PADDING;
  if (mode == "ondemand-haswell")
    return walk::ondemand_haswell(w.copy.data(), w.text.size(), capacity, d);
  if (mode == "stage1") return w.fused.stage1(w.copy.data(), w.text.size(), d);
  if (mode == "stage1-fused") return w.fused.read(w.copy.data(), w.text.size(), true, d);
  if (mode == "stage1-fused-nocount")
    return w.fused.read(w.copy.data(), w.text.size(), false, d);
  return walk::walk_document(w.ondemand, w.copy.data(), w.text.size(), capacity, d);
}

}  // namespace

// Every MODE, in the header comment's order.
constexpr std::string_view kModes[] = {"dom", "dom-in-place", "ondemand", "ondemand-haswell",
                                       "stage1", "stage1-fused", "stage1-fused-nocount",
                                       "check-fused"};

int main(int argc, char** argv) {
  const bool known = argc == 4 && std::find(std::begin(kModes), std::end(kModes),
                                            std::string_view(argv[3])) != std::end(kModes);
  if (!known) {
    if (argc == 4) std::fprintf(stderr, "unknown mode %s\n", argv[3]);
    std::string modes;
    for (std::string_view m : kModes) (modes += modes.empty() ? "" : "|") += m;
    std::fprintf(stderr, "usage: transit-simdjson-walk FILE N %s\n", modes.c_str());
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  const int n = std::atoi(argv[2]);
  const std::string mode = argv[3];
  if (mode == "ondemand-haswell" && !walk::haswell_supported()) {
    std::fprintf(stderr, "this CPU cannot run simdjson's haswell kernel\n");
    return 2;
  }
  Walker w(text);
  if (mode == "check-fused") {
    Sink dom;
    Sink fused;
    dom.strict = fused.strict = true;
    const bool dom_read = walk_once(w, "dom", dom);
    const bool fused_read = walk_once(w, "stage1-fused", fused);
    std::printf("%s dom %s %llu %016llx stage1-fused %s %llu %016llx\n", argv[1],
                dom_read ? "read" : "not-read", static_cast<unsigned long long>(dom.sum),
                static_cast<unsigned long long>(dom.hash), fused_read ? "read" : "not-read",
                static_cast<unsigned long long>(fused.sum),
                static_cast<unsigned long long>(fused.hash));
    // Where both refuse the text, the events before the refusal may differ (the tape's stage 2
    // delivers none; ours has delivered some): only "not read" must agree.
    if (!dom_read && !fused_read) return 0;
    return dom_read == fused_read && dom.sum == fused.sum && dom.hash == fused.hash ? 0 : 1;
  }
  Sink sink;
  for (int i = 0; i < n; ++i)
    if (!walk_once(w, mode, sink)) {
      std::fprintf(stderr, "%s: not read\n", argv[1]);
      return 1;
    }
  std::printf("%llu\n", static_cast<unsigned long long>(sink.sum));
}
