// SPDX-License-Identifier: Apache-2.0
// transit-cpp: MessagePack read and write benchmarks, with msgpack-cxx's own unpack (into an
// object_handle) and pack (of that object) of the same bytes as the floors.
#include <msgpack.hpp>

#include <cstdint>
#include <string>

#include "corpora.h"
#include "transit/transit.h"

namespace transit::bench {
namespace {

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

// The floors' checks: msgpack-cxx unpacks Transit's bytes, and packs that object back to bytes
// that unpack to the same object. Returns the packed size.
std::size_t check_floors(const Corpus& c) {
  const msgpack::object_handle handle = msgpack::unpack(c.msgpack.data(), c.msgpack.size());
  const std::string packed = pack_object(handle.get());
  const msgpack::object_handle again = msgpack::unpack(packed.data(), packed.size());
  if (!same_object(handle.get(), again.get())) fail(c.name, "msgpack-cxx pack/unpack round trip differs");
  return packed.size();
}

void floor_unpack(benchmark::State& state, const Corpus& c) {
  for (auto _ : state) {
    msgpack::object_handle handle = msgpack::unpack(c.msgpack.data(), c.msgpack.size());
    benchmark::DoNotOptimize(handle.get());
  }
  report(state, c.msgpack.size(), c.values);
}

void floor_pack(benchmark::State& state, const Corpus& c, std::size_t packed_size) {
  const msgpack::object_handle handle = msgpack::unpack(c.msgpack.data(), c.msgpack.size());
  // One buffer, cleared each time, as the Transit write benchmarks reuse theirs.
  msgpack::sbuffer out;
  for (auto _ : state) {
    out.clear();
    msgpack::pack(out, handle.get());
    benchmark::DoNotOptimize(out.data());
  }
  report(state, packed_size, c.values);
}

void transit_read(benchmark::State& state, const Corpus& c, const std::string& input) {
  if (!(read(input, Encoding::msgpack) == c.value)) fail(c.name, "transit::read result differs");
  for (auto _ : state) {
    Value v = read(input, Encoding::msgpack);
    benchmark::DoNotOptimize(v);
  }
  report(state, input.size(), c.values);
}

// Issue 11's MessagePack targets timed in pairs (time_pair): a read against msgpack-cxx's
// unpack of the same bytes, and a write of `value` against its pack of the unpacked object.
void pair_read(benchmark::State& state, const Corpus& c) {
  time_read_pair(state, c, c.msgpack, Encoding::msgpack, [&] {
    msgpack::object_handle handle = msgpack::unpack(c.msgpack.data(), c.msgpack.size());
    benchmark::DoNotOptimize(handle.get());
  });
}

void pair_write(benchmark::State& state, const Corpus& c, const Value& value) {
  WriteLoop ours(c, value, Encoding::msgpack, false, c.msgpack);
  const msgpack::object_handle handle = msgpack::unpack(c.msgpack.data(), c.msgpack.size());
  msgpack::sbuffer floor_out;
  time_pair(
      state, [&] { ours.once(); },
      [&] {
        floor_out.clear();
        msgpack::pack(floor_out, handle.get());
        benchmark::DoNotOptimize(floor_out.data());
      });
}

}  // namespace

void register_msgpack_benchmarks(const Corpus& c) {
  const std::size_t packed_size = check_floors(c);
  const auto add = [&](const std::string& group, auto fn) {
    benchmark::RegisterBenchmark((group + "/" + c.name).c_str(), fn)->Unit(benchmark::kMicrosecond);
  };
  add("Floor/MsgpackUnpack", [&c](benchmark::State& s) { floor_unpack(s, c); });
  add("Floor/MsgpackPack", [&c, packed_size](benchmark::State& s) { floor_pack(s, c, packed_size); });
  add("Read/TransitMsgpack", [&c](benchmark::State& s) { transit_read(s, c, c.msgpack); });
  add("Write/TransitMsgpack", [&c](benchmark::State& s) {
    transit_write(s, c, c.value, Encoding::msgpack, false, c.msgpack);
  });
  add("Write/TransitMsgpackReadBack", [&c](benchmark::State& s) {
    transit_write(s, c, c.read_back, Encoding::msgpack, false, c.msgpack);
  });
  add("Read/TransitMsgpackFloat32", [&c](benchmark::State& s) { transit_read(s, c, c.float32); });
  add("Write/TransitMsgpackFloat32", [&c](benchmark::State& s) {
    transit_write(s, c, c.value, Encoding::msgpack, true, c.float32);
  });
  add("Pair/ReadMsgpack", [&c](benchmark::State& s) { pair_read(s, c); });
  add("Pair/WriteMsgpack", [&c](benchmark::State& s) { pair_write(s, c, c.value); });
  add("Pair/WriteMsgpackReadBack", [&c](benchmark::State& s) { pair_write(s, c, c.read_back); });
}

}  // namespace transit::bench
