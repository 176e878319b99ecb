// SPDX-License-Identifier: Apache-2.0
// transit-cpp: typed reads (read<T>) of twitter's statuses and users and citm's events and
// performances, mapped to C++ structs by Records, in JSON and MessagePack. They run beside
// Floor/RapidJsonSax, Floor/RapidJsonDom, Floor/MsgpackUnpack and Read/Transit* of the very
// same bytes (json_bench.cpp, msgpack_bench.cpp).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "corpora.h"
#include "typed_corpora.h"
#include "transit/transit.h"

namespace transit::bench {
namespace {

using namespace typed;

// The typed result checked against the Value tree of the same corpus, field by field where
// the structs have one, before anything is timed.
void check(const Corpus& c, const Twitter& t) {
  const Value* statuses = c.value.find(Value("statuses"));
  if (!statuses || statuses->size() != t.statuses.size()) fail(c.name, "typed: statuses count");
  for (std::size_t i = 0; i < t.statuses.size(); ++i) {
    const Value& s = (*statuses)[i];
    const Status& st = t.statuses[i];
    const Value& user = *s.find(Value("user"));
    if (s.find(Value("id"))->as_int() != st.id || s.find(Value("text"))->as_string() != st.text ||
        user.find(Value("screen_name"))->as_string() != st.user.screen_name ||
        user.find(Value("followers_count"))->as_int() != st.user.followers_count)
      fail(c.name, "typed: status " + std::to_string(i) + " differs");
  }
}

void check(const Corpus& c, const Citm& t) {
  const Value* events = c.value.find(Value("events"));
  const Value* performances = c.value.find(Value("performances"));
  if (!events || events->size() != t.events.size() || !performances ||
      performances->size() != t.performances.size())
    fail(c.name, "typed: events or performances count");
  for (const auto& [key, e] : events->entries())
    if (t.events.at(std::string(key.as_string())).id != e.find(Value("id"))->as_int())
      fail(c.name, "typed: event " + std::string(key.as_string()) + " differs");
  for (std::size_t i = 0; i < t.performances.size(); ++i) {
    const Value& p = (*performances)[i];
    const Performance& pf = t.performances[i];
    if (p.find(Value("id"))->as_int() != pf.id ||
        p.find(Value("prices"))->size() != pf.prices.size() ||
        p.find(Value("seatCategories"))->size() != pf.seat_categories.size())
      fail(c.name, "typed: performance " + std::to_string(i) + " differs");
  }
}

template <class T>
void typed_read(benchmark::State& state, const Corpus& c, const std::string& input, Encoding e) {
  const ReadOptions options{.handlers = &handlers()};
  try {
    check(c, read<T>(input, e, options));
  } catch (const Error& err) {
    fail(c.name, std::string("typed read: ") + err.what());
  }
  for (auto _ : state) {
    T t = read<T>(input, e, options);
    benchmark::DoNotOptimize(t);
  }
  report(state, input.size(), c.values);
}

template <class T>
void register_for(const Corpus& c) {
  const auto add = [&](const std::string& group, auto fn) {
    benchmark::RegisterBenchmark((group + "/" + c.name).c_str(), fn)->Unit(benchmark::kMicrosecond);
  };
  add("Typed/TransitJson",
      [&c](benchmark::State& s) { typed_read<T>(s, c, c.json, Encoding::json); });
  add("Typed/TransitMsgpack",
      [&c](benchmark::State& s) { typed_read<T>(s, c, c.msgpack, Encoding::msgpack); });
}

}  // namespace

void register_typed_benchmarks(const Corpus& c) {
  if (c.name == "twitter") register_for<Twitter>(c);
  if (c.name == "citm_catalog") register_for<Citm>(c);
}

}  // namespace transit::bench
