// SPDX-License-Identifier: Apache-2.0
// transit-cpp: MessagePack read and write benchmarks on the shared corpora, with msgpack-cxx's
// own unpack (into an object_handle) and pack (of that object) as the floors. Registered when
// the binary starts; each corpus is loaded and every benchmark's result verified the first time
// one of its benchmarks runs, before anything is timed.
#include <benchmark/benchmark.h>

#include <msgpack.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "transit/transit.h"

namespace {

constexpr const char* kCorpusFiles[] = {"twitter.json", "citm_catalog.json"};

struct MsgpackCorpus {
  std::string name;
  transit::Value value;     // the corpus read as Transit (its JSON is Transit JSON-Verbose)
  std::string msgpack;      // value written as Transit MessagePack
  std::string float32;      // the same with WriteOptions::float32
  std::string floor_packed; // what msgpack-cxx packs from its unpacked object
  std::size_t values = 0;
  std::size_t doubles = 0;  // of the values, how many are doubles: what float32 can shrink
};

[[noreturn]] void fail(const std::string& corpus, const std::string& what) {
  std::fprintf(stderr, "transit-bench: %s: verification failed: %s\n", corpus.c_str(), what.c_str());
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

std::size_t count_doubles(const transit::Value& v) {
  switch (v.kind()) {
    case transit::Kind::floating:
      return 1;
    case transit::Kind::array:
    case transit::Kind::list:
    case transit::Kind::set: {
      std::size_t n = 0;
      for (const transit::Value& item : v.items()) n += count_doubles(item);
      return n;
    }
    case transit::Kind::map:
    case transit::Kind::link: {
      std::size_t n = 0;
      for (const transit::Entry& e : v.entries()) n += count_doubles(e.first) + count_doubles(e.second);
      return n;
    }
    case transit::Kind::tagged:
      return count_doubles(v.rep());
    default:
      return 0;
  }
}

// msgpack-cxx's packer writes a whole-number double as an integer (since 4.1.2), so the floor's
// output may differ from its input there and only there: numbers compare by value.
bool same_object(const msgpack::object& a, const msgpack::object& b) {
  const auto numeric = [](const msgpack::object& o) {
    return o.type == msgpack::type::POSITIVE_INTEGER || o.type == msgpack::type::NEGATIVE_INTEGER ||
           o.type == msgpack::type::FLOAT32 || o.type == msgpack::type::FLOAT64;
  };
  if (numeric(a) && numeric(b)) return a.as<double>() == b.as<double>();
  if (a.type != b.type) return false;
  switch (a.type) {
    case msgpack::type::ARRAY:
      if (a.via.array.size != b.via.array.size) return false;
      for (std::uint32_t i = 0; i < a.via.array.size; ++i)
        if (!same_object(a.via.array.ptr[i], b.via.array.ptr[i])) return false;
      return true;
    case msgpack::type::MAP:
      if (a.via.map.size != b.via.map.size) return false;
      for (std::uint32_t i = 0; i < a.via.map.size; ++i)
        if (!same_object(a.via.map.ptr[i].key, b.via.map.ptr[i].key) ||
            !same_object(a.via.map.ptr[i].val, b.via.map.ptr[i].val))
          return false;
      return true;
    default:
      return a == b;
  }
}

std::string pack_object(const msgpack::object& o) {
  msgpack::sbuffer out;
  msgpack::pack(out, o);
  return std::string(out.data(), out.size());
}

// Loads a corpus and proves every benchmark below computes the right thing on it.
std::unique_ptr<MsgpackCorpus> prepare(const std::filesystem::path& path) {
  std::optional<std::string> text = slurp(path);
  if (!text) return nullptr;
  auto c = std::make_unique<MsgpackCorpus>();
  c->name = path.stem().string();
  try {
    c->value = transit::read(*text, transit::Encoding::json);
    c->values = count_values(c->value);
    c->doubles = count_doubles(c->value);
    c->msgpack = transit::write(c->value, transit::Encoding::msgpack);
    if (!(transit::read(c->msgpack, transit::Encoding::msgpack) == c->value))
      fail(c->name, "read(write(v, msgpack)) != v");
    std::string out;
    transit::StringSink sink(out);
    transit::WriteOptions options;
    options.float32 = true;
    transit::Writer writer(sink, transit::Encoding::msgpack, options);
    writer.write(c->value);
    writer.flush();
    c->float32 = std::move(out);
    if (!(transit::read(c->float32, transit::Encoding::msgpack) == c->value))
      fail(c->name, "read(write(v, msgpack + float32)) != v");
  } catch (const std::exception& e) {
    fail(c->name, e.what());
  }
  // The floors: msgpack-cxx unpacks Transit's bytes whole, and packs that object back to bytes
  // that unpack to the same object.
  const msgpack::object_handle handle = msgpack::unpack(c->msgpack.data(), c->msgpack.size());
  c->floor_packed = pack_object(handle.get());
  const msgpack::object_handle again = msgpack::unpack(c->floor_packed.data(), c->floor_packed.size());
  if (!same_object(handle.get(), again.get())) fail(c->name, "msgpack-cxx pack/unpack round trip differs");

  const auto percent = [](std::size_t part, std::size_t whole) { return 100.0 * static_cast<double>(part) / static_cast<double>(whole); };
  std::fprintf(stderr,
               "transit-bench: %s: %zu values (%zu doubles); %zu bytes JSON, %zu bytes Transit "
               "MessagePack (%.1f%% of JSON), %zu bytes with float32 (%zu bytes or %.2f%% "
               "smaller), %zu bytes msgpack-cxx pack\n",
               c->name.c_str(), c->values, c->doubles, text->size(), c->msgpack.size(),
               percent(c->msgpack.size(), text->size()), c->float32.size(),
               c->msgpack.size() - c->float32.size(),
               percent(c->msgpack.size() - c->float32.size(), c->msgpack.size()), c->floor_packed.size());
  return c;
}

// Each corpus once, on first use; nullptr when its file is missing.
const MsgpackCorpus* corpus(const char* file) {
  static std::map<std::string, std::unique_ptr<MsgpackCorpus>> loaded;
  auto it = loaded.find(file);
  if (it == loaded.end()) it = loaded.emplace(file, prepare(corpus_dir() / file)).first;
  return it->second.get();
}

void report(benchmark::State& state, std::size_t bytes, std::size_t values) {
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(bytes));
  state.counters["values"] = benchmark::Counter(static_cast<double>(values),
                                                benchmark::Counter::kIsIterationInvariantRate);
}

void floor_unpack(benchmark::State& state, const MsgpackCorpus& c) {
  for (auto _ : state) {
    msgpack::object_handle handle = msgpack::unpack(c.msgpack.data(), c.msgpack.size());
    benchmark::DoNotOptimize(handle.get());
  }
  report(state, c.msgpack.size(), c.values);
}

void floor_pack(benchmark::State& state, const MsgpackCorpus& c) {
  const msgpack::object_handle handle = msgpack::unpack(c.msgpack.data(), c.msgpack.size());
  for (auto _ : state) {
    // A fresh buffer each time, as transit::write returns a fresh string.
    msgpack::sbuffer out;
    msgpack::pack(out, handle.get());
    benchmark::DoNotOptimize(out.data());
  }
  report(state, c.floor_packed.size(), c.values);
}

void transit_read(benchmark::State& state, const MsgpackCorpus& c, const std::string& input) {
  for (auto _ : state) {
    transit::Value v = transit::read(input, transit::Encoding::msgpack);
    benchmark::DoNotOptimize(v);
  }
  report(state, input.size(), c.values);
}

void transit_write(benchmark::State& state, const MsgpackCorpus& c, bool float32) {
  transit::WriteOptions options;
  options.float32 = float32;
  for (auto _ : state) {
    std::string out;
    transit::StringSink sink(out);
    transit::Writer writer(sink, transit::Encoding::msgpack, options);
    writer.write(c.value);
    writer.flush();
    benchmark::DoNotOptimize(out.data());
  }
  report(state, float32 ? c.float32.size() : c.msgpack.size(), c.values);
}

template <class Fn>
void add(const std::string& group, const char* file, Fn fn) {
  const std::string stem = std::filesystem::path(file).stem().string();
  benchmark::RegisterBenchmark((group + "/" + stem).c_str(), [file, fn](benchmark::State& state) {
    const MsgpackCorpus* c = corpus(file);
    if (c == nullptr) {
      state.SkipWithError("corpus file not found (set TRANSIT_CORPUS)");
      return;
    }
    fn(state, *c);
  })->Unit(benchmark::kMicrosecond);
}

[[maybe_unused]] const bool registered = [] {
  for (const char* file : kCorpusFiles) {
    add("Floor/MsgpackUnpack", file, floor_unpack);
    add("Floor/MsgpackPack", file, floor_pack);
    add("Read/TransitMsgpack", file,
        [](benchmark::State& s, const MsgpackCorpus& c) { transit_read(s, c, c.msgpack); });
    add("Read/TransitMsgpackFloat32", file,
        [](benchmark::State& s, const MsgpackCorpus& c) { transit_read(s, c, c.float32); });
    add("Write/TransitMsgpack", file,
        [](benchmark::State& s, const MsgpackCorpus& c) { transit_write(s, c, false); });
    add("Write/TransitMsgpackFloat32", file,
        [](benchmark::State& s, const MsgpackCorpus& c) { transit_write(s, c, true); });
  }
  return true;
}();

}  // namespace
