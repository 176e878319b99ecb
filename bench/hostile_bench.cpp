// SPDX-License-Identifier: Apache-2.0
// Hostile inputs that must cost time linear in their size (issue 12, items 1 and 2):
//   Hostile/IntSet/random/N       read a JSON set of N random integers (the baseline)
//   Hostile/IntSet/flood/N        the same for N integers that all shared one bucket under the
//                                 old unkeyed hash (tests/support/hash_flood.h)
//   Hostile/SetOfSets/flood/N     N sets of 9 integers whose old set hashes were all equal
//   Hostile/CachedKeyword/read/N  a set of a 1 MiB keyword and N "^1" references to it
//   Hostile/CachedKeyword/write/N the array of N+1 references to one 1 MiB keyword, written
// Run N, 10N and 100N to see the growth: items per second should stay flat.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "support/hash_flood.h"
#include "transit/transit.h"

namespace {

void check(bool ok, const char* what) {
  if (ok) return;
  std::cerr << "transit-bench: Hostile: " << what << "\n";
  std::exit(EXIT_FAILURE);
}

std::vector<std::int64_t> random_ints(std::size_t n) {
  std::mt19937_64 rng(42);
  std::vector<std::int64_t> out(n);
  for (auto& i : out) i = static_cast<std::int64_t>(rng());
  return out;
}

void read_set(benchmark::State& state, const std::string& json, std::size_t expected) {
  check(transit::read(json).size() == expected, "a set lost or kept duplicates");
  for (auto _ : state) benchmark::DoNotOptimize(transit::read(json));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * json.size()));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * expected));
}

void int_set_random(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  read_set(state, transit::test::json_int_set(random_ints(n)), n);
}

void int_set_flood(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  read_set(state, transit::test::json_int_set(transit::test::colliding_ints(n)), n);
}

void set_of_sets_flood(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  std::string json = "[\"~#set\",[";
  const auto sets = transit::test::colliding_int_sets(n);
  for (std::size_t i = 0; i < sets.size(); ++i) {
    if (i) json += ',';
    json += transit::test::json_int_set(sets[i]);
  }
  json += "]]";
  read_set(state, json, n);
}

std::string long_keyword() { return std::string(std::size_t{1} << 20, 'k'); }

void cached_keyword_read(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  // "~#set" takes ^0 and the keyword ^1: the set keeps one element.
  std::string json = "[\"~#set\",[\"~:" + long_keyword() + "\"";
  for (std::size_t i = 0; i < n; ++i) json += ",\"^1\"";
  json += "]]";
  check(transit::read(json).size() == 1, "a set of one keyword");
  for (auto _ : state) benchmark::DoNotOptimize(transit::read(json));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * n));
}

void cached_keyword_write(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  std::string json = "[\"~:" + long_keyword() + "\"";
  for (std::size_t i = 0; i < n; ++i) json += ",\"^0\"";
  json += "]";
  const transit::Value v = transit::read(json);
  check(transit::write(v) == json, "the references write back as references");
  for (auto _ : state) benchmark::DoNotOptimize(transit::write(v));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * n));
}

BENCHMARK(int_set_random)->Name("Hostile/IntSet/random")->Arg(1000)->Arg(10000)->Arg(100000)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(int_set_flood)->Name("Hostile/IntSet/flood")->Arg(1000)->Arg(10000)->Arg(100000)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(set_of_sets_flood)->Name("Hostile/SetOfSets/flood")->Arg(100)->Arg(1000)->Arg(10000)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(cached_keyword_read)->Name("Hostile/CachedKeyword/read")->Arg(10)->Arg(100)->Arg(1000)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(cached_keyword_write)->Name("Hostile/CachedKeyword/write")->Arg(10)->Arg(100)->Arg(1000)
    ->Unit(benchmark::kMicrosecond);

}  // namespace
