// SPDX-License-Identifier: Apache-2.0
// Value::find by key in maps of growing size: a scan up to 8 entries, then a hash index built
// on the first lookup. The time per lookup should stay flat as the map grows.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "transit/value.h"

namespace {

void map_find(benchmark::State& state) {
  const auto n = static_cast<int>(state.range(0));
  std::vector<transit::Entry> entries;
  std::vector<transit::Value> keys;
  for (int i = 0; i < n; ++i) {
    keys.push_back(transit::kw("field-" + std::to_string(i)));
    entries.emplace_back(keys.back(), transit::Value(i));
  }
  const transit::Value map = transit::Value::map(std::move(entries));
  // Keys in a scattered order, so the lookups are not a walk through the table.
  std::vector<transit::Value> order;
  for (int i = 0; i < n; ++i) order.push_back(keys[(static_cast<std::size_t>(i) * 7919) % n]);
  std::size_t at = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(map.find(order[at]));
    if (++at == order.size()) at = 0;
  }
}
BENCHMARK(map_find)->Name("Value/MapFind")->Arg(8)->Arg(16)->Arg(17)->Arg(64)->Arg(1024)->Arg(65536);

}  // namespace
