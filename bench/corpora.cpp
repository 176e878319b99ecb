// SPDX-License-Identifier: Apache-2.0
// transit-bench: corpus generators and loading.
#include "corpora.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string_view>
#include <utility>

#include "cpu_clock.h"
#include "sizes.h"
#include "transit/transit.h"

namespace transit::bench {
namespace {

// splitmix64: tiny, fast, and the same sequence on every platform and standard library (the
// std:: distributions are not), so every machine benchmarks the same bytes.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  /// Uniform in [lo, hi].
  std::int64_t between(std::int64_t lo, std::int64_t hi) {
    return lo + static_cast<std::int64_t>(next() % static_cast<std::uint64_t>(hi - lo + 1));
  }
  /// Uniform in [0, 1).
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  template <class T, std::size_t N>
  const T& pick(const std::array<T, N>& from) {
    return from[next() % N];
  }

 private:
  std::uint64_t state_;
};

constexpr std::array<std::string_view, 16> kSyllables = {
    "ka", "lo", "mi", "ne", "ru", "ta", "shi", "von", "der", "ba", "el", "qu", "ix", "or", "pa", "se"};

std::string word(Rng& rng, int min_syllables = 1, int max_syllables = 4) {
  std::string w;
  for (auto n = rng.between(min_syllables, max_syllables); n > 0; --n) w += rng.pick(kSyllables);
  return w;
}

std::string sentence(Rng& rng, int words) {
  std::string s = word(rng);
  for (int i = 1; i < words; ++i) s += ' ' + word(rng);
  return s;
}

// ---- keyword-keyed maps --------------------------------------------------------------------------

constexpr std::array<std::string_view, 12> kTranslationKeys = {
    "can", "be", "nested", "en", "de", "fr", "title", "label", "hint", "error", "form", "menu"};

Value translations(Rng& rng, int depth) {
  std::vector<Entry> entries;
  for (auto n = rng.between(1, 3); n > 0; --n) {
    Value key = kw(rng.pick(kTranslationKeys));
    if (depth == 0 || rng.between(0, 2) == 0)
      entries.emplace_back(std::move(key), sentence(rng, static_cast<int>(rng.between(1, 4))));
    else
      entries.emplace_back(std::move(key), translations(rng, depth - 1));
  }
  return Value::map(std::move(entries));
}

// ---- GeoJSON -------------------------------------------------------------------------------------

constexpr double kPi = 3.14159265358979323846;

Value polygon(Rng& rng, bool float_precision) {
  const double lon = rng.unit() * 340.0 - 170.0, lat = rng.unit() * 160.0 - 80.0;
  const double radius = 0.01 + rng.unit() * 0.5;
  const auto points = static_cast<int>(rng.between(16, 120));
  // Surveyed coordinates carry 7 decimals (about 1 cm); device coordinates were recorded as
  // float32, which WriteOptions::float32 can write in 5 bytes instead of 9 without loss.
  const auto coordinate = [&](double x) {
    return float_precision ? static_cast<double>(static_cast<float>(x))
                           : static_cast<double>(std::llround(x * 1e7)) / 1e7;
  };
  std::vector<Value> ring;
  for (int i = 0; i < points; ++i) {
    const double angle = 2 * kPi * i / points, r = radius * (0.7 + 0.3 * rng.unit());
    ring.push_back(Value::array({coordinate(lon + r * std::cos(angle)),
                                 coordinate(lat + r * std::sin(angle))}));
  }
  ring.push_back(ring.front());  // GeoJSON rings are closed
  return Value::array({Value::array(std::move(ring))});
}

// ---- extension types -----------------------------------------------------------------------------

constexpr std::array<std::string_view, 6> kStatuses = {"pending", "paid",     "shipped",
                                                       "returned", "cancelled", "lost"};
constexpr std::array<std::string_view, 5> kHandlers = {
    "orders/fulfil", "orders/refund", "billing.core/charge", "ship/route", "audit/log"};
constexpr std::array<std::string_view, 6> kTags = {"gift", "express", "fragile", "bulk", "intl", "vip"};

std::string digits(Rng& rng, int n) {
  std::string s(1, static_cast<char>('1' + rng.between(0, 8)));
  for (int i = 1; i < n; ++i) s += static_cast<char>('0' + rng.between(0, 9));
  return s;
}

Value extension_record(Rng& rng, std::int64_t i) {
  constexpr std::int64_t kYear2000 = 946684800000, kThirtyYears = 946080000000;
  std::vector<Value> tags, history;
  for (auto n = rng.between(1, 4); n > 0; --n) tags.push_back(kw(rng.pick(kTags)));
  for (auto n = rng.between(1, 4); n > 0; --n)
    history.push_back(n % 2 == 0 ? kw(rng.pick(kStatuses))
                                 : Value::instant(kYear2000 + rng.between(0, kThirtyYears)));
  std::vector<Entry> record = {
      {kw("id"), Value::uuid({rng.next(), rng.next()})},
      {kw("created"), Value::instant(kYear2000 + rng.between(0, kThirtyYears))},
      {kw("status"), kw(rng.pick(kStatuses))},
      {kw("handler"), sym(rng.pick(kHandlers))},
      {kw("total"), Value::big_integer(digits(rng, static_cast<int>(rng.between(20, 40))))},
      {kw("rate"), Value::big_decimal("0." + digits(rng, static_cast<int>(rng.between(2, 6))))},
      {kw("tags"), Value::set(std::move(tags))},
      {kw("history"), Value::list(std::move(history))},
      {kw("receipt"), Value::uri("https://example.com/receipts/" + std::to_string(i))},
      {kw("courier"), Value::tagged("point", Value::array({rng.unit() * 90, rng.unit() * 180}))},
      {kw("grade"), Value::character(static_cast<char32_t>('A' + rng.between(0, 5)))},
  };
  if (i % 4 == 0)  // composite keys: written as a cmap
    record.emplace_back(kw("bins"), Value::map({{Value::array({rng.between(1, 9), rng.between(1, 9)}), word(rng)},
                                                {Value::array({rng.between(1, 9), rng.between(1, 9)}), word(rng)}}));
  return Value::map(std::move(record));
}

// ---- loading -------------------------------------------------------------------------------------

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

std::string encode(const Value& v, Encoding encoding, bool float32) {
  std::string out;
  StringSink sink(out);
  WriteOptions options;
  options.float32 = float32;
  Writer writer(sink, encoding, options);
  writer.write(v);
  writer.flush();
  return out;
}

std::unique_ptr<Corpus> prepare(std::string name, Value value) {
  auto c = std::make_unique<Corpus>();
  c->name = std::move(name);
  c->value = std::move(value);
  c->values = count_values(c->value);
  try {
    c->json = encode(c->value, Encoding::json, false);
    c->verbose = encode(c->value, Encoding::json_verbose, false);
    c->msgpack = encode(c->value, Encoding::msgpack, false);
    c->float32 = encode(c->value, Encoding::msgpack, true);
    const std::pair<const char*, const std::string*> texts[] = {
        {"json", &c->json}, {"json-verbose", &c->verbose}, {"msgpack", &c->msgpack}, {"msgpack+float32", &c->float32}};
    for (const auto& [label, text] : texts) {
      const Encoding e = text == &c->json || text == &c->verbose ? Encoding::json : Encoding::msgpack;
      Value back = read(*text, e);
      if (!(back == c->value)) fail(c->name, std::string("read(write(v, ") + label + ")) != v");
      if (text == &c->verbose) c->read_back = std::move(back);
    }
  } catch (const std::exception& e) {
    fail(c->name, e.what());
  }
  c->plain_json = cli::plain_json(std::span(&c->value, 1));
  return c;
}

}  // namespace

Value generate_keyword_maps() {
  Rng rng(1);
  std::vector<Value> maps;
  for (std::int64_t i = 0; i < 5000; ++i) {
    std::vector<Value> ids;
    for (auto n = rng.between(1, 8); n > 0; --n) ids.push_back(rng.between(1, 1'000'000));
    maps.push_back(Value::map({
        {kw("id"), i},
        {kw("ids"), Value::array(std::move(ids))},
        {kw("translations"), translations(rng, 3)},
        {kw("active"), rng.between(0, 1) == 1},
    }));
  }
  return Value::array(std::move(maps));
}

Value generate_geojson() {
  Rng rng(2);
  std::vector<Value> features;
  for (std::int64_t i = 0; i < 600; ++i) {
    features.push_back(Value::map({
        {"type", "Feature"},
        {"id", i},
        {"properties", Value::map({{"name", word(rng, 2, 5)},
                                   {"population", rng.between(0, 10'000'000)},
                                   {"area_km2", rng.unit() * 1e4}})},
        {"geometry", Value::map({{"type", "Polygon"}, {"coordinates", polygon(rng, i % 2 == 1)}})},
    }));
  }
  return Value::map({{"type", "FeatureCollection"}, {"features", Value::array(std::move(features))}});
}

Value generate_extensions() {
  Rng rng(3);
  std::vector<Value> records;
  for (std::int64_t i = 0; i < 3000; ++i) records.push_back(extension_record(rng, i));
  return Value::array(std::move(records));
}

Value generate_bytes() {
  constexpr std::array<std::string_view, 4> kTypes = {"image/png", "image/jpeg", "application/pdf",
                                                      "application/octet-stream"};
  Rng rng(4);
  std::vector<Value> blobs;
  for (std::int64_t i = 0; i < 1000; ++i) {
    std::string data(static_cast<std::size_t>(rng.between(16, 2048)), '\0');
    for (char& b : data) b = static_cast<char>(rng.next());
    blobs.push_back(Value::map({{kw("name"), "blob-" + std::to_string(i)},
                                {kw("type"), kw(rng.pick(kTypes))},
                                {kw("data"), Value::bytes(data)}}));
  }
  return Value::array(std::move(blobs));
}

std::vector<std::unique_ptr<Corpus>> load_corpora() {
  std::vector<std::unique_ptr<Corpus>> corpora;
  corpora.push_back(prepare("keywords", generate_keyword_maps()));
  corpora.push_back(prepare("geojson", generate_geojson()));
  corpora.push_back(prepare("extensions", generate_extensions()));
  corpora.push_back(prepare("bytes", generate_bytes()));
  const std::filesystem::path dir = corpus_dir();
  for (const char* file : {"twitter.json", "citm_catalog.json"}) {
    const std::filesystem::path path = dir / file;
    std::optional<std::string> text = slurp(path);
    if (!text) {
      std::fprintf(stderr, "transit-bench: %s not found, skipping it (set TRANSIT_CORPUS)\n", path.c_str());
      continue;
    }
    const std::string name = path.stem().string();
    Value value;
    try {
      value = read(*text, Encoding::json);  // plain JSON is Transit JSON-Verbose
    } catch (const std::exception& e) {
      fail(name, e.what());
    }
    corpora.push_back(prepare(name, std::move(value)));
  }
  return corpora;
}

void fail(const std::string& corpus, const std::string& what) {
  std::fprintf(stderr, "transit-bench: %s: verification failed: %s\n", corpus.c_str(), what.c_str());
  std::exit(EXIT_FAILURE);
}

std::size_t count_values(const Value& v) {
  std::size_t n = 1;
  switch (v.kind()) {
    case Kind::array:
    case Kind::list:
    case Kind::set:
      for (const Value& item : v.items()) n += count_values(item);
      break;
    case Kind::map:
    case Kind::link:
      for (const Entry& e : v.entries()) n += count_values(e.first) + count_values(e.second);
      break;
    case Kind::tagged:
      n += count_values(v.rep());
      break;
    default:
      break;
  }
  return n;
}

namespace {
double median_us(std::vector<std::int64_t> ns) {
  std::sort(ns.begin(), ns.end());
  const std::size_t mid = ns.size() / 2;
  const double m = ns.size() % 2 == 1 ? static_cast<double>(ns[mid])
                                      : (static_cast<double>(ns[mid - 1]) + static_cast<double>(ns[mid])) / 2;
  return m / 1e3;
}
}  // namespace

void time_pair(benchmark::State& state, const std::function<void()>& ours,
               const std::function<void()>& floor) {
  std::vector<std::int64_t> ours_ns, floor_ns;
  for (auto _ : state) {
    std::int64_t start = thread_cpu_ns();
    ours();
    std::int64_t end = thread_cpu_ns();
    ours_ns.push_back(end - start);
    start = thread_cpu_ns();
    floor();
    end = thread_cpu_ns();
    floor_ns.push_back(end - start);
  }
  if (ours_ns.empty()) return;
  const double ours_us = median_us(std::move(ours_ns)), floor_us = median_us(std::move(floor_ns));
  state.counters["ours_us"] = ours_us;
  state.counters["floor_us"] = floor_us;
  state.counters["ratio"] = floor_us > 0 ? ours_us / floor_us : 0;
}

void time_read_pair(benchmark::State& state, const Corpus& c, const std::string& text,
                    Encoding encoding, const std::function<void()>& floor) {
  if (!(read(text, encoding) == c.value)) fail(c.name, "transit::read result differs");
  time_pair(
      state,
      [&] {
        Value v = read(text, encoding);
        benchmark::DoNotOptimize(v);
      },
      floor);
}

void report(benchmark::State& state, std::size_t bytes, std::size_t values) {
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(bytes));
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(values));
  // The values rate inverted: seconds per value, printed as e.g. "35.2ns".
  state.counters["per_value"] = benchmark::Counter(
      static_cast<double>(values),
      benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

}  // namespace transit::bench
