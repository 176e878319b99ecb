// SPDX-License-Identifier: Apache-2.0
// Writing a C++ object graph directly against building a Value from it and writing that:
//   Direct/ObjectGraph   Writer::write(records), std types walked at compile time
//   Direct/ViaValue      convert the records to a Value tree, then Writer::write(value)
// 5000 records of a name, an id, scores and a tag map, in every encoding. Both must write the
// same bytes, checked before timing.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <iostream>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "transit/transit.h"

namespace {

using Record = std::tuple<std::string, std::int64_t, std::vector<double>,
                          std::map<std::string, std::int64_t>>;

const std::vector<Record>& records() {
  static const std::vector<Record> data = [] {
    std::vector<Record> out;
    for (int i = 0; i < 5000; ++i) {
      std::vector<double> scores;
      for (int k = 0; k < 4 + i % 5; ++k) scores.push_back(0.5 * k + i * 0.001);
      out.emplace_back("customer-" + std::to_string(i), 1000000 + i, std::move(scores),
                       std::map<std::string, std::int64_t>{
                           {"orders", i % 17}, {"returns", i % 3}, {"region", i % 8}});
    }
    return out;
  }();
  return data;
}

transit::Value to_value(const std::vector<Record>& rs) {
  std::vector<transit::Value> items;
  items.reserve(rs.size());
  for (const auto& [name, id, scores, tags] : rs) {
    std::vector<transit::Value> s(scores.begin(), scores.end());
    std::vector<transit::Entry> t;
    for (const auto& [k, v] : tags) t.emplace_back(k, v);
    items.push_back(transit::Value::array(
        {name, id, transit::Value::array(std::move(s)), transit::Value::map(std::move(t))}));
  }
  return transit::Value::array(std::move(items));
}

template <bool kDirect>
void write_records(benchmark::State& state, transit::Encoding encoding) {
  std::string out;
  transit::StringSink sink(out);
  transit::Writer writer(sink, encoding);
  auto write_once = [&] {
    out.clear();
    if constexpr (kDirect)
      writer.write(records());
    else
      writer.write(to_value(records()));
    writer.flush();
  };
  write_once();
  if (out != transit::write(to_value(records()), encoding)) {
    std::cerr << "transit-bench: Direct: the object graph and its Value wrote different bytes\n";
    std::exit(EXIT_FAILURE);
  }
  for (auto _ : state) {
    write_once();
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * out.size()));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * records().size()));
}

void direct(benchmark::State& state, transit::Encoding e) { write_records<true>(state, e); }
void via_value(benchmark::State& state, transit::Encoding e) { write_records<false>(state, e); }

BENCHMARK_CAPTURE(direct, Direct/ObjectGraph/json, transit::Encoding::json)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(via_value, Direct/ViaValue/json, transit::Encoding::json)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(direct, Direct/ObjectGraph/msgpack, transit::Encoding::msgpack)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(via_value, Direct/ViaValue/msgpack, transit::Encoding::msgpack)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(direct, Direct/ObjectGraph/json-verbose, transit::Encoding::json_verbose)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(via_value, Direct/ViaValue/json-verbose, transit::Encoding::json_verbose)
    ->Unit(benchmark::kMicrosecond);

}  // namespace
