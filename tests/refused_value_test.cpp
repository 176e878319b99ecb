// SPDX-License-Identifier: Apache-2.0
// A value that user code refuses (a Record's bind, a read handler, the default handler, a map
// or array builder throws while next() reads it into a Value) fails that call alone: the error
// is the one the refusal always gave (code, message, byte, line, column, path), the value is
// read to its end, and the next call reads the value after it, as next<T>() does after a
// type_mismatch (docs/errors.md, "A `Reader` that has thrown"). An error of the input met in
// the rest of the refused value stays the input's: sticky, thrown by every later call. Every
// way a reader reads a value is checked: JSON and JSON-Verbose in memory (simdjson's walk and
// RapidJSON alone), from a Source in place and a byte at a time, in chunks that split the
// values; MessagePack in memory and from a Source.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "support/step_source.h"
#include "testing.h"
#include "transit/transit.h"
#include "model/value_internal.h"

namespace {

using transit::Encoding;
using transit::Errc;
using transit::Error;
using transit::ReadOptions;
using transit::Value;

struct Tick {
  std::int64_t n = 0;
};

// What a user's code may throw that is no std::exception (a service's own cancellation, say).
struct Cancel {
  std::int64_t n = 0;
};

// A Record whose field holds any Value (a tagged value a read handler decodes).
struct Box {
  Value v;
};

// A compact text of what a read gave, user objects included (a Tick reads `#tick n`).
std::string show(const Value& v) {
  switch (v.kind()) {
    case transit::Kind::null:
      return "nil";
    case transit::Kind::integer:
      return std::to_string(v.as_int());
    case transit::Kind::string:
      return "\"" + std::string(v.as_string()) + "\"";
    case transit::Kind::keyword:
      return ":" + std::string(v.as_string());
    case transit::Kind::object:
      if (const Box* b = v.get_if<Box>()) return "#box " + show(b->v);
      return "#tick " + std::to_string(v.as<Tick>().n);
    case transit::Kind::tagged:
      return "#" + std::string(v.tag()) + " " + show(v.rep());
    case transit::Kind::array:
    case transit::Kind::list:
    case transit::Kind::set: {
      std::string out = "[";
      for (const Value& item : v.items()) out += show(item) + " ";
      return out + "]";
    }
    case transit::Kind::map: {
      std::string out = "{";
      for (const transit::Entry& e : v.entries()) out += show(e.first) + " " + show(e.second) + ", ";
      return out + "}";
    }
    default:
      return transit::to_edn(v);
  }
}

std::string show(const Error& e) {
  return "error " + std::string(transit::code_name(e.code())) + " byte " + std::to_string(e.offset()) +
         " line " + std::to_string(e.line()) + " column " + std::to_string(e.column()) + " path " +
         e.path() + ": " + e.what();
}

// How a call reads a value: what it read, shown, or nullopt at the end of the input.
using ReadCall = std::function<std::optional<std::string>(transit::Reader&)>;

// A read whose result is shown by show().
template <class T>
std::optional<std::string> shown(const std::optional<T>& v) {
  if (!v) return std::nullopt;
  return show(*v);
}

std::optional<std::string> untyped(transit::Reader& reader) { return shown(reader.next()); }
// A typed read binding a Value: it tapes the value, then binds the tape.
std::optional<std::string> typed_value(transit::Reader& reader) { return shown(reader.next<Value>()); }

// What each call gave, to the end of the input or at most `calls` calls.
std::vector<std::string> calls_of(transit::Reader& reader, int calls = 8, const ReadCall& read = untyped) {
  std::vector<std::string> out;
  for (int i = 0; i < calls; ++i) {
    try {
      const std::optional<std::string> v = read(reader);
      if (!v) {
        out.push_back("end");
        break;
      }
      out.push_back(*v);
    } catch (const Error& e) {
      out.push_back(show(e));
    } catch (const Cancel& c) {
      out.push_back("cancel " + std::to_string(c.n));
    }
  }
  return out;
}

Value tick(Value n) { return Value::tagged("tick", Value::map({{transit::kw("n"), std::move(n)}})); }

// Handlers whose user code refuses some values: the Record `tick` (a field `n` that is not an
// integer), the tag `pt` (a rep "bad": a std::runtime_error), the tag `std` (a rep 0: a
// std::runtime_error; else the rep itself), the scalar tag `~x` (`"~xbad"`), the default
// handler (the tag `nope`), and when asked, a map builder (a map with the key "bad") and an
// array builder (an array whose first item is "bad"). Each counts its calls. And two that throw what the
// reader cannot place: `nested` reads its rep as JSON Transit (an integer), whose own Error
// says where in that text it failed, and `cancel` throws a Cancel of a negative rep. `short`
// throws an unplaced Error whose code is one the input's end has: `truncated`.
struct Refusing {
  transit::ReadHandlers handlers;
  int pt_calls = 0;
  int std_calls = 0;
  int default_calls = 0;
  std::size_t batch = ReadOptions::kLibraryDefault;  // typed_batch_tokens

  explicit Refusing(bool builders = false) {
    handlers.add(transit::Record<Tick>("tick").field(&Tick::n, "n"));
    handlers.add(transit::Record<Box>("box").field(&Box::v, "v"));
    handlers.add("pt", [this](const Value& rep) {
      ++pt_calls;
      if (rep.kind() == transit::Kind::string && rep.as_string() == "bad") throw std::runtime_error("bad point");
      return Value::array({Value("pt"), rep});
    });
    handlers.add("nested", [](const Value& rep) {
      return Value(transit::read<std::int64_t>(rep.as_string(), Encoding::json));
    });
    handlers.add("short", [](const Value&) -> Value {
      throw Error(Errc::truncated, transit::Location{}, "", "the user's own truncated");
    });
    handlers.add("cancel", [](const Value& rep) {
      if (rep.as_int() < 0) throw Cancel{rep.as_int()};
      return rep;
    });
    handlers.add("std", [this](const Value& rep) {
      ++std_calls;
      if (rep.kind() == transit::Kind::integer && rep.as_int() == 0) throw std::runtime_error("zero");
      return rep;
    });
    handlers.add("x", [](const Value& rep) {
      if (rep.kind() == transit::Kind::string && rep.as_string() == "bad") throw std::runtime_error("bad x");
      return rep;
    });
    handlers.set_default([this](std::string_view tag, const Value& rep) {
      ++default_calls;
      if (tag == "nope") throw Error(Errc::bad_rep, transit::Location{}, "", "no nope");
      return Value::array({Value(std::string(tag)), rep});
    });
    if (builders) {
      handlers.set_map_builder([](std::span<Value> flat) {
        std::vector<transit::Entry> entries;
        for (std::size_t i = 0; i + 1 < flat.size(); i += 2) {
          if (flat[i].kind() == transit::Kind::string && flat[i].as_string() == "bad")
            throw std::runtime_error("bad key");
          entries.emplace_back(flat[i], flat[i + 1]);
        }
        return Value::map(std::move(entries));
      });
      handlers.set_array_builder([](std::span<Value> items) {
        if (!items.empty() && items[0].kind() == transit::Kind::string && items[0].as_string() == "bad")
          throw std::runtime_error("bad array");
        return Value::array(std::vector<Value>(items.begin(), items.end()));
      });
    }
  }
  ReadOptions options() const { return {.handlers = &handlers, .typed_batch_tokens = batch}; }
};

struct InPlace {
  explicit InPlace(bool on) { transit::detail::testing::set_json_in_place(on); }
  ~InPlace() { transit::detail::testing::set_json_in_place(true); }
};

// JSON in memory read with RapidJSON alone, typed reads too.
struct NoSimdjson {
  NoSimdjson() { transit::detail::testing::set_json_simdjson(false); }
  ~NoSimdjson() { transit::detail::testing::set_json_simdjson(true); }
};

// next() and next<Value>(): each read checked with both.
const std::vector<std::pair<std::string, ReadCall>> kBothReads{{"next()", untyped}, {"next<Value>()", typed_value}};
// next() alone: for a Record's value that does not fit, which a typed read binds from the
// tape, places at the field's token, and meets only after the whole value is taped (tests
// TypedRead.ARecordThatDoesNotFit*).
const std::vector<std::pair<std::string, ReadCall>> kNextOnly{{"next()", untyped}};

// Runs `bytes` through every way, with each of `reads`, and checks each gives `want`, with
// `handlers` made afresh for each (their counts are checked by `check`, when given, after each
// way). JSON in memory is read by a typed read in batches too (typed_batch_tokens): the
// default, 0 (none: the value taped whole) and batches of 1 to 3 tokens, which end in a value.
void expect_every_way(const std::string& bytes, Encoding encoding, const std::vector<std::string>& want,
                      bool builders = false, const std::function<void(const Refusing&)>& check = {},
                      const std::vector<std::pair<std::string, ReadCall>>& reads = kBothReads) {
  const bool json = encoding != Encoding::msgpack;
  const int calls = static_cast<int>(want.size());
  std::vector<std::size_t> steps{1, 3, 7, bytes.size() / 2 + 1, bytes.size()};
  for (const auto& [name, read] : reads) {
    SCOPED_TRACE("read by " + name);
    for (const bool in_place : {true, false}) {
      if (!json && !in_place) continue;
      const InPlace scope(in_place);
      for (const std::size_t step : steps) {
        SCOPED_TRACE("from a Source, step " + std::to_string(step) + (in_place ? ", in place" : ", byte at a time"));
        Refusing r(builders);
        transit::test::StepSource source(bytes, step);
        transit::Reader reader(source, encoding, r.options());
        EXPECT_EQ(calls_of(reader, calls, read), want);
        if (check) check(r);
      }
    }
    for (const std::size_t batch : {ReadOptions::kLibraryDefault, std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{3}}) {
      if (!json && batch != ReadOptions::kLibraryDefault) continue;
      SCOPED_TRACE("in memory, typed batch " + std::to_string(batch));
      Refusing r(builders);
      r.batch = batch;
      transit::Reader reader(bytes, encoding, r.options());
      EXPECT_EQ(calls_of(reader, calls, read), want);
      if (check) check(r);
    }
    if (json) {
      SCOPED_TRACE("in memory, RapidJSON alone");
      const NoSimdjson no_simdjson;
      Refusing r(builders);
      transit::Reader reader(bytes, encoding, r.options());
      EXPECT_EQ(calls_of(reader, calls, read), want);
      if (check) check(r);
    }
  }
}

std::string stream(const std::vector<Value>& values, Encoding encoding) {
  std::string out;
  for (const Value& v : values) out += transit::write(v, encoding);
  return out;
}

constexpr Encoding kAll[] = {Encoding::json, Encoding::json_verbose, Encoding::msgpack};

// The error each encoding gives for `tick("x")` at the start of the stream at `at` (the
// value's first byte), as next() gave it before it went on past it: the Record's bind places
// it at the tagged value's end, the token after its rep.
std::string tick_error(Encoding encoding, std::size_t at) {
  std::string where;
  std::size_t off = 0, line = 0, column = 0;
  switch (encoding) {
    case Encoding::json:  // ["~#tick",["^ ","~:n","x"]]
      off = at + 26, line = 1, column = off + 1;
      break;
    case Encoding::json_verbose:  // {"~#tick":{"~:n":"x"}}
      off = at + 21, line = 1, column = off + 1;
      break;
    case Encoding::msgpack:  // 92 a6 "~#tick" 81 a3 "~:n" a1 "x": at the "x"
      off = at + 15;
      break;
  }
  const std::string place = "byte " + std::to_string(off) +
                            (encoding == Encoding::msgpack ? "" : " (line 1, column " + std::to_string(column) + ")");
  return "error type_mismatch byte " + std::to_string(off) + " line " + std::to_string(line) + " column " +
         std::to_string(column) + " path $<#tick>[:n]: transit: type_mismatch at " + place +
         " in $<#tick>[:n]: expected long, got string \"x\"";
}

// The error text show() gives for an error of `code` at `off` (JSON: line 1, column off + 1)
// in `path`, saying `detail`.
std::string error_text(Encoding encoding, std::string_view code, std::size_t off, std::string_view path,
                       std::string_view detail) {
  const bool json = encoding != Encoding::msgpack;
  const std::string at = std::to_string(off), column = std::to_string(off + 1);
  return "error " + std::string(code) + " byte " + at + (json ? " line 1 column " + column : " line 0 column 0") +
         " path " + std::string(path) + ": transit: " + std::string(code) + " at byte " + at +
         (json ? " (line 1, column " + column + ")" : "") + " in " + std::string(path) + ": " + std::string(detail);
}

// Per encoding (JSON, JSON-Verbose, MessagePack), a number.
std::size_t per(Encoding e, std::size_t json, std::size_t verbose, std::size_t msgpack) {
  return e == Encoding::json ? json : e == Encoding::json_verbose ? verbose : msgpack;
}

TEST(RefusedValue, ARecordThatDoesNotFitFailsOneCallFirstMiddleOrLast) {
  for (const Encoding e : kAll) {
    SCOPED_TRACE(std::string(transit::encoding_name(e)));
    const std::string one = transit::write(tick(1), e);
    const std::string bad = transit::write(tick("x"), e);
    expect_every_way(stream({tick("x"), tick(2), tick(3)}, e), e,
                     {tick_error(e, 0), "#tick 2", "#tick 3", "end"}, false, {}, kNextOnly);
    expect_every_way(stream({tick(1), tick("x"), tick(3)}, e), e,
                     {"#tick 1", tick_error(e, one.size()), "#tick 3", "end"}, false, {}, kNextOnly);
    expect_every_way(stream({tick(1), tick(2), tick("x")}, e), e,
                     {"#tick 1", "#tick 2", tick_error(e, 2 * one.size()), "end"}, false, {}, kNextOnly);
    expect_every_way(stream({tick("x"), tick("x")}, e), e,
                     {tick_error(e, 0), tick_error(e, bad.size()), "end"}, false, {}, kNextOnly);
  }
}

TEST(RefusedValue, TheFirstRefusalOfAValueIsItsErrorAndNoUserCodeRunsAfterIt) {
  for (const Encoding e : kAll) {
    SCOPED_TRACE(std::string(transit::encoding_name(e)));
    const Value twice = Value::array({Value::tagged("pt", Value("bad")), tick("x"), Value::tagged("pt", Value(1))});
    const std::string bytes = stream({twice, Value::tagged("pt", Value(2))}, e);
    std::vector<std::string> got;
    {
      Refusing r;
      transit::Reader reader(bytes, e, r.options());
      got = calls_of(reader);
      EXPECT_EQ(r.pt_calls, 2);  // the refused value's first point, then the next value's
    }
    // At the point's end, as the first call's error ended the read before.
    EXPECT_EQ(got, (std::vector<std::string>{
                       error_text(e, "bad_rep", per(e, 14, 14, 11), "$[0]", "read handler for ~#pt failed: bad point"),
                       "[\"pt\" 2 ]", "end"}));
    expect_every_way(bytes, e, got, false, [](const Refusing& r) { EXPECT_EQ(r.pt_calls, 2); });
  }
}

// A JSON value read caching lazily that turns out to need the cache is walked again from its
// start (Decoder::reset): the walk again meets the refusal where the first did (the record
// replays it), runs no user code after it, and places it the same.
TEST(RefusedValue, ARefusalBeforeAWalkAgainForTheCache) {
  const std::string bytes = R"([{"~#pt":"bad"},["~#pt",1],{"^0":2}] ["~#pt",3])";
  const std::vector<std::string> want{
      error_text(Encoding::json, "bad_rep", 14, "$[0]", "read handler for ~#pt failed: bad point"),
      "[\"pt\" 3 ]", "end"};
  expect_every_way(bytes, Encoding::json, want, false, [](const Refusing& r) { EXPECT_EQ(r.pt_calls, 2); });
}

// A refused call makes null in the rest of its value. A ground tag whose rep that null is
// (an instant, which no writer makes of a user's tagged value) fails its rep check, as an
// error of the input: the call throws the refusal, the calls after it that error. A ground tag
// that takes any rep (a set's items) reads on; an error of the input in a ground tag's rep of
// its own is the input's as ever.
TEST(RefusedValue, AGroundTagAroundARefusedValue) {
  const Value bad_point = Value::tagged("pt", Value("bad"));
  for (const Encoding e : kAll) {
    SCOPED_TRACE(std::string(transit::encoding_name(e)));
    // Input no writer makes: Value::tagged refuses these, so they are made as a reader makes
    // tagged values.
    for (const Value& inside : {transit::ValueAccess::tagged(Value("m"), bad_point),
                                transit::ValueAccess::tagged(Value("m"), Value("x"))}) {
      const std::string bytes =
          stream({Value::array({Value::tagged("set", Value::array({bad_point})), inside}), Value(2)}, e);
      std::vector<std::string> got;
      {
        Refusing r;
        transit::Reader reader(bytes, e, r.options());
        got = calls_of(reader, 3);
        EXPECT_EQ(r.pt_calls, 1);
      }
      ASSERT_EQ(got.size(), 3u);
      EXPECT_EQ(got[0].substr(0, 14), "error bad_rep ") << got[0];
      EXPECT_NE(got[0].find(" in $[0]<#set>[0]: read handler for ~#pt failed: bad point"), std::string::npos) << got[0];
      EXPECT_EQ(got[1].substr(0, 14), "error bad_rep ") << got[1];
      EXPECT_NE(got[1].find(" in $[1]"), std::string::npos) << got[1];
      EXPECT_EQ(got[2], got[1]);
      expect_every_way(bytes, e, got);
    }
    // The set alone reads on.
    const std::string bytes = stream({Value::tagged("set", Value::array({bad_point})), Value(2)}, e);
    Refusing r;
    transit::Reader reader(bytes, e, r.options());
    const std::vector<std::string> got = calls_of(reader, 3);
    ASSERT_EQ(got.size(), 3u);
    EXPECT_EQ(got[1], "2");
    EXPECT_EQ(got[2], "end");
  }
}

TEST(RefusedValue, ARecordInAMapInAnArray) {
  for (const Encoding e : kAll) {
    SCOPED_TRACE(std::string(transit::encoding_name(e)));
    const auto nested = [](Value n) {
      return Value::array({Value(0), Value::map({{Value("k"), tick(std::move(n))}})});
    };
    const std::string bytes = stream({nested(1), nested(Value::array({})), nested(3)}, e);
    std::vector<std::string> got;
    {
      Refusing r;
      transit::Reader reader(bytes, e, r.options());
      got = calls_of(reader);
    }
    const std::string first = transit::write(nested(1), e);
    EXPECT_EQ(got, (std::vector<std::string>{
                       "[0 {\"k\" #tick 1, } ]",
                       error_text(e, "type_mismatch", first.size() + per(e, 38, 28, 19), "$[1][\"k\"]<#tick>[:n]",
                                  "expected long, got an array"),
                       "[0 {\"k\" #tick 3, } ]", "end"}));
    expect_every_way(bytes, e, got, false, {}, kNextOnly);
  }
}

TEST(RefusedValue, DefaultHandlerAndBuildersThatThrow) {
  for (const Encoding e : kAll) {
    SCOPED_TRACE(std::string(transit::encoding_name(e)));
    const std::vector<Value> values{
        Value::array({Value(1), Value::tagged("nope", Value(1))}),
        Value::array({Value(2), Value::map({{Value("bad"), Value(1)}})}),
        Value::array({Value(3), Value::array({Value("bad")})}),
        Value::array({Value(4), Value::tagged("fine", Value(4))}),
    };
    const std::string bytes = stream(values, e);
    std::vector<std::string> got;
    {
      Refusing r(true);
      transit::Reader reader(bytes, e, r.options());
      got = calls_of(reader);
    }
    // Each at its tagged value's, map's or array's end; the default handler's own Error as
    // it threw it, a std::exception as what call_user makes of it.
    EXPECT_EQ(got, (std::vector<std::string>{
                       error_text(e, "bad_rep", per(e, 14, 14, 11), "$[1]", "no nope"),
                       error_text(e, "bad_rep", per(e, 32, 27, 19), "$[1]", "map builder failed: bad key"),
                       error_text(e, "bad_rep", per(e, 43, 38, 26), "$[1][1]", "array builder failed: bad array"),
                       "[4 [\"fine\" 4 ] ]", "end"}));
    expect_every_way(bytes, e, got, true);
  }
}

// The rest of a refused value is read as any value is: an error of the input in it is thrown
// by the next call, and every call after (it is sticky as ever); the call reading the value
// throws the refusal, which comes first in the input.
TEST(RefusedValue, AnInputErrorAfterARefusalIsThrownByTheNextCall) {
  for (const Encoding e : kAll) {
    SCOPED_TRACE(std::string(transit::encoding_name(e)));
    const std::string good = transit::write(tick(1), e);
    std::string bad = transit::write(Value::array({tick("x"), Value(2)}), e);
    // An unassigned cache code where the 2 was.
    if (e == Encoding::msgpack)
      bad.back() = '\xa2', bad += "^9";
    else
      bad.replace(bad.size() - 2, 1, "\"^9\"");
    const std::string bytes = good + bad + good;
    std::vector<std::string> got;
    {
      Refusing r;
      transit::Reader reader(bytes, e, r.options());
      got = calls_of(reader, 4);
    }
    const std::string refusal = error_text(e, "type_mismatch", per(e, 52, 42, 30), "$[0]<#tick>[:n]",
                                           "expected long, got string \"x\"");
    const std::string bad_code =
        error_text(e, "bad_cache_code", per(e, 54, 44, 30), "$[1]",
                   "cache code \"^9\" (slot 9) is not assigned: the cache holds 1 entry");
    EXPECT_EQ(got, (std::vector<std::string>{"#tick 1", refusal, bad_code, bad_code}));
    expect_every_way(bytes, e, got, false, {}, kNextOnly);
    // A value cut short after its refusal: truncated, at the end of the input.
    const std::string cut = good + bad.substr(0, bad.size() - 3);
    std::vector<std::string> cut_got;
    {
      Refusing r;
      transit::Reader reader(cut, e, r.options());
      cut_got = calls_of(reader, 4);
    }
    const std::string truncated =
        error_text(e, "truncated", per(e, 56, 46, 30), "$[1]", "input ends inside a value");
    EXPECT_EQ(cut_got, (std::vector<std::string>{"#tick 1", refusal, truncated, truncated}));
    expect_every_way(cut, e, cut_got, false, {}, kNextOnly);
  }
  // A syntax error after the refusal (JSON), a 0xc1 byte (MessagePack).
  for (const auto& [bytes, e] : std::vector<std::pair<std::string, Encoding>>{
           {R"(["~#tick",["^ ","~:n",1]] [["~#tick",["^ ","~:n","x"]],1,,] 3)", Encoding::json},
           {transit::write(tick(1), Encoding::msgpack) + "\x93" +
                transit::write(tick("x"), Encoding::msgpack) + "\xc1\x01" +
                transit::write(tick(1), Encoding::msgpack),
            Encoding::msgpack}}) {
    std::vector<std::string> got;
    {
      Refusing r;
      transit::Reader reader(bytes, e, r.options());
      got = calls_of(reader, 4);
    }
    const std::string syntax = e == Encoding::msgpack
                                   ? error_text(e, "syntax", 30, "$[1]", "0xc1 is not a MessagePack type")
                                   : error_text(e, "syntax", 57, "$[2]", "Invalid value.");
    EXPECT_EQ(got, (std::vector<std::string>{
                       "#tick 1",
                       error_text(e, "type_mismatch", per(e, 53, 0, 30), "$[0]<#tick>[:n]",
                                  "expected long, got string \"x\""),
                       syntax, syntax}));
    expect_every_way(bytes, e, got, false, {}, kNextOnly);
  }
}

// ---- typed reads: user code the decoder runs while it tapes the value ----------------------
// A typed read (next<T>(), read<T>()) tapes the value before it binds: the read handlers of
// tags no binder reads by structure (a user's tag read into a Value, the default handler, a
// scalar `~x` handler) run then, in the decoder. A refusal there fails that call alone, with
// the error next() gives (which is what a typed read gave before, when it stopped the stream
// for good), and the next call reads the value after it; in a bounded walk (typed batches),
// before any binder sees the null that stands for the refused call's result.

std::optional<std::string> typed_ints(transit::Reader& reader) {
  const std::optional<std::vector<std::int64_t>> v = reader.next<std::vector<std::int64_t>>();
  if (!v) return std::nullopt;
  return show(Value::array(std::vector<Value>(v->begin(), v->end())));
}

// A variant whose first alternative fits every value these tests read.
std::optional<std::string> typed_variant(transit::Reader& reader) {
  const auto v = reader.next<std::variant<std::vector<std::int64_t>, Value>>();
  if (!v) return std::nullopt;
  if (const auto* ints = std::get_if<0>(&*v)) return show(Value::array(std::vector<Value>(ints->begin(), ints->end())));
  return "second alternative " + show(std::get<1>(*v));
}

std::optional<std::string> typed_box(transit::Reader& reader) {
  const std::optional<Box> b = reader.next<Box>();
  if (!b) return std::nullopt;
  return "#box " + show(b->v);
}

Value std_tag(std::int64_t n) { return Value::tagged("std", Value(n)); }

// `[n 1 2 3 4 5 #std x 6]`: long enough that batches of 1 to 3 tokens tape the tagged value
// after the first batch.
Value ints_with(std::int64_t n, std::int64_t x) {
  return Value::array({Value(n), Value(1), Value(2), Value(3), Value(4), Value(5), std_tag(x), Value(6)});
}

TEST(RefusedValue, ATypedReadGoesOnPastAValueAReadHandlerRefused) {
  for (const Encoding e : kAll) {
    SCOPED_TRACE(std::string(transit::encoding_name(e)));
    const std::string bytes =
        stream({ints_with(1, 7), ints_with(2, 0), ints_with(3, 3), Value::array({Value(4)})}, e);
    std::vector<std::string> got;
    {
      Refusing r;
      transit::Reader reader(bytes, e, r.options());
      got = calls_of(reader);
      EXPECT_EQ(r.std_calls, 3);
    }
    // At the tagged value's end, as next() placed it before it went on.
    const std::size_t first = transit::write(ints_with(1, 7), e).size();
    EXPECT_EQ(got, (std::vector<std::string>{
                       "[1 1 2 3 4 5 7 6 ]",
                       error_text(e, "bad_rep", first + per(e, 23, 23, 15), "$[6]", "read handler for ~#std failed: zero"),
                       "[3 1 2 3 4 5 3 6 ]", "[4 ]", "end"}));
    expect_every_way(bytes, e, got, false, [](const Refusing& r) { EXPECT_EQ(r.std_calls, 3); },
                     {{"next()", untyped},
                      {"next<Value>()", typed_value},
                      {"next<std::vector<std::int64_t>>()", typed_ints},
                      {"next<std::variant<std::vector<std::int64_t>, Value>>()", typed_variant}});
  }
}

// The refused value first, or last; two in a row; alone. (JSON in memory is read by simdjson,
// in batches for a typed read, only while the rest of the text is one value: alone, or last
// when no value before it left the reading to RapidJSON.)
TEST(RefusedValue, ATypedReadOfRefusedValuesFirstLastOrInARow) {
  for (const Encoding e : kAll) {
    SCOPED_TRACE(std::string(transit::encoding_name(e)));
    for (const std::vector<Value>& values : {std::vector<Value>{ints_with(1, 0)},
                                             std::vector<Value>{Value::array({std_tag(0), Value(1), Value(2), Value(3)})},
                                             std::vector<Value>{ints_with(1, 0), ints_with(2, 2)},
                                             std::vector<Value>{ints_with(1, 1), ints_with(2, 0)},
                                             std::vector<Value>{ints_with(1, 0), ints_with(2, 0), ints_with(3, 3)}}) {
      const std::string bytes = stream(values, e);
      Refusing r;
      transit::Reader reader(bytes, e, r.options());
      const std::vector<std::string> got = calls_of(reader);
      ASSERT_EQ(got.size(), values.size() + 1);
      for (std::size_t i = 0; i < values.size(); ++i)
        EXPECT_TRUE(got[i].starts_with("error ") == (transit::to_edn(values[i]).find("#std 0") != std::string::npos))
            << got[i];
      EXPECT_EQ(got.back(), "end");
      expect_every_way(bytes, e, got, false, {},
                       {{"next<Value>()", typed_value},
                        {"next<std::vector<std::int64_t>>()", typed_ints},
                        {"next<std::variant<std::vector<std::int64_t>, Value>>()", typed_variant}});
    }
  }
}

// A value that would not bind either (a string where the vector wants an integer, before the
// refused tag) fails by its refusal: nothing binds a refused value, and a read in batches
// whose binder stopped first reads it again whole.
TEST(RefusedValue, ATypedReadOfAValueThatIsRefusedAndDoesNotFit) {
  for (const Encoding e : kAll) {
    SCOPED_TRACE(std::string(transit::encoding_name(e)));
    const Value bad = Value::array({Value("a"), Value(1), Value(2), Value(3), Value(4), std_tag(0), Value(5)});
    const std::string bytes = stream({bad, ints_with(2, 2)}, e);
    std::vector<std::string> got;
    {
      Refusing r;
      transit::Reader reader(bytes, e, r.options());
      got = calls_of(reader);
    }
    EXPECT_EQ(got, (std::vector<std::string>{
                       error_text(e, "bad_rep", per(e, 23, 23, 15), "$[5]", "read handler for ~#std failed: zero"),
                       "[2 1 2 3 4 5 2 6 ]", "end"}));
    expect_every_way(bytes, e, got, false, [](const Refusing& r) { EXPECT_EQ(r.std_calls, 2); },
                     {{"next<std::vector<std::int64_t>>()", typed_ints}});
  }
}

// A Record's field holding a tagged value that a read handler decodes: next() binds the
// Record's rep after it is read (Decoder::bind_record_rep), a typed read tapes the Record by
// structure and the decoder decodes the tag in its rep.
TEST(RefusedValue, ATypedReadOfARecordHoldingARefusedValue) {
  for (const Encoding e : kAll) {
    SCOPED_TRACE(std::string(transit::encoding_name(e)));
    const auto box = [](Value v) { return Value::tagged("box", Value::map({{transit::kw("v"), std::move(v)}})); };
    const std::string bytes = stream({box(std_tag(1)), box(std_tag(0)), box(std_tag(3))}, e);
    std::vector<std::string> got;
    {
      Refusing r;
      transit::Reader reader(bytes, e, r.options());
      got = calls_of(reader, 8, typed_box);
    }
    ASSERT_EQ(got.size(), 4u);
    EXPECT_EQ(got[0], "#box 1");
    EXPECT_TRUE(got[1].starts_with("error bad_rep ")) << got[1];
    EXPECT_NE(got[1].find(" in $<#box>[:v]: read handler for ~#std failed: zero"), std::string::npos) << got[1];
    EXPECT_EQ(got[2], "#box 3");
    EXPECT_EQ(got[3], "end");
    expect_every_way(bytes, e, got, false, {}, {{"next<Box>()", typed_box}, {"next<Value>()", typed_value}});
    // Alone, so that JSON in memory is read by simdjson in batches.
    const std::string alone = transit::write(box(std_tag(0)), e);
    Refusing r;
    transit::Reader reader(alone, e, r.options());
    const std::vector<std::string> alone_got = calls_of(reader, 8, typed_box);
    ASSERT_EQ(alone_got.size(), 2u);
    EXPECT_EQ(alone_got[0].substr(alone_got[0].find(" in ")), got[1].substr(got[1].find(" in "))) << alone_got[0];
    EXPECT_EQ(alone_got[1], "end");
    expect_every_way(alone, e, alone_got, false, {}, {{"next<Box>()", typed_box}, {"next<Value>()", typed_value}});
  }
}

// A scalar string of a one-character tag (`"~xbad"`, which no writer makes from a Value): its
// handler runs as the decoder reads the string.
TEST(RefusedValue, ATypedReadOfAScalarTheHandlerRefused) {
  for (const Encoding e : kAll) {
    SCOPED_TRACE(std::string(transit::encoding_name(e)));
    // Written as plain strings of five characters, then made scalars of tag x (the scalar
    // "  a" is "~x  a").
    std::string bytes = stream({Value::array({Value(1), Value("QQQQa")}), Value::array({Value(2), Value("QQQQb")}),
                                Value::array({Value(3), Value("QQQQc")})},
                               e);
    for (const auto& [from, to] : {std::pair<std::string_view, std::string_view>{"QQQQa", "~x  a"},
                                   {"QQQQb", "~xbad"}, {"QQQQc", "~x  c"}})
      bytes.replace(bytes.find(from), from.size(), to);
    std::vector<std::string> got;
    {
      Refusing r;
      transit::Reader reader(bytes, e, r.options());
      got = calls_of(reader);
    }
    const std::size_t first = transit::write(Value::array({Value(1), Value("QQQQa")}), e).size();
    EXPECT_EQ(got, (std::vector<std::string>{
                       "[1 \"  a\" ]",
                       error_text(e, "bad_rep", first + per(e, 3, 3, 2), "$[1]", "read handler for ~x failed: bad x"),
                       "[3 \"  c\" ]", "end"}));
    expect_every_way(bytes, e, got);
  }
}

// As AnInputErrorAfterARefusalIsThrownByTheNextCall, with the refusal a read handler's that
// the decoder runs, so that a typed read meets it while it tapes: the refusal fails the call,
// the input's error every call after it (sticky), also when a bounded walk taped the refusal
// in a batch before the error's.
TEST(RefusedValue, AnInputErrorAfterARefusalInATypedRead) {
  for (const Encoding e : kAll) {
    SCOPED_TRACE(std::string(transit::encoding_name(e)));
    const std::string good = transit::write(ints_with(1, 1), e);
    std::string bad = transit::write(Value::array({Value(1), Value(2), Value(3), std_tag(0), Value(2)}), e);
    // An unassigned cache code where the last 2 was.
    if (e == Encoding::msgpack)
      bad.back() = '\xa2', bad += "^9";
    else
      bad.replace(bad.size() - 2, 1, "\"^9\"");
    const std::string cut = good + bad.substr(0, bad.size() - 3);
    for (const std::string& bytes : {good + bad + good, cut, bad}) {
      const bool alone = bytes == bad;
      std::vector<std::string> got;
      {
        Refusing r;
        transit::Reader reader(bytes, e, r.options());
        got = calls_of(reader, alone ? 3 : 4);
      }
      if (alone) got.insert(got.begin(), "[1 1 2 3 4 5 1 6 ]");  // as if `good` came first
      ASSERT_EQ(got.size(), 4u);
      EXPECT_EQ(got[0], "[1 1 2 3 4 5 1 6 ]");
      EXPECT_EQ(got[1], error_text(e, "bad_rep", (alone ? 0 : good.size()) + per(e, 17, 17, 12), "$[3]",
                                   "read handler for ~#std failed: zero"));
      EXPECT_TRUE(got[2].starts_with(bytes == cut ? "error truncated " : "error bad_cache_code ")) << got[2];
      EXPECT_EQ(got[3], got[2]);
      if (alone) got.erase(got.begin());
      expect_every_way(bytes, e, got, false, {}, {{"next<Value>()", typed_value}});
    }
  }
}

// read<T>() of one refused value throws what read() throws.
TEST(RefusedValue, ReadOfOneRefusedValueTyped) {
  for (const Encoding e : kAll) {
    SCOPED_TRACE(std::string(transit::encoding_name(e)));
    const std::string bytes = transit::write(ints_with(2, 0), e);
    Refusing r;
    std::string untyped_error, value_error, ints_error;
    try {
      (void)transit::read(bytes, e, r.options());
    } catch (const Error& err) {
      untyped_error = show(err);
    }
    try {
      (void)transit::read<Value>(bytes, e, r.options());
    } catch (const Error& err) {
      value_error = show(err);
    }
    try {
      (void)transit::read<std::vector<std::int64_t>>(bytes, e, r.options());
    } catch (const Error& err) {
      ints_error = show(err);
    }
    EXPECT_EQ(untyped_error,
              error_text(e, "bad_rep", per(e, 23, 23, 15), "$[6]", "read handler for ~#std failed: zero"));
    EXPECT_EQ(value_error, untyped_error);
    EXPECT_EQ(ints_error, untyped_error);
    EXPECT_EQ(transit::read<std::vector<std::int64_t>>(transit::write(ints_with(2, 5), e), e, r.options()),
              (std::vector<std::int64_t>{2, 1, 2, 3, 4, 5, 5, 6}));
  }
}

// A typed read that a refusal failed leaves the reader as next() does: next() reads on.
TEST(RefusedValue, NextAfterATypedReadThatWasRefused) {
  for (const Encoding e : kAll) {
    SCOPED_TRACE(std::string(transit::encoding_name(e)));
    const std::string bytes = stream({ints_with(1, 0), ints_with(2, 2), ints_with(3, 0), ints_with(4, 4)}, e);
    for (const bool from_source : {false, true}) {
      SCOPED_TRACE(from_source ? "from a Source" : "in memory");
      Refusing r;
      transit::test::StepSource source(bytes, 5);
      const auto made = from_source ? std::make_unique<transit::Reader>(source, e, r.options())
                                    : std::make_unique<transit::Reader>(bytes, e, r.options());
      transit::Reader& reader = *made;
      EXPECT_THROW((void)reader.next<Value>(), Error);
      EXPECT_EQ(show(*reader.next()), "[2 1 2 3 4 5 2 6 ]");
      EXPECT_THROW((void)reader.next(), Error);
      EXPECT_EQ(show(*reader.next<Value>()), "[4 1 2 3 4 5 4 6 ]");
      EXPECT_FALSE(reader.next().has_value());
    }
  }
}

}  // namespace

// User code that throws an Error saying where already (a read in its code), or what is no
// std::exception, refuses its value as any other refusal does: the call throws what the code
// threw, as it threw it, and the next call reads the value after it. Before, MessagePack read
// the same value again on every call (a loop that skips bad values never ended), and JSON met
// the rest of the value as a syntax error, for good.
TEST(RefusedValue, WhatUserCodeThrowsThatTheReaderCannotPlace) {
  std::string nested_error;
  try {
    (void)transit::read<std::int64_t>("[\"x\"]", Encoding::json);
  } catch (const Error& e) {
    nested_error = show(e);
  }
  ASSERT_FALSE(nested_error.empty());
  for (const Encoding e : kAll) {
    SCOPED_TRACE(std::string(transit::encoding_name(e)));
    const auto item = [](int n, Value v) { return Value::array({Value(n), std::move(v)}); };
    const std::string bytes =
        stream({item(1, Value::tagged("nested", Value("7"))), item(2, Value::tagged("nested", Value("[\"x\"]"))),
                item(3, Value::tagged("cancel", Value(-5))),
                item(4, Value::array({Value::tagged("cancel", Value(-6)), Value::tagged("pt", Value("bad"))})),
                item(5, Value::tagged("cancel", Value(5))), item(6, Value::tagged("short", Value(6))), Value(7)},
               e);
    // The refusal of `short`, placed where the call ran as any refusal (not at the input's end).
    const std::size_t sixth = bytes.size() - transit::write(Value(7), e).size() -
                              transit::write(item(6, Value::tagged("short", Value(6))), e).size();
    const std::string cut =
        error_text(e, "truncated", sixth + per(e, 15, 15, 12), "$[1]", "the user's own truncated");
    const std::vector<std::string> want{"[1 7 ]", nested_error, "cancel -5", "cancel -6", "[5 5 ]", cut, "7", "end"};
    expect_every_way(bytes, e, want, false, [](const Refusing& r) { EXPECT_EQ(r.pt_calls, 0); });
    // Alone in its text, where a bounded typed read in memory walks simdjson's document of the
    // whole text: the next call is at the end (it read the value again, and threw again).
    expect_every_way(stream({item(3, Value::tagged("cancel", Value(-5)))}, e), e, {"cancel -5", "end"});
  }
}
