// SPDX-License-Identifier: Apache-2.0
// A user's read handler (and map or array builder) runs once per tagged value (per map, per
// array) in the input, whichever path reads it: a JSON value read from memory that turns out
// to need the cache it did not keep is walked again from its start, a value simdjson's walk
// fails is read again by RapidJSON to place the error, a typed read that fails to bind reads
// its value again for the byte offsets, MessagePack reads a value again to place an error
// found past its limit. The walks after the first replay what the handlers returned (or
// threw) in the first, so every handler call counted here happens once, and the values and
// errors (code, byte, line, column, path, message) are exactly the one-walk path's: the
// RapidJSON-only read in memory, or the byte-at-a-time read from a Source.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "backend.h"
#include "support/step_source.h"
#include "testing.h"
#include "transit/transit.h"

namespace {

using transit::Encoding;
using transit::Error;
using transit::ReadOptions;
using transit::Value;

// Read handlers for `pt` (a tagged value) and `x` (a `~x` string), a map builder, each
// counting its calls and putting the count of all calls so far in what it returns (so a
// value shows which call made it); the `throw_on`-th call of them all (0: none) throws.
struct Counting {
  std::map<std::string, int> calls;
  int total = 0;
  int throw_on = 0;
  transit::ReadHandlers handlers;

  explicit Counting(bool map_builder = false) {
    for (const char* tag : {"pt", "x"})
      handlers.add(tag, [this, tag](const Value& rep) {
        count(tag);
        return Value::array({Value::keyword(tag), rep, Value(std::int64_t{total})});
      });
    if (map_builder)
      handlers.set_map_builder([this](std::span<Value> flat) {
        count("map");
        std::vector<transit::Entry> entries{{Value::keyword("call"), Value(std::int64_t{total})}};
        for (std::size_t i = 0; i + 1 < flat.size(); i += 2) entries.emplace_back(flat[i], flat[i + 1]);
        return Value::map(std::move(entries));
      });
  }
  void count(const std::string& what) {
    ++calls[what];
    if (++total == throw_on) throw std::runtime_error("call " + std::to_string(total));
  }
  ReadOptions options() const {
    ReadOptions o;
    o.handlers = &handlers;
    return o;
  }
};

// Every value read, then the error that ended the read, with all it says.
struct Outcome {
  std::vector<std::string> values;  // as JSON-Verbose, so kinds and order all count
  std::string error;
  transit::Errc code{};
  std::size_t offset = 0, line = 0, column = 0;
  std::string path;
  friend bool operator==(const Outcome&, const Outcome&) = default;
  friend std::ostream& operator<<(std::ostream& out, const Outcome& o) {
    for (const std::string& v : o.values) out << v << " ";
    return out << (o.error.empty() ? "end" : o.error) << " byte " << o.offset << " line " << o.line
               << " column " << o.column << " path " << o.path;
  }
};

// Runs `read` (which adds each value to the outcome) and notes the error that ends it.
template <class F>
Outcome outcome_of(F read) {
  Outcome o;
  try {
    read(o);
  } catch (const Error& e) {
    o.error = e.what();
    o.code = e.code();
    o.offset = e.offset();
    o.line = e.line();
    o.column = e.column();
    o.path = e.path();
  }
  return o;
}

void add(Outcome& o, const Value& v) { o.values.push_back(transit::write(v, Encoding::json_verbose)); }

// In memory, through simdjson where the build has it, or RapidJSON alone.
Outcome read_memory(std::string_view text, const ReadOptions& options, bool use_simdjson = true) {
  return outcome_of([&](Outcome& o) {
    const auto reader = transit::detail::make_json_reader(text, options, use_simdjson);
    while (auto v = reader->next()) add(o, *v);
  });
}

// From a Source handing out `step` bytes a read (the whole text at once reads its values in
// place; one byte at a time, through RapidJSON alone).
Outcome read_source(const std::string& text, std::size_t step, const ReadOptions& options,
                    Encoding encoding = Encoding::json) {
  return outcome_of([&](Outcome& o) {
    transit::test::StepSource source(text, step);
    transit::Reader reader(source, encoding, options);
    while (auto v = reader.next()) add(o, *v);
  });
}

// In memory, through simdjson and through RapidJSON alone: each gives `want` (the outcome
// RapidJSON alone gives) and makes exactly `calls` calls.
void expect_once_in_memory(std::string_view text, const std::map<std::string, int>& calls,
                           int throw_on = 0, bool map_builder = false) {
  SCOPED_TRACE(std::string(text));
  Counting rapid(map_builder), simd(map_builder);
  rapid.throw_on = simd.throw_on = throw_on;
  const Outcome want = read_memory(text, rapid.options(), false);
  EXPECT_EQ(rapid.calls, calls) << "RapidJSON alone";
  EXPECT_EQ(read_memory(text, simd.options()), want);
  EXPECT_EQ(simd.calls, calls) << "simdjson";
}

// The lazy cache: `{"~#pt": rep}` (a tagged value JSON-Verbose writes too) leaves the cache
// off and its tag uncached; a JSON form after it (`["~#pt", rep]`, a cache code, `"^ "`) needs
// the cache, and the value is walked again from its start.
TEST(ReadHandlerOnce, LazyCacheWalkAgainRunsNoHandlerTwice) {
  // The second point's `["~#pt"` turns the cache on after the first point's handler ran.
  expect_once_in_memory(R"([{"~#pt":[1,2]},["~#pt",[3,4]]])", {{"pt", 2}});
  // A cache code for the tag the first point left uncached.
  expect_once_in_memory(R"([{"~#pt":[1,2]},{"^0":[3,4]}])", {{"pt", 2}});
  // A `~x` string's handler, then a map array.
  expect_once_in_memory(R"([{"~#pt":"~xabcd"},["^ ","~:kw","~xef"]])", {{"pt", 1}, {"x", 2}});
  // A map builder's map, before the JSON form.
  expect_once_in_memory(R"([{"abcd":1},["~#pt",[1,2]],{"abcd":2}])", {{"map", 2}, {"pt", 1}}, 0,
                        true);
  // Values in a row: a JSON-Verbose one (no walk again), one walked again, then one read
  // caching from its start (a JSON value came before it), whose cache code names the tag.
  expect_once_in_memory(
      R"({"~#pt":[1,2]} [{"~#pt":[1,2]},["~#pt",[3,4]]] [{"~#pt":[5,6]},{"^0":[7,8]}])",
      {{"pt", 5}});
}

// A handler that throws, or an error the decoder finds, after handled values: simdjson's walk
// fails and RapidJSON reads the value again to place the error.
TEST(ReadHandlerOnce, ErrorAfterHandledValuesRunsNoHandlerTwice) {
  // The third call throws: an Error(bad_rep) at the third point.
  expect_once_in_memory(R"([["~#pt",[1,2]],["~#pt",[3,4]],["~#pt",[5,6]],["~#pt",[7,8]]])",
                        {{"pt", 3}}, 3);
  // Transit errors after a handled point: an unassigned cache code, a tag with two reps, an
  // odd map array, a tag that is not first.
  expect_once_in_memory(R"([["~#pt",[1,2]],"^9"])", {{"pt", 1}});
  expect_once_in_memory(R"([["~#pt",[1,2]],["~#pt",[3],[4]]])", {{"pt", 1}});
  expect_once_in_memory(R"([["~#pt",[1,2]],["^ ","a"]])", {{"pt", 1}});
  expect_once_in_memory(R"([["~#pt",[1,2]],[1,"~#pt"]])", {{"pt", 1}});
  // A value after a good one: the good one's calls stay done.
  expect_once_in_memory(R"(["~#pt",[1,2]] [["~#pt",[3,4]],"~xa",["~#pt",[5]],"^9"])",
                        {{"pt", 3}, {"x", 1}});
  // Both: a walk again for the cache, then an error (the third call, then a bad code).
  expect_once_in_memory(R"([{"~#pt":[1,2]},["~#pt",[3,4]],["~#pt",[5,6]]])", {{"pt", 3}}, 3);
  expect_once_in_memory(R"([{"~#pt":[1,2]},["~#pt",[3,4]],"^z"])", {{"pt", 2}});
  // A map builder's map, then a failing point.
  expect_once_in_memory(R"([{"abcd":1},["~#pt",[1,2]],["~#pt",[3,4]]])", {{"map", 1}, {"pt", 2}},
                        3, true);
  // A zero RapidJSON refuses, after a handled point: simdjson's walk gives the value up at
  // its first zero double; RapidJSON fails at the zero.
  expect_once_in_memory(R"([["~#pt",[1,2]],0.0,["~#pt",[3,4]],0e400])", {{"pt", 2}});
}

// From a Source, a value whose whole text is in the chunk is read in place by simdjson; an
// error there hands it to RapidJSON. The calls and outcome are the byte-at-a-time read's.
TEST(ReadHandlerOnce, SourceInPlaceRunsNoHandlerTwice) {
  transit::detail::testing::set_json_in_place(true);
  for (const auto& [text, calls, throw_on] :
       std::vector<std::tuple<std::string, std::map<std::string, int>, int>>{
           {R"([["~#pt",[1,2]],["~#pt",[3,4]],["~#pt",[5,6]],["~#pt",[7,8]]])", {{"pt", 3}}, 3},
           {R"([["~#pt",[1,2]],"^9"])", {{"pt", 1}}, 0},
           {R"(["~#pt",[0,0]] [["~#pt",[1,2]],["~#pt",[3],[4]]])", {{"pt", 2}}, 0},
           {R"([{"~#pt":[1,2]},["~#pt",[3,4]],"^z"])", {{"pt", 2}}, 0},
           {R"([["~#pt",[1,2]],0.0,["~#pt",[3,4]],0e400])", {{"pt", 2}}, 0},
           {R"([["~#pt",[1,2]],["~#pt",[3,4]]] [["~#pt",[5,6]]])", {{"pt", 3}}, 0},
       }) {
    SCOPED_TRACE(text);
    Counting bytewise, whole;
    bytewise.throw_on = whole.throw_on = throw_on;
    const std::size_t before = transit::detail::testing::json_buffered_reads();
    const Outcome want = read_source(text, 1, bytewise.options());
    EXPECT_EQ(transit::detail::testing::json_buffered_reads(), before);
    EXPECT_EQ(bytewise.calls, calls) << "a byte at a time";
    EXPECT_EQ(read_source(text, text.size(), whole.options()), want);
    EXPECT_EQ(whole.calls, calls) << "in place";
  }
}

// A typed read: a tagged value with a Value read handler is decoded onto the tape as a Value.
// A lazy cache walks its value again; a bind that fails reads it again (RapidJSON, for the
// marks simdjson's walk does not give); a bounded tape that stops reads it again whole.
TEST(ReadHandlerOnce, TypedReadRunsNoHandlerTwice) {
  using Points = std::vector<Value>;
  using Fails = std::tuple<Value, Value, int>;
  for (const std::size_t batch : {ReadOptions::kLibraryDefault, std::size_t{0}, std::size_t{1}, std::size_t{3}}) {
    SCOPED_TRACE("batch " + std::to_string(batch));
    const auto typed = [&](const std::string& text, auto type, const ReadOptions& base,
                           bool from_source) {
      using T = decltype(type);
      ReadOptions options = base;
      options.typed_batch_tokens = batch;
      return outcome_of([&](Outcome& o) {
        const auto each = [&](transit::Reader& reader) {
          while (auto v = reader.template next<T>()) {
            if constexpr (std::is_same_v<T, Points>)
              add(o, Value::array(std::move(*v)));
            else
              add(o, Value::array({std::get<0>(*v), std::get<1>(*v), Value(std::int64_t{std::get<2>(*v)})}));
          }
        };
        if (from_source) {
          transit::test::StepSource source(text, 1);
          transit::Reader reader(source, Encoding::json, options);
          each(reader);
        } else {
          transit::Reader reader(text, Encoding::json, options);
          each(reader);
        }
      });
    };
    for (const auto& [text, calls, fails] : std::vector<std::tuple<std::string, int, bool>>{
             {R"([{"~#pt":[1,2]},["~#pt",[3,4]]])", 2, false},
             {R"([{"~#pt":[1,2]},["~#pt",[3,4]]] [["~#pt",[5,6]],{"~#pt":[7,8]}])", 4, false},
             {R"([["~#pt",[1,2]],["~#pt",[3,4]],"x"])", 2, true},
             {R"([{"~#pt":[1,2]},["~#pt",[3,4]],"x"])", 2, true},
             {R"([["~#pt",[1,2]],["~#pt",[3,4]],7] [["~#pt",[5,6]],["~#pt",[7,8]],"^0"])", 4, true},
         }) {
      SCOPED_TRACE(text);
      Counting source_counts, memory_counts;
      const Outcome want = fails ? typed(text, Fails{}, source_counts.options(), true)
                                 : typed(text, Points{}, source_counts.options(), true);
      EXPECT_EQ(source_counts.calls["pt"], calls) << "from a Source";
      EXPECT_EQ(fails ? typed(text, Fails{}, memory_counts.options(), false)
                      : typed(text, Points{}, memory_counts.options(), false),
                want);
      EXPECT_EQ(memory_counts.calls["pt"], calls) << "in memory";
    }
  }
}

// MessagePack reads a value in memory again when the value runs past max_value_bytes (to find
// the claim that did), and a failed typed read again for its marks. A Source scans a value
// whole before it decodes it, so its read decodes once: the reference.
TEST(ReadHandlerOnce, MessagePackRunsNoHandlerTwice) {
  const Value pt = Value::tagged("pt", Value::array({Value(1), Value(2)}));
  const std::string bytes = transit::write(
      Value::array({pt, pt, Value(std::string(200, 'a'))}), Encoding::msgpack);
  Counting source_counts, memory_counts;
  ReadOptions options = source_counts.options();
  options.max_value_bytes = bytes.size() - 50;
  const Outcome want = read_source(bytes, bytes.size(), options, Encoding::msgpack);
  EXPECT_EQ(want.code, transit::Errc::too_large) << want;
  EXPECT_EQ(source_counts.calls["pt"], 2);
  options.handlers = &memory_counts.handlers;
  EXPECT_EQ(outcome_of([&](Outcome& o) {
              transit::Reader reader(bytes, Encoding::msgpack, options);
              while (auto v = reader.next()) add(o, *v);
            }),
            want);
  EXPECT_EQ(memory_counts.calls["pt"], 2);

  // A typed read that fails after two points.
  const std::string typed_bytes =
      transit::write(Value::array({pt, pt, Value("x")}), Encoding::msgpack);
  Counting typed_source, typed_memory;
  const auto typed = [&](const Counting& c, bool from_source) {
    return outcome_of([&](Outcome&) {
      if (from_source) {
        transit::test::StepSource source(typed_bytes, 1);
        transit::Reader reader(source, Encoding::msgpack, c.options());
        (void)reader.next<std::tuple<Value, Value, int>>();
      } else {
        transit::Reader reader(typed_bytes, Encoding::msgpack, c.options());
        (void)reader.next<std::tuple<Value, Value, int>>();
      }
    });
  };
  const Outcome typed_want = typed(typed_source, true);
  EXPECT_EQ(typed_want.code, transit::Errc::type_mismatch) << typed_want;
  EXPECT_EQ(typed_source.calls["pt"], 2);
  EXPECT_EQ(typed(typed_memory, false), typed_want);
  EXPECT_EQ(typed_memory.calls["pt"], 2);
}

}  // namespace

namespace {

// A typed read's binder runs the read handler of a tag it reads by structure (set, list,
// cmap, a Record's tag) when it binds a Value there (Cursor::read_value); a bind tried again
// takes what the handler returned, or the failure it made, the first time: a std::variant's
// next alternative, and a bounded read that stopped and binds its value again whole.
TEST(ReadHandlerOnce, TypedBindAgainRunsNoHandlerTwice) {
  int calls = 0;
  bool fail = false;
  transit::ReadHandlers handlers;
  handlers.add("set", [&](const Value& rep) {
    ++calls;
    if (fail) throw std::runtime_error("no sets");
    return Value::array({Value::keyword("set"), rep, Value(std::int64_t{calls})});
  });
  const Value set = Value::array({Value::keyword("set"), Value::array({1, 2}), Value(std::int64_t{1})});
  using Fails = std::tuple<Value, int>;
  using Either = std::variant<Fails, Value>;
  for (const Encoding encoding : {Encoding::json, Encoding::msgpack})
    for (const std::size_t batch :
         {ReadOptions::kLibraryDefault, std::size_t{0}, std::size_t{1}, std::size_t{3}}) {
      SCOPED_TRACE("batch " + std::to_string(batch) + (encoding == Encoding::json ? " JSON" : " MessagePack"));
      std::string text = R"([["~#set",[1,2]],"x"])";
      if (encoding == Encoding::msgpack) text = transit::write(transit::read(text), Encoding::msgpack);
      ReadOptions options;
      options.handlers = &handlers;
      options.typed_batch_tokens = batch;
      fail = false;
      calls = 0;
      EXPECT_THROW((void)transit::read<Fails>(text, encoding, options), Error);
      EXPECT_EQ(calls, 1) << "a bind that fails";
      calls = 0;
      EXPECT_EQ(std::get<Value>(transit::read<Either>(text, encoding, options)),
                Value::array({set, Value("x")}));
      EXPECT_EQ(calls, 1) << "a variant's second alternative";
      // A handler that fails: the second alternative meets the same failure.
      fail = true;
      calls = 0;
      EXPECT_THROW((void)transit::read<Either>(text, encoding, options), Error);
      EXPECT_EQ(calls, 1) << "a failing handler";
    }
}

}  // namespace
