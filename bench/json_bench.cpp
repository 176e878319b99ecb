// SPDX-License-Identifier: Apache-2.0
// transit-cpp: JSON read and write benchmarks, with RapidJSON's SAX parse, DOM parse (full
// precision) and Writer as the floors, each run on the very text Transit reads or writes, and
// simdjson's DOM parse beside them when the library reads with it.

#include <malloc.h>

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <rapidjson/reader.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#ifdef TRANSIT_HAVE_SIMDJSON
#include <simdjson.h>
#endif

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "chunk_source.h"
#include "corpora.h"
#include "rapidjson_dom.h"
#include "transit/transit.h"
#include "model/value_internal.h"

namespace transit::bench {
namespace {

constexpr unsigned kParseFlags = rapidjson::kParseFullPrecisionFlag;

// Accepts every event and keeps nothing: the cost of tokenizing alone.
struct NullHandler : rapidjson::BaseReaderHandler<rapidjson::UTF8<>, NullHandler> {};

// One JSON text with the Document its Writer floor re-emits.
struct JsonText {
  const Corpus* corpus;
  const std::string* text;
  rapidjson::Document dom;
  std::size_t writer_out_size = 0;
};

void writer_emit(const rapidjson::Document& dom, rapidjson::StringBuffer& out) {
  out.Clear();
  rapidjson::Writer<rapidjson::StringBuffer> writer(out);
  dom.Accept(writer);
}

// The floors' own checks: the text parses both ways, and the Writer's output parses back to
// the same Document.
const JsonText& prepare_text(const Corpus& c, const std::string& text) {
  static std::deque<JsonText> texts;  // stable addresses for the registered benchmarks
  JsonText& t = texts.emplace_back();
  t.corpus = &c;
  t.text = &text;
  if (!rapidjson_parse(t.dom, text))
    fail(c.name, std::string("RapidJSON DOM parse: ") + rapidjson::GetParseError_En(t.dom.GetParseError()) +
                     " at byte " + std::to_string(t.dom.GetErrorOffset()));
  rapidjson::Reader reader;
  rapidjson::StringStream in(text.c_str());
  NullHandler handler;
  if (!reader.Parse<kParseFlags>(in, handler)) fail(c.name, "RapidJSON SAX parse failed");
  rapidjson::StringBuffer out;
  writer_emit(t.dom, out);
  t.writer_out_size = out.GetSize();
  rapidjson::Document reparsed;
  if (!rapidjson_parse(reparsed, {out.GetString(), out.GetSize()}) || reparsed != t.dom)
    fail(c.name, "RapidJSON Writer output does not parse back to the same document");
  return t;
}

void floor_sax(benchmark::State& state, const JsonText& t) {
  for (auto _ : state) {
    rapidjson::Reader reader;
    rapidjson::StringStream in(t.text->c_str());
    NullHandler handler;
    bool ok = static_cast<bool>(reader.Parse<kParseFlags>(in, handler));
    benchmark::DoNotOptimize(ok);
  }
  report(state, t.text->size(), t.corpus->values);
}

void floor_dom(benchmark::State& state, const JsonText& t) {
  for (auto _ : state) benchmark::DoNotOptimize(rapidjson_dom(*t.text));
  report(state, t.text->size(), t.corpus->values);
}

#ifdef TRANSIT_HAVE_SIMDJSON
// simdjson's DOM parse, with one parser whose buffers serve every iteration, as the reader's
// per-thread parser does; the text is copied into its padded buffer each time, as the reader
// copies it. Checked first: its minified output parses (RapidJSON) to the same Document.
void floor_simdjson(benchmark::State& state, const JsonText& t) {
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (const auto err = parser.parse(t.text->data(), t.text->size(), true).get(root))
    fail(t.corpus->name, std::string("simdjson parse: ") + simdjson::error_message(err));
  const std::string minified = simdjson::minify(root);
  rapidjson::Document back;
  if (!rapidjson_parse(back, minified) || back != t.dom)
    fail(t.corpus->name, "simdjson's document differs from RapidJSON's");
  for (auto _ : state) {
    const auto err = parser.parse(t.text->data(), t.text->size(), true).get(root);
    benchmark::DoNotOptimize(err);
    benchmark::DoNotOptimize(root);
  }
  report(state, t.text->size(), t.corpus->values);
}
#endif

void floor_write(benchmark::State& state, const JsonText& t) {
  // One buffer, cleared but never shrunk, so the floor pays for no allocation at all.
  rapidjson::StringBuffer out;
  for (auto _ : state) {
    writer_emit(t.dom, out);
    benchmark::DoNotOptimize(out.GetString());
  }
  report(state, t.writer_out_size, t.corpus->values);
}

// A read from a Source (a `transit convert`, a service reading a socket): the text handed
// out in 64 KiB chunks (ReadOptions::chunk_size's default), a fresh Reader each iteration as
// transit_read makes a fresh read. RapidJSON parses it, whose events announce no counts, so
// every container takes the decoder's uncounted path.
Value read_from_source(const std::string& input, Encoding encoding) {
  ChunkSource source(input, 64 * 1024);
  Reader reader(source, encoding);
  std::optional<Value> v = reader.next();
  if (!v) fail("source", "no value read");
  return std::move(*v);
}

// transit::read of `input`, or (kSource) its read from a Source.
template <bool kSource = false>
void transit_read(benchmark::State& state, const Corpus& c, const std::string& input) {
  const auto once = [&] { return kSource ? read_from_source(input, Encoding::json) : read(input, Encoding::json); };
  if (!(once() == c.value)) fail(c.name, kSource ? "Source read result differs" : "transit::read result differs");
  for (auto _ : state) {
    Value v = once();
    benchmark::DoNotOptimize(v);
  }
  report(state, input.size(), c.values);
}

// A text of many values, one a line (a batch of messages, a log of values): the items of a
// corpus that is an array, each written alone. One Reader in memory reads them all; the floor
// parses each line into a RapidJSON DOM.
struct ManyText {
  const Corpus* corpus;
  std::string text;
  std::vector<std::string_view> lines;
};

const ManyText& prepare_many(const Corpus& c) {
  static std::deque<ManyText> texts;  // stable addresses for the registered benchmarks
  ManyText& t = texts.emplace_back();
  t.corpus = &c;
  for (const Value& item : c.value.items()) t.text += write(item, Encoding::json) + "\n";
  for (std::size_t at = 0; at < t.text.size();) {
    const std::size_t end = t.text.find('\n', at);
    t.lines.push_back(std::string_view(t.text).substr(at, end - at));
    at = end + 1;
  }
  Reader reader(t.text, Encoding::json);
  for (const Value& item : c.value.items()) {
    const std::optional<Value> v = reader.next();
    if (!v || !(*v == item)) fail(c.name, "a value of many read back differs");
  }
  if (reader.next()) fail(c.name, "more values read than written");
  return t;
}

void floor_dom_many(benchmark::State& state, const ManyText& t) {
  for (auto _ : state)
    for (const std::string_view line : t.lines) benchmark::DoNotOptimize(rapidjson_dom(line));
  report(state, t.text.size(), t.corpus->values);
}

void transit_read_many(benchmark::State& state, const ManyText& t) {
  for (auto _ : state) {
    Reader reader(t.text, Encoding::json);
    while (std::optional<Value> v = reader.next()) benchmark::DoNotOptimize(v);
  }
  report(state, t.text.size(), t.corpus->values);
}

WriteOptions write_options(bool float32) {
  WriteOptions options;
  options.float32 = float32;
  return options;
}

}  // namespace

WriteLoop::WriteLoop(const Corpus& c, const Value& value, Encoding encoding, bool float32,
                     const std::string& expected)
    : value_(value), writer_(sink_, encoding, write_options(float32)) {
  once();
  if (out_ != expected) fail(c.name, "Writer output differs from the verified text");
}

void WriteLoop::once() {
  out_.clear();
  writer_.write(value_);
  writer_.flush();
  benchmark::DoNotOptimize(out_.data());
}

void transit_write(benchmark::State& state, const Corpus& c, const Value& value, Encoding encoding,
                   bool float32, const std::string& expected) {
  WriteLoop loop(c, value, encoding, float32, expected);
  for (auto _ : state) loop.once();
  report(state, expected.size(), c.values);
}

namespace {

// Issue 11's JSON targets timed in pairs (time_pair): a read of `t`'s text against RapidJSON's
// DOM parse of it, and a write of `value` against RapidJSON's Writer of the text's Document.
void pair_read(benchmark::State& state, const Corpus& c, const JsonText& t) {
  time_read_pair(state, c, *t.text, Encoding::json,
                 [&] { benchmark::DoNotOptimize(rapidjson_dom(*t.text)); });
}

void pair_write(benchmark::State& state, const Corpus& c, const JsonText& t, const Value& value,
                Encoding encoding) {
  WriteLoop ours(c, value, encoding, false, *t.text);
  rapidjson::StringBuffer floor_out;
  time_pair(
      state, [&] { ours.once(); },
      [&] {
        writer_emit(t.dom, floor_out);
        benchmark::DoNotOptimize(floor_out.GetString());
      });
}

}  // namespace

void register_json_benchmarks(const Corpus& c) {
  const JsonText& json = prepare_text(c, c.json);
  const JsonText& verbose = prepare_text(c, c.verbose);
  const auto add = [&](const std::string& group, auto fn) {
    benchmark::RegisterBenchmark((group + "/" + c.name).c_str(), fn)->Unit(benchmark::kMicrosecond);
  };
  add("Floor/RapidJsonSax", [&json](benchmark::State& s) { floor_sax(s, json); });
  add("Floor/RapidJsonDom", [&json](benchmark::State& s) { floor_dom(s, json); });
#ifdef TRANSIT_HAVE_SIMDJSON
  add("Floor/SimdjsonDom", [&json](benchmark::State& s) { floor_simdjson(s, json); });
#endif
  add("Floor/RapidJsonWrite", [&json](benchmark::State& s) { floor_write(s, json); });
  add("Read/TransitJson", [&c](benchmark::State& s) { transit_read(s, c, c.json); });
  add("Read/TransitJsonSource", [&c](benchmark::State& s) { transit_read<true>(s, c, c.json); });
  add("Write/TransitJson", [&c](benchmark::State& s) {
    transit_write(s, c, c.value, Encoding::json, false, c.json);
  });
  add("Write/TransitJsonReadBack", [&c](benchmark::State& s) {
    transit_write(s, c, c.read_back, Encoding::json, false, c.json);
  });
  if (c.value.kind() == Kind::array) {
    const ManyText& many = prepare_many(c);
    add("Floor/RapidJsonDomMany", [&many](benchmark::State& s) { floor_dom_many(s, many); });
    add("Read/TransitJsonMany", [&many](benchmark::State& s) { transit_read_many(s, many); });
  }
  add("Floor/RapidJsonSaxVerbose", [&verbose](benchmark::State& s) { floor_sax(s, verbose); });
  add("Floor/RapidJsonDomVerbose", [&verbose](benchmark::State& s) { floor_dom(s, verbose); });
#ifdef TRANSIT_HAVE_SIMDJSON
  add("Floor/SimdjsonDomVerbose", [&verbose](benchmark::State& s) { floor_simdjson(s, verbose); });
#endif
  add("Floor/RapidJsonWriteVerbose", [&verbose](benchmark::State& s) { floor_write(s, verbose); });
  add("Read/TransitVerbose", [&c](benchmark::State& s) { transit_read(s, c, c.verbose); });
  add("Read/TransitVerboseSource", [&c](benchmark::State& s) { transit_read<true>(s, c, c.verbose); });
  add("Write/TransitVerbose", [&c](benchmark::State& s) {
    transit_write(s, c, c.value, Encoding::json_verbose, false, c.verbose);
  });
  add("Write/TransitVerboseReadBack", [&c](benchmark::State& s) {
    transit_write(s, c, c.read_back, Encoding::json_verbose, false, c.verbose);
  });
  add("Pair/ReadJson", [&c, &json](benchmark::State& s) { pair_read(s, c, json); });
  add("Pair/ReadVerbose", [&c, &verbose](benchmark::State& s) { pair_read(s, c, verbose); });
  add("Pair/WriteJson", [&c, &json](benchmark::State& s) { pair_write(s, c, json, c.value, Encoding::json); });
  add("Pair/WriteJsonReadBack", [&c, &json](benchmark::State& s) {
    pair_write(s, c, json, c.read_back, Encoding::json);
  });
  add("Pair/WriteVerbose", [&c, &verbose](benchmark::State& s) {
    pair_write(s, c, verbose, c.value, Encoding::json_verbose);
  });
  add("Pair/WriteVerboseReadBack", [&c, &verbose](benchmark::State& s) {
    pair_write(s, c, verbose, c.read_back, Encoding::json_verbose);
  });
}

namespace {

// Bytes malloc has handed out and not taken back, mmapped blocks included.
long long heap_in_use() {
  const struct mallinfo2 m = mallinfo2();
  return static_cast<long long>(m.uordblks + m.hblkhd);
}

}  // namespace

void print_memory_table(std::ostream& out, std::span<const std::unique_ptr<Corpus>> corpora) {
  for (const bool verbose : {true, false}) {
    out << "heap bytes held by one document read from its " << (verbose ? "JSON-Verbose" : "Transit JSON")
        << " text (in memory; from a Source in 64 KiB chunks):\n";
    char line[160];
    std::snprintf(line, sizeof line, "%-12s %16s %16s %18s %8s %8s %14s %14s\n", "corpus",
                  "transit::Value", "from a Source", "rapidjson::Document", "ratio", "Source",
                  "nodes (memory)", "nodes (Source)");
    out << line;
    for (const auto& c : corpora) {
      const std::string& text = verbose ? c->verbose : c->json;
      // The arena's own count of its blocks: the heap's growth would show neither the pooled
      // blocks that served the read nor apart the parser's per-thread buffers.
      const Value v = read(text, Encoding::json);
      const auto value_bytes = static_cast<long long>(ValueAccess::arena_bytes(v));
      const Value from_source = read_from_source(text, Encoding::json);
      const auto source_bytes = static_cast<long long>(ValueAccess::arena_bytes(from_source));
      const long long before = heap_in_use();
      rapidjson::Document dom;
      if (!rapidjson_parse(dom, text)) fail(c->name, "RapidJSON DOM parse of the text");
      const long long dom_bytes = heap_in_use() - before;
      // The blocks' bytes the nodes took: where a guess left room unused, it shows here first.
      std::snprintf(line, sizeof line, "%-12s %16lld %16lld %18lld %7.2fx %7.2fx %14zu %14zu\n",
                    c->name.c_str(), value_bytes, source_bytes, dom_bytes,
                    static_cast<double>(value_bytes) / static_cast<double>(dom_bytes),
                    static_cast<double>(source_bytes) / static_cast<double>(dom_bytes),
                    ValueAccess::arena_used_bytes(v), ValueAccess::arena_used_bytes(from_source));
      out << line;
    }
  }

  // A long stream of small values read through a Source: what is held must not grow with it.
  constexpr std::size_t kSmall = 200'000, kEarly = 1'000;
  std::string stream;
  for (std::size_t i = 0; i < kSmall; ++i)
    stream += write(Value::map({{kw("seq"), i}, {kw("name"), "value " + std::to_string(i)}}));
  // A fresh thread too, so the blocks the reader's documents keep in the pool are counted.
  long long start_to_early = 0, start_to_end = 0;
  std::size_t n = 0;
  std::thread([&] {
    ChunkSource source(stream, 4096);
    Reader reader(source, Encoding::json);
    const long long start = heap_in_use();
    while (auto v = reader.next())
      if (++n == kEarly) start_to_early = heap_in_use() - start;
    start_to_end = heap_in_use() - start;
  }).join();
  if (n != kSmall) fail("stream", "read " + std::to_string(n) + " values, wrote " + std::to_string(kSmall));
  out << "heap held while streaming " << kSmall << " small values from a Source: " << start_to_early
      << " bytes after " << kEarly << ", " << start_to_end << " bytes after " << kSmall << "\n";
}

}  // namespace transit::bench
