// SPDX-License-Identifier: Apache-2.0
// transit-cpp: JSON read and write benchmarks on the shared corpora, with RapidJSON floors.

#include <benchmark/benchmark.h>
#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <rapidjson/reader.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "transit/transit.h"

namespace {

constexpr unsigned kParseFlags = rapidjson::kParseFullPrecisionFlag;
constexpr const char* kCorpusFiles[] = {"twitter.json", "citm_catalog.json"};

// One corpus in every form the benchmarks need, prepared and verified before anything is timed.
struct Corpus {
  std::string name;          // file stem: "twitter"
  std::string text;          // the original JSON, which is also Transit JSON-Verbose
  std::string transit_json;  // the same value written as Transit JSON
  std::size_t transit_verbose_size = 0;
  std::size_t rapidjson_out_size = 0;
  rapidjson::Document dom;
  transit::Value value;
  std::size_t values = 0;  // nodes in the tree, map keys included
};

// Accepts every event and keeps nothing: the cost of tokenizing alone.
struct NullHandler : rapidjson::BaseReaderHandler<rapidjson::UTF8<>, NullHandler> {};

[[noreturn]] void fail(const std::string& corpus, const std::string& what) {
  std::fprintf(stderr, "transit-bench: %s: verification failed: %s\n", corpus.c_str(),
               what.c_str());
  std::exit(EXIT_FAILURE);
}

std::filesystem::path corpus_dir() {
  const char* env = std::getenv("TRANSIT_CORPUS");
  return (env != nullptr && *env != '\0') ? std::filesystem::path(env)
                                          : std::filesystem::path(TRANSIT_DEFAULT_CORPUS);
}

std::optional<std::string> slurp(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::size_t count_values(const transit::Value& v) {
  std::size_t n = 1;
  switch (v.kind()) {
    case transit::Kind::array:
    case transit::Kind::list:
    case transit::Kind::set:
      for (const transit::Value& item : v.items()) n += count_values(item);
      break;
    case transit::Kind::map:
    case transit::Kind::link:
      for (const transit::Entry& e : v.entries()) n += count_values(e.first) + count_values(e.second);
      break;
    case transit::Kind::tagged:
      n += count_values(v.rep());
      break;
    default:
      break;
  }
  return n;
}

std::size_t count_values(const rapidjson::Value& v) {
  std::size_t n = 1;
  if (v.IsArray()) {
    for (const rapidjson::Value& item : v.GetArray()) n += count_values(item);
  } else if (v.IsObject()) {
    for (const auto& m : v.GetObject()) n += 1 + count_values(m.value);
  }
  return n;
}

std::string rapidjson_write(const rapidjson::Document& dom) {
  rapidjson::StringBuffer out;
  rapidjson::Writer<rapidjson::StringBuffer> writer(out);
  dom.Accept(writer);
  return std::string(out.GetString(), out.GetSize());
}

// Loads a corpus and proves every benchmark below computes the right thing on it. Returns
// nullptr (with a message) when the file is missing; exits when a check fails.
std::unique_ptr<Corpus> prepare(const std::filesystem::path& path) {
  std::optional<std::string> text = slurp(path);
  if (!text) {
    std::fprintf(stderr, "transit-bench: %s not found, skipping it (set TRANSIT_CORPUS)\n",
                 path.c_str());
    return nullptr;
  }
  auto c = std::make_unique<Corpus>();
  c->name = path.stem().string();
  c->text = std::move(*text);

  // The floors: the DOM and SAX parses succeed, and the writer's output parses back equal.
  c->dom.Parse<kParseFlags>(c->text.c_str(), c->text.size());
  if (c->dom.HasParseError())
    fail(c->name, std::string("RapidJSON DOM parse: ") +
                      rapidjson::GetParseError_En(c->dom.GetParseError()) + " at byte " +
                      std::to_string(c->dom.GetErrorOffset()));
  {
    rapidjson::Reader reader;
    rapidjson::StringStream in(c->text.c_str());
    NullHandler handler;
    if (!reader.Parse<kParseFlags>(in, handler)) fail(c->name, "RapidJSON SAX parse failed");
  }
  const std::string rapid_out = rapidjson_write(c->dom);
  c->rapidjson_out_size = rapid_out.size();
  rapidjson::Document reparsed;
  reparsed.Parse<kParseFlags>(rapid_out.c_str(), rapid_out.size());
  if (reparsed.HasParseError() || reparsed != c->dom)
    fail(c->name, "RapidJSON Writer output does not parse back to the same document");

  // Transit: the verbose read sees the same tree as the DOM, and both encodings round-trip.
  try {
    c->value = transit::read(c->text, transit::Encoding::json);
    c->values = count_values(c->value);
    if (const std::size_t dom_values = count_values(c->dom); c->values != dom_values)
      fail(c->name, "transit::read found " + std::to_string(c->values) + " values, RapidJSON " +
                        std::to_string(dom_values));
    c->transit_json = transit::write(c->value, transit::Encoding::json);
    if (!(transit::read(c->transit_json, transit::Encoding::json) == c->value))
      fail(c->name, "read(write(v, json)) != v");
    const std::string verbose = transit::write(c->value, transit::Encoding::json_verbose);
    c->transit_verbose_size = verbose.size();
    if (!(transit::read(verbose, transit::Encoding::json) == c->value))
      fail(c->name, "read(write(v, json_verbose)) != v");
  } catch (const std::exception& e) {
    fail(c->name, e.what());
  }

  std::fprintf(stderr,
               "transit-bench: %s: %zu values; %zu bytes JSON, %zu bytes Transit JSON, "
               "%zu bytes Transit JSON-Verbose, %zu bytes RapidJSON Writer\n",
               c->name.c_str(), c->values, c->text.size(), c->transit_json.size(),
               c->transit_verbose_size, c->rapidjson_out_size);
  return c;
}

// Bytes per second count the bytes each benchmark actually reads or writes, which differ by
// encoding; the `values` rate is the same tree in every row, so it compares them directly.
void report(benchmark::State& state, std::size_t bytes, std::size_t values) {
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(bytes));
  state.counters["values"] = benchmark::Counter(static_cast<double>(values),
                                                benchmark::Counter::kIsIterationInvariantRate);
}

void floor_sax(benchmark::State& state, const Corpus& c) {
  for (auto _ : state) {
    rapidjson::Reader reader;
    rapidjson::StringStream in(c.text.c_str());
    NullHandler handler;
    bool ok = static_cast<bool>(reader.Parse<kParseFlags>(in, handler));
    benchmark::DoNotOptimize(ok);
  }
  report(state, c.text.size(), c.values);
}

void floor_dom(benchmark::State& state, const Corpus& c) {
  for (auto _ : state) {
    rapidjson::Document doc;
    doc.Parse<kParseFlags>(c.text.c_str(), c.text.size());
    benchmark::DoNotOptimize(doc);
  }
  report(state, c.text.size(), c.values);
}

void floor_write(benchmark::State& state, const Corpus& c) {
  // One buffer, cleared but never shrunk, so the floor pays for no allocation at all.
  rapidjson::StringBuffer out;
  for (auto _ : state) {
    out.Clear();
    rapidjson::Writer<rapidjson::StringBuffer> writer(out);
    c.dom.Accept(writer);
    benchmark::DoNotOptimize(out.GetString());
  }
  report(state, c.rapidjson_out_size, c.values);
}

void transit_read(benchmark::State& state, const Corpus& c, const std::string& input) {
  for (auto _ : state) {
    transit::Value v = transit::read(input, transit::Encoding::json);
    benchmark::DoNotOptimize(v);
  }
  report(state, input.size(), c.values);
}

void transit_write(benchmark::State& state, const Corpus& c, transit::Encoding encoding,
                   std::size_t out_size) {
  for (auto _ : state) {
    std::string out = transit::write(c.value, encoding);
    benchmark::DoNotOptimize(out.data());
  }
  report(state, out_size, c.values);
}

void register_corpus(const Corpus& c) {
  const auto add = [&](const std::string& group, auto&& fn) {
    benchmark::RegisterBenchmark((group + "/" + c.name).c_str(), fn)
        ->Unit(benchmark::kMicrosecond);
  };
  add("Floor/RapidJsonSax", [&c](benchmark::State& s) { floor_sax(s, c); });
  add("Floor/RapidJsonDom", [&c](benchmark::State& s) { floor_dom(s, c); });
  add("Floor/RapidJsonWrite", [&c](benchmark::State& s) { floor_write(s, c); });
  add("Read/TransitJson", [&c](benchmark::State& s) { transit_read(s, c, c.transit_json); });
  add("Read/TransitVerbose", [&c](benchmark::State& s) { transit_read(s, c, c.text); });
  add("Write/TransitJson", [&c](benchmark::State& s) {
    transit_write(s, c, transit::Encoding::json, c.transit_json.size());
  });
  add("Write/TransitVerbose", [&c](benchmark::State& s) {
    transit_write(s, c, transit::Encoding::json_verbose, c.transit_verbose_size);
  });
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return EXIT_FAILURE;

  const std::filesystem::path dir = corpus_dir();
  std::vector<std::unique_ptr<Corpus>> corpora;
  for (const char* file : kCorpusFiles)
    if (auto c = prepare(dir / file)) corpora.push_back(std::move(c));
  if (corpora.empty()) {
    std::fprintf(stderr, "transit-bench: no corpus found in %s, nothing to run\n", dir.c_str());
    return EXIT_SUCCESS;
  }
  for (const auto& c : corpora) register_corpus(*c);

  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return EXIT_SUCCESS;
}
