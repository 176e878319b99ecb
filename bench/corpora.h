// SPDX-License-Identifier: Apache-2.0
// transit-bench's corpora: the shared JSON files and deterministic generated sets, each
// prepared in every encoding and verified to round-trip before anything is timed.
#pragma once

#include <benchmark/benchmark.h>

#include <cstddef>
#include <functional>
#include <iosfwd>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "transit/encoding.h"
#include "transit/sink.h"
#include "transit/value.h"
#include "transit/writer.h"

namespace transit::bench {

/// One corpus in every form the benchmarks need.
struct Corpus {
  std::string name;          ///< "twitter", "geojson" ...
  Value value;               ///< the whole corpus as one value
  /// The same value read back from `verbose`: the tree `transit bench` writes, in an arena in
  /// document order. A generated corpus's `value` was built by Value's constructors, each
  /// container a heap node of its own placed where malloc put it, children before their
  /// parents; a write of it waits on its nodes' loads (docs/performance-log.md, "A built tree
  /// and a read tree, written, round thirty-nine"). twitter's and citm_catalog's `value` are
  /// read too, from plain JSON.
  Value read_back;
  std::size_t values = 0;    ///< nodes in the tree, map keys included: the unit of ns/value
  std::string json;          ///< Transit JSON
  std::string verbose;       ///< Transit JSON-Verbose
  std::string msgpack;       ///< Transit MessagePack
  std::string float32;       ///< Transit MessagePack with WriteOptions::float32
  std::string plain_json;    ///< what an application would write without Transit
};

/// Deterministic generators (fixed seed, fixed size; 0.5 to 2 MB of JSON each).
/// `{:ids [...], :translations {:can {:be {:nested "value"}}}}` maps with keyword keys, as in
/// the handler-lookup workload.
Value generate_keyword_maps();
/// A GeoJSON FeatureCollection of polygons: mostly lon/lat doubles.
Value generate_geojson();
/// Records of keywords, symbols, UUIDs, instants, big integers and decimals, sets, lists,
/// URIs, characters, tagged values and composite-key maps.
Value generate_extensions();
/// Records with binary payloads of 16 bytes to 4 KiB.
Value generate_bytes();

/// The generated corpora, then twitter.json and citm_catalog.json from the corpus folder
/// (environment TRANSIT_CORPUS, else ../shared/corpus; a missing file is reported and
/// skipped). Each one's encodings are checked to read back equal; a failure exits.
std::vector<std::unique_ptr<Corpus>> load_corpora();

/// Reports a check that failed before timing and exits.
[[noreturn]] void fail(const std::string& corpus, const std::string& what);

/// Nodes in a tree, map keys included.
std::size_t count_values(const Value& v);

/// Sets the bytes/s, items/s (values) and per_value (time per value) counters of a finished benchmark.
void report(benchmark::State& state, std::size_t bytes, std::size_t values);

/// One Transit writer and one output buffer serving every write of `value` (c.value or
/// c.read_back), as the floors reuse their writer's buffer: the steady state of a process that
/// writes many values. Construction writes once and checks the output is `expected` (a text
/// verified to read back equal); a difference exits.
class WriteLoop {
 public:
  WriteLoop(const Corpus& c, const Value& value, Encoding encoding, bool float32,
            const std::string& expected);
  WriteLoop(const WriteLoop&) = delete;
  WriteLoop& operator=(const WriteLoop&) = delete;
  /// Writes the value again over the last output, which the optimizer is told is used.
  void once();

 private:
  const Value& value_;
  std::string out_;
  StringSink sink_{out_};
  Writer writer_;
};

/// The Transit write benchmark for any encoding: times WriteLoop::once.
void transit_write(benchmark::State& state, const Corpus& c, const Value& value, Encoding encoding,
                   bool float32, const std::string& expected);

/// A Transit operation and its floor timed as a pair (the `Pair/*` rows): in each iteration
/// `ours` then `floor`, each by this thread's CPU time, as `transit bench` alternates its runs,
/// so that a slow spell of the machine falls on both sides alike. transit-bench's separate
/// rows time each side over its own second or so, and on a shared VM a row moved by up to 2x
/// from one run to the next while a pure compute loop moved by 4% (docs/performance-log.md,
/// "Timing the floors in pairs, round forty"); their ratios then say more about when each row
/// ran than about the library. Reports the medians as counters `ours_us` and `floor_us`, and
/// `ratio`, the first over the second, as `transit bench` computes its ratios. Both sides keep
/// the loop's state (parser, writer, buffers) from one iteration to the next, as the separate
/// rows do.
void time_pair(benchmark::State& state, const std::function<void()>& ours,
               const std::function<void()>& floor);
/// time_pair for transit::read of `text` in `encoding` against `floor`, after checking that
/// the read gives c.value.
void time_read_pair(benchmark::State& state, const Corpus& c, const std::string& text,
                    Encoding encoding, const std::function<void()>& floor);

/// Registers the JSON and MessagePack suites for one corpus, verifying the floors' results.
void register_json_benchmarks(const Corpus& c);
void register_msgpack_benchmarks(const Corpus& c);
/// The base64 kernels alone, each this CPU has (bench/codec_bench.cpp).
void register_codec_benchmarks();
/// Typed reads (read<T>) of twitter and citm_catalog into structs; nothing for other corpora.
void register_typed_benchmarks(const Corpus& c);
/// Small messages (bench/messages/) read one at a time with a Reader each, beside the floors
/// (bench/message_bench.cpp).
void register_message_benchmarks();

/// Prints the heap bytes a document read into a Value holds beside RapidJSON's Document of the
/// same text, and what a long stream of small values holds as it is read.
void print_memory_table(std::ostream& out, std::span<const std::unique_ptr<Corpus>> corpora);

}  // namespace transit::bench
