// SPDX-License-Identifier: Apache-2.0
// transit-cpp: small messages read one at a time, as a service reads one per request: each
// read makes its Reader (transit::read), decodes, and frees the Value, so what a Reader costs
// to make and the allocations of its first value weigh as much as the parse. Beside them the
// floors on the same bytes: RapidJSON's DOM parse (a fresh Document) and msgpack-cxx's
// `unpack`. The messages are bench/messages/*.json (Transit JSON; the MessagePack form is
// written from it). Instruction counts of the same reads:
//   valgrind --tool=callgrind --toggle-collect='*transit_read(*' transit-read-file bench/messages/order.json 1000 transit [msgpack]
//   valgrind --tool=callgrind --toggle-collect='*rapidjson_dom(*' transit-read-file bench/messages/order.json 1000 rapidjson
//   valgrind --tool=callgrind --toggle-collect='*msgpack_unpack(*' transit-read-file bench/messages/order.json 1000 msgpack-unpack msgpack

#include <msgpack.hpp>

#include <deque>
#include <fstream>
#include <iterator>
#include <string>

#include "corpora.h"
#include "rapidjson_dom.h"
#include "transit/transit.h"

namespace transit::bench {
namespace {

struct Message {
  std::string name;
  std::string json;
  std::string msgpack;
  std::size_t values = 0;
};

void read_message(benchmark::State& state, const Message& m, Encoding encoding) {
  const std::string& bytes = encoding == Encoding::msgpack ? m.msgpack : m.json;
  for (auto _ : state) {
    Value v = transit::read(bytes, encoding);
    benchmark::DoNotOptimize(v);
  }
  report(state, bytes.size(), m.values);
}

void floor_dom(benchmark::State& state, const Message& m) {
  for (auto _ : state) benchmark::DoNotOptimize(rapidjson_dom(m.json));
  report(state, m.json.size(), m.values);
}

void floor_unpack(benchmark::State& state, const Message& m) {
  for (auto _ : state) {
    msgpack::object_handle handle = msgpack::unpack(m.msgpack.data(), m.msgpack.size());
    benchmark::DoNotOptimize(handle.get());
  }
  report(state, m.msgpack.size(), m.values);
}

}  // namespace

void register_message_benchmarks() {
  static std::deque<Message> messages;  // stable addresses for the registered benchmarks
  for (const char* name : {"numbers", "event", "order"}) {
    std::ifstream in(std::string(TRANSIT_BENCH_MESSAGES) + "/" + name + ".json", std::ios::binary);
    if (!in) fail(name, "cannot open bench/messages/" + std::string(name) + ".json");
    Message& m = messages.emplace_back();
    m.name = name;
    m.json.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    while (!m.json.empty() && m.json.back() == '\n') m.json.pop_back();
    const Value v = transit::read(m.json);
    m.msgpack = transit::write(v, Encoding::msgpack);
    if (transit::read(m.msgpack, Encoding::msgpack) != v) fail(name, "the MessagePack form reads back otherwise");
    m.values = count_values(v);
    const std::string prefix = "Message/" + m.name + "/";
    benchmark::RegisterBenchmark((prefix + "Read/TransitJson").c_str(),
                                 [&m](benchmark::State& s) { read_message(s, m, Encoding::json); });
    benchmark::RegisterBenchmark((prefix + "Floor/RapidJsonDom").c_str(),
                                 [&m](benchmark::State& s) { floor_dom(s, m); });
    benchmark::RegisterBenchmark((prefix + "Read/TransitMsgpack").c_str(),
                                 [&m](benchmark::State& s) { read_message(s, m, Encoding::msgpack); });
    benchmark::RegisterBenchmark((prefix + "Floor/MsgpackUnpack").c_str(),
                                 [&m](benchmark::State& s) { floor_unpack(s, m); });
  }
}

}  // namespace transit::bench
