// SPDX-License-Identifier: Apache-2.0
// Handler lookup: the transit-ruby workload. 1000 maps
//   {:ids [1 2 3 4], :translations {:can {:be {:nested "value"}}}}
// built from user classes whose map, array, keyword and string types each sit at the bottom
// of a 12-entry ancestor chain, with the handlers registered on the chain's base (as Rails'
// Hash and String carry a dozen prepended modules). Written three ways:
//   Lookup/WalkEveryTime  build the ancestor list and walk it for every value (transit-ruby)
//   Lookup/ExactFirst     exact hit, else walk (transit-ruby's fix)
//   Lookup/Memoized       exact hit, else memo hit, else walk once (ours)
// plus single lookups: Lookup/ExactHit, Lookup/MemoHit, Lookup/WalkHit, and the profiler's
// cost when it is on; and Lookup/Scale*, lookups spread over a registry of 10,000 handlers and
// 100,000 derived types (tests/support/generated_hierarchy.h), every type resolved once first.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "../tests/support/generated_hierarchy.h"
#include "transit/transit.h"

namespace {

constexpr int kChain = 12;  // entries in each ancestor chain, the type itself included
constexpr int kMaps = 1000;

struct Obj {
  virtual ~Obj() = default;
};
using ObjPtr = std::unique_ptr<Obj>;

template <int N>
struct MapL;
template <>
struct MapL<0> : Obj {
  std::vector<std::pair<ObjPtr, ObjPtr>> entries;
};
template <int N>
struct MapL : MapL<N - 1> {};

template <int N>
struct ArrL;
template <>
struct ArrL<0> : Obj {
  std::vector<std::int64_t> items;
};
template <int N>
struct ArrL : ArrL<N - 1> {};

template <int N>
struct KwL;
template <>
struct KwL<0> : Obj {
  std::string name;
};
template <int N>
struct KwL : KwL<N - 1> {};

template <int N>
struct StrL;
template <>
struct StrL<0> : Obj {
  std::string text;
};
template <int N>
struct StrL : StrL<N - 1> {};

// The concrete classes values have: the bottom of each chain.
using Map = MapL<kChain - 1>;
using Arr = ArrL<kChain - 1>;
using Kw = KwL<kChain - 1>;
using Str = StrL<kChain - 1>;

template <template <int> class Level, int... N>
void declare_chain(transit::RegistryBuilder& b, std::integer_sequence<int, N...>) {
  (b.derives<Level<N + 1>, Level<N>>(), ...);
}

transit::Registry make_registry(transit::LookupStrategy strategy) {
  transit::RegistryBuilder b;
  transit::add(b, transit::Handler<MapL<0>>("map").rep(
                      [](const MapL<0>& m) { return transit::as_map(m.entries); }));
  transit::add(b, transit::Handler<ArrL<0>>("array").rep(
                      [](const ArrL<0>& a) -> const std::vector<std::int64_t>& { return a.items; }));
  // Written as a keyword: "s" writes the rep as it is (a user handler may not take the
  // built-in tag ":" itself).
  transit::add(b, transit::Handler<KwL<0>>("s").rep(
                      [](const KwL<0>& k) { return transit::as_keyword(k.name); }));
  transit::add(b, transit::Handler<StrL<0>>("s").rep(
                      [](const StrL<0>& s) -> const std::string& { return s.text; }));
  const auto levels = std::make_integer_sequence<int, kChain - 1>();
  declare_chain<MapL>(b, levels);
  declare_chain<ArrL>(b, levels);
  declare_chain<KwL>(b, levels);
  declare_chain<StrL>(b, levels);
  return std::move(b).freeze(strategy);
}

ObjPtr kw(std::string name) {
  auto k = std::make_unique<Kw>();
  k->name = std::move(name);
  return k;
}

ObjPtr map1(ObjPtr key, ObjPtr value) {
  auto m = std::make_unique<Map>();
  m->entries.emplace_back(std::move(key), std::move(value));
  return m;
}

// {:ids [1 2 3 4], :translations {:can {:be {:nested "value"}}}}
ObjPtr seed_map() {
  auto ids = std::make_unique<Arr>();
  ids->items = {1, 2, 3, 4};
  auto value = std::make_unique<Str>();
  value->text = "value";
  auto m = std::make_unique<Map>();
  m->entries.emplace_back(kw("ids"), std::move(ids));
  m->entries.emplace_back(
      kw("translations"), map1(kw("can"), map1(kw("be"), map1(kw("nested"), std::move(value)))));
  return m;
}

const std::vector<ObjPtr>& workload() {
  static const std::vector<ObjPtr> maps = [] {
    std::vector<ObjPtr> v;
    for (int i = 0; i < kMaps; ++i) v.push_back(seed_map());
    return v;
  }();
  return maps;
}

// Lookups per write: one per object: the maps (4 per seed), the values (the array and the
// string) and the keywords (5; a key is resolved once, when the map checks that its keys are
// all scalars, and written with that handler).
constexpr int kLookupsPerSeed = 4 + 2 + 5;

// What every strategy must write, checked before anything is timed.
const std::string& expected_text() {
  static const std::string text = [] {
    const transit::Value seed = transit::Value::map(
        {{transit::kw("ids"), transit::Value::array({1, 2, 3, 4})},
         {transit::kw("translations"),
          transit::Value::map(
              {{transit::kw("can"),
                transit::Value::map({{transit::kw("be"),
                                      transit::Value::map({{transit::kw("nested"), "value"}})}})}})}});
    return transit::write(std::vector<transit::Value>(kMaps, seed), transit::Encoding::json);
  }();
  return text;
}

void write_workload(benchmark::State& state, transit::LookupStrategy strategy, bool profile) {
  const transit::Registry registry = make_registry(strategy);
  transit::LookupProfiler profiler;
  transit::WriteOptions options;
  options.registry = &registry;
  options.profiler = profile ? &profiler : nullptr;
  std::string out;
  transit::StringSink sink(out);
  transit::Writer writer(sink, transit::Encoding::json, options);
  writer.write(workload());
  writer.flush();
  if (out != expected_text()) {
    std::cerr << "transit-bench: Lookup: the workload wrote something else:\n"
              << out.substr(0, 300) << "\n";
    std::exit(EXIT_FAILURE);
  }
  for (auto _ : state) {
    out.clear();
    writer.write(workload());
    writer.flush();
    benchmark::DoNotOptimize(out.data());
  }
  const double lookups = static_cast<double>(state.iterations()) * kMaps * kLookupsPerSeed;
  state.counters["lookups"] = benchmark::Counter(lookups, benchmark::Counter::kIsRate);
  state.counters["ns_per_lookup_incl_write"] =
      benchmark::Counter(lookups, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * out.size()));
}

// `sample_every`: 0 for no profiler, else the profiler's timing interval.
void single_lookup(benchmark::State& state, transit::LookupStrategy strategy,
                   const std::type_info& type, std::uint32_t sample_every) {
  const transit::Registry registry = make_registry(strategy);
  const bool profile = sample_every != 0;
  transit::LookupProfiler profiler(profile ? sample_every : 1);
  Map object;
  const void* base = static_cast<const Obj*>(&object);
  const void* warm = base;
  if (!registry.find(type, warm, nullptr)) {
    std::cerr << "transit-bench: Lookup: no handler resolved\n";
    std::exit(EXIT_FAILURE);
  }
  for (auto _ : state) {
    const void* obj = base;
    benchmark::DoNotOptimize(registry.find(type, obj, profile ? &profiler : nullptr));
    benchmark::DoNotOptimize(obj);
  }
}

// Lookups of `count` types of the generated hierarchy in a shuffled order (so the table, about
// 8 MB, is read from all over memory), after each has been resolved once. The handlers found
// are checked before anything is timed.
void scale_lookup(benchmark::State& state, bool derived) {
  namespace gen = transit::generated;
  static const transit::Registry registry = gen::builder().freeze();
  const gen::Types& t = gen::types();
  std::vector<std::pair<const std::type_info*, int>> order;
  if (derived)
    for (int n = 0; n < gen::kDerived; ++n) order.emplace_back(t.derived[static_cast<std::size_t>(n)], n % gen::kHandlers);
  else
    for (int m = 0; m < gen::kHandlers; ++m) order.emplace_back(t.bases[static_cast<std::size_t>(m)], m);
  std::uint64_t x = 88172645463325252ULL;
  for (std::size_t i = order.size() - 1; i > 0; --i) {  // Fisher-Yates with xorshift
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    std::swap(order[i], order[x % (i + 1)]);
  }
  for (const auto& [type, m] : order) {
    const void* obj = nullptr;
    const transit::detail::ErasedHandler* h = registry.find(*type, obj, nullptr);
    if (!h || h->tag != gen::tag_of_base(m)) {
      std::cerr << "transit-bench: Lookup/Scale: wrong handler\n";
      std::exit(EXIT_FAILURE);
    }
  }
  std::size_t i = 0;
  for (auto _ : state) {
    const void* obj = nullptr;
    benchmark::DoNotOptimize(registry.find(*order[i].first, obj, nullptr));
    if (++i == order.size()) i = 0;
  }
}

using S = transit::LookupStrategy;

BENCHMARK_CAPTURE(write_workload, Lookup/WalkEveryTime, S::walk_every_time, false)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(write_workload, Lookup/ExactFirst, S::exact_first, false)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(write_workload, Lookup/Memoized, S::memoized, false)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(write_workload, Lookup/MemoizedProfiled, S::memoized, true)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(single_lookup, Lookup/ExactHit, S::memoized, typeid(MapL<0>), 0);
BENCHMARK_CAPTURE(single_lookup, Lookup/MemoHit, S::memoized, typeid(Map), 0);
BENCHMARK_CAPTURE(single_lookup, Lookup/WalkHit, S::exact_first, typeid(Map), 0);
BENCHMARK_CAPTURE(single_lookup, Lookup/WalkEveryTimeHit, S::walk_every_time, typeid(Map), 0);
// The profiler at its default (a hit timed one in ~64), and the interval's cost either side.
BENCHMARK_CAPTURE(single_lookup, Lookup/MemoHitProfiled, S::memoized, typeid(Map), 64);
BENCHMARK_CAPTURE(single_lookup, Lookup/MemoHitProfiledEvery1, S::memoized, typeid(Map), 1);
BENCHMARK_CAPTURE(single_lookup, Lookup/MemoHitProfiledEvery16, S::memoized, typeid(Map), 16);
BENCHMARK_CAPTURE(single_lookup, Lookup/MemoHitProfiledEvery256, S::memoized, typeid(Map), 256);
BENCHMARK_CAPTURE(single_lookup, Lookup/MemoHitProfiledEvery4096, S::memoized, typeid(Map), 4096);
BENCHMARK_CAPTURE(scale_lookup, Lookup/Scale10kExactHit, false);
BENCHMARK_CAPTURE(scale_lookup, Lookup/Scale100kMemoHit, true);

}  // namespace
