// SPDX-License-Identifier: Apache-2.0
// A read with read handlers takes the fast paths (JSON's walk of simdjson's document,
// MessagePack's checked_string) for what its handlers cannot act on: strings that are no tag
// and no `~X` scalar with a handler for X (or a default handler), cache codes. Whatever it
// takes, it reads as before: with handlers that cannot act on the input as with none (values,
// offsets, errors, no call), and with handlers that do act as the byte-at-a-time read of a
// JSON Source, whose RapidJSON events take Decoder::string() for every string (MessagePack:
// the same items as JSON, read from such a Source).
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <initializer_list>
#include <optional>
#include <span>
#include <ostream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "support/msgpack_items.h"
#include "support/step_source.h"
#include "testing.h"
#include "transit/transit.h"

namespace {

using transit::Encoding;
using transit::ReadHandlers;
using transit::ReadOptions;
using transit::Value;

thread_local std::size_t calls = 0;

struct Pt {
  std::int64_t x = 0;
  std::string name;
  friend bool operator==(const Pt&, const Pt&) = default;
};

struct Outcome {
  std::vector<Value> values;
  std::vector<std::size_t> offsets;
  std::string error;
  std::size_t calls = 0;
  friend bool operator==(const Outcome&, const Outcome&) = default;
};

std::string error_text() {
  try {
    throw;
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "other";
  }
}

// The values, offsets and errors a Reader gives (read on past an error, as a refusal lets
// it), and (`whole`) transit::read and read<Value> of the whole text. `step`: from a
// StepSource handing out that many bytes a read, else in memory.
Outcome outcome_of(const std::string& text, Encoding e, const ReadOptions& o, std::size_t step = 0,
                   bool whole = true) {
  Outcome out;
  const std::size_t before = calls;
  {
    std::optional<transit::test::StepSource> source;
    if (step) source.emplace(text, step);
    transit::Reader reader = step ? transit::Reader(*source, e, o) : transit::Reader(text, e, o);
    for (int i = 0; i < 8; ++i) {
      try {
        std::optional<Value> v = reader.next();
        if (!v) break;
        out.values.push_back(std::move(*v));
      } catch (...) {
        out.error += error_text() + " | ";
      }
      out.offsets.push_back(reader.offset());
    }
  }
  if (whole)
    for (int typed = 0; typed < 2; ++typed) {
      try {
        out.values.push_back(typed ? transit::read<Value>(text, e, o) : transit::read(text, e, o));
      } catch (...) {
        out.error += error_text() + " / ";
      }
    }
  out.calls = calls - before;
  return out;
}

// Cache codes of keys, keywords and tags; every `~X` scalar; escapes; tags with and without
// rules; a Record; lazy caching (no `"^ "` before a cacheable string); and errors.
const std::vector<std::string> kTexts = {
    R"([["^ ","abcd",1,"~:efgh",2],["^ ","^0",3,"^1","^1"],["^ ","^0","~:efgh"]])",
    R"([["~#point",1],["^0",2],["~#point",["~m5","~f1.5"]]])",
    R"(["~m1700000000000","~u550e8400-e29b-41d4-a716-446655440000","~n12345678901234567890",)"
    R"("~f1.50","~rhttp://x.org/a","~cx","~i42","~d2.5","~bAAEC","~zINF","~zNaN","~Qsome",)"
    R"("~~tilde","~^caret","~`tick","~:kw","~$sym","a long string of more than 13 bytes","ab"])",
    R"({"abcd":["~m1","abcd"],"efgh":{"abcd":"~fx"}} [{"abcd":1},{"abcd":2}])",
    R"(["^ ","~m1","~f2.5","~t2024-01-02T03:04:05.000Z","~u1"])",
    R"(["~#pt",["^ ","~:x",16,"~:name","abcd"]] ["~#pt",["^ ","~:x","~m7","~:name","^0"]])",
    R"(["~#set",[1,"~m2"]] ["~#list",["~:abcd","^0"]] ["~#cmap",[["~m3"],"~f4"]] ["~#unknown","~m9"])",
    R"({"~#point":1} {"~#point":1,"x":2} ["~mnope"] ["~uzz"] ["^9"] ["~#"] ["~m1",)",
    R"([[[["~m1"]]]] [1,2,3,4] "~m8" "~Qx" "^ ")",
};

struct Handlers {
  ReadHandlers inert;   // for nothing any text holds
  ReadHandlers acting;  // for `~m`, `~f`, point and pt, and every other tag
  Handlers() {
    inert.add("zzz", [](const Value& rep) {
      ++calls;
      return rep;
    });
    inert.add("q", [](const Value& rep) {
      ++calls;
      return rep;
    });
    acting.add("m", [](const Value& rep) {
      ++calls;
      return Value::array({Value("m"), rep});
    });
    acting.add("f", [](const Value& rep) {
      ++calls;
      if (rep.as_string() == "x") throw std::runtime_error("no x");
      return Value::array({Value("f"), rep});
    });
    acting.add("point", [](const Value& rep) {
      ++calls;
      return Value::array({Value("point"), rep});
    });
    acting.add(transit::Record<Pt>("pt").field(&Pt::x, "x").field(&Pt::name, "name"));
    acting.set_default([](std::string_view tag, const Value& rep) {
      ++calls;
      return Value::array({Value(std::string(tag)), rep});
    });
  }
};

std::vector<ReadOptions> limits(const ReadHandlers* h) {
  std::vector<ReadOptions> o(4, ReadOptions{.handlers = h});
  o[1].max_depth = 2;
  o[2].max_collection_length = 2;
  o[3].max_string_length = 3;
  return o;
}

TEST(HandlerFastPath, HandlersThatCannotActReadAsNone) {
  const Handlers h;
  for (const Encoding e : {Encoding::json, Encoding::json_verbose})
    for (const std::string& text : kTexts) {
      const std::vector<ReadOptions> none = limits(nullptr), inert = limits(&h.inert);
      for (std::size_t i = 0; i < none.size(); ++i) {
        SCOPED_TRACE(text + " limits " + std::to_string(i) + " encoding " + std::to_string(static_cast<int>(e)));
        const Outcome want = outcome_of(text, e, none[i]);
        EXPECT_EQ(outcome_of(text, e, inert[i]), want);
        EXPECT_EQ(want.calls, 0u);
      }
    }
}

TEST(HandlerFastPath, HandlersThatActReadInMemoryAsFromASource) {
  const Handlers h;
  for (const std::string& text : kTexts)
    for (const ReadOptions& o : limits(&h.acting)) {
      SCOPED_TRACE(text);
      EXPECT_EQ(outcome_of(text, Encoding::json, o, 0, false), outcome_of(text, Encoding::json, o, 1, false));
    }
}

// Each `~m` and `~f` the text holds is one call, the cached key and keyword none.
TEST(HandlerFastPath, ScalarHandlersRunOncePerScalar) {
  const Handlers h;
  const std::string text = R"([["^ ","abcd","~m1","~:efgh","~f2"],["^ ","^0","~m3","^1","~i4"]])";
  const Value v = transit::read(text, Encoding::json, {.handlers = &h.acting});
  EXPECT_EQ(v, transit::read(R"([["^ ","abcd",["m","1"],"~:efgh",["f","2"]],)"
                             R"(["^ ","abcd",["m","3"],"~:efgh",4]])"));
  const std::size_t before = calls;
  (void)transit::read(text, Encoding::json, {.handlers = &h.acting});
  EXPECT_EQ(calls - before, 3u);
}

}  // namespace

namespace {

// MessagePack texts, each the values of a JSON text item for item (msgpack_items_of: every
// string a str8, every integer an int64): cache codes of keys (in maps and map arrays),
// keywords and tags, short and long, ASCII or not; every `~X` scalar; tags with and without
// rules, a Record, pairs; errors.
const std::vector<std::vector<std::string>> kItems = {
    {R"([{"abcd":1,"~:efgh":2,"a key of more than 16 bytes":"~:a keyword of more than 16"},)"
     R"({"^0":3,"^1":"^1","^2":"^3"},{"^2":["^3","^0"]}])"},
    {R"([["^ ","abcd",1,"~:efgh",2],["^ ","^0",3,"^1","^1"],["^ ","^0","~:efgh"]])"},
    {R"([["~#point",1],["^0",2],["~#point",["~m5","~f1.5"]],["^0","^0"]])"},
    {R"(["~m1700000000000","~u550e8400-e29b-41d4-a716-446655440000","~n12345678901234567890",)"
     R"("~f1.50","~rhttp://x.org/a","~cx","~i42","~d2.5","~bAAEC","~zINF","~zNaN","~Qsome",)"
     R"("~~tilde","~^caret","~`tick","~:kw","~$sym","a long string of more than 13 bytes","ab"])"},
    {R"({"abcd":["~m1","abcd"],"efgh":{"abcd":"~fx"}})", R"([{"abcd":1},{"abcd":2}])"},
    {R"({"~m1":"~f2.5","~t2024-01-02T03:04:05.000Z":"~u1","~bAAEC":"~bAAEC","^1":"^0"})"},
    {R"(["~#pt",{"~:x":16,"~:name":"abcd"}])", R"(["~#pt",{"~:x":"~m7","~:name":"^0"}])"},
    {R"(["~#set",[1,"~m2"]])", R"(["~#list",["~:abcd","^0"]])", R"(["~#cmap",[["~m3"],"~f4"]])",
     R"(["~#unknown","~m9"])", R"(["~#m",5])", R"(["~#u",[1,2]])", R"([["~#m",6],["^0",7]])"},
    {R"([{"ab\u00e9":1,"abc\u00e9":2},{"^0":3},"~:\u00e9","~:\u00e9\u00e9","^1",)"
     R"("a string of more than 64 bytes, ASCII all of it, for the longer of the two tests",)"
     R"("~:a keyword of more than 64 bytes, not ASCII: \u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9",)"
     R"("^2"])"},
    {R"({"~#point":1})", R"({"~#point":1,"x":2})", R"(["~mnope"])", R"(["~uzz"])", R"(["^9"])",
     R"(["~#"])", R"(["~bA*"])", R"(["~#point",1,2])"},
    {R"([[[["~m1"]]]])", "[1,2,3,4]", R"("~m8")", R"("~Qx")", R"("^ ")"},
};

// The JSON of a kItems text: its values, one a line, with `\u00XX` as the UTF-8 of U+00XX
// (so that a JSON Source reads the same strings).
std::string json_of(const std::vector<std::string>& values) {
  std::string out;
  for (const std::string& v : values) {
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (v.compare(i, 4, "\\u00") == 0) {
        const unsigned c = static_cast<unsigned>(std::stoul(v.substr(i + 4, 2), nullptr, 16));
        if (c < 0x80) {
          out += static_cast<char>(c);
        } else {
          out += static_cast<char>(0xC0 | (c >> 6));
          out += static_cast<char>(0x80 | (c & 0x3F));
        }
        i += 5;
      } else {
        out += v[i];
      }
    }
    out += '\n';
  }
  return out;
}

// The MessagePack of a kItems text (`\u00ff\u00fe`: the invalid UTF-8 of bytes FF FE), its
// strings str8 or (`fixstr`) as writers write them.
std::string msgpack_of(const std::vector<std::string>& values, bool fixstr = false) {
  std::string out;
  for (const std::string& v : values) {
    std::string raw;
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (v.compare(i, 4, "\\u00") == 0) {
        const unsigned c = static_cast<unsigned>(std::stoul(v.substr(i + 4, 2), nullptr, 16));
        if (c >= 0xFE) {
          raw += static_cast<char>(c);
        } else {
          raw += static_cast<char>(0xC0 | (c >> 6));
          raw += static_cast<char>(0x80 | (c & 0x3F));
        }
        i += 5;
      } else {
        raw += v[i];
      }
    }
    out += transit::test::msgpack_items_of(raw, fixstr);
  }
  return out;
}

// The MessagePack texts: kItems's, each also cut short of its last byte, one not UTF-8, and
// the writer's of kItems's values (fixstr cache codes, instants and UUIDs as pairs).
std::vector<std::string> msgpack_texts() {
  std::vector<std::string> texts = {msgpack_of({R"([{"abcd":1},"\u00ff\u00fe","^0"])"})};
  for (const std::vector<std::string>& values : kItems)
    for (const bool fixstr : {false, true}) {
      texts.push_back(msgpack_of(values, fixstr));
      texts.push_back(texts.back().substr(0, texts.back().size() - 1));
    }
  // Those of kItems's values that read (the others are there for their errors).
  std::string written;
  for (const std::vector<std::string>& values : kItems)
    for (const std::string& v : values) {
      try {
        written += transit::write(transit::read(json_of({v})), Encoding::msgpack);
      } catch (const transit::Error&) {
      }
    }
  texts.push_back(written);
  return texts;
}

// Each MessagePack text read with handlers that cannot act on it, under each set of limits,
// as with none: the same values, errors and offsets, and no user call.
void expect_inert_handlers_read_as_none(const std::vector<std::string>& texts) {
  const Handlers h;
  for (const std::string& text : texts) {
    const std::vector<ReadOptions> none = limits(nullptr), inert = limits(&h.inert);
    for (std::size_t i = 0; i < none.size(); ++i) {
      SCOPED_TRACE(testing::PrintToString(text) + " limits " + std::to_string(i));
      const Outcome want = outcome_of(text, Encoding::msgpack, none[i]);
      EXPECT_EQ(outcome_of(text, Encoding::msgpack, inert[i]), want);
      EXPECT_EQ(want.calls, 0u);
    }
  }
}

TEST(HandlerFastPath, MsgpackHandlersThatCannotActReadAsNone) {
  expect_inert_handlers_read_as_none(msgpack_texts());
}

// The values, the codes of the errors and the calls of a read, for reads whose offsets and
// messages differ by encoding.
struct Reading {
  std::vector<Value> values;
  std::vector<transit::Errc> errors;
  std::size_t calls = 0;
  friend bool operator==(const Reading&, const Reading&) = default;
  friend void PrintTo(const Reading& r, std::ostream* os) {
    for (const Value& v : r.values) *os << transit::to_edn(v) << " ";
    for (const transit::Errc c : r.errors) *os << "error " << transit::code_name(c) << " ";
    *os << r.calls << " calls";
  }
};

Reading reading_of(const std::string& text, Encoding e, const ReadOptions& o, std::size_t step) {
  Reading out;
  const std::size_t before = calls;
  {
    std::optional<transit::test::StepSource> source;
    if (step) source.emplace(text, step);
    transit::Reader reader = step ? transit::Reader(*source, e, o) : transit::Reader(text, e, o);
    for (int i = 0; i < 12; ++i) {
      try {
        std::optional<Value> v = reader.next();
        if (!v) break;
        out.values.push_back(std::move(*v));
      } catch (const transit::Error& err) {
        out.errors.push_back(err.code());
      }
    }
  }
  out.calls = calls - before;
  return out;
}

// `values` in MessagePack in memory (its strings as str8, then as fixstr where they fit) read
// with `o` as the same items in JSON from a byte-at-a-time Source; the user calls that read made.
std::size_t expect_msgpack_reads_as_json_from_a_source(const std::vector<std::string>& values,
                                                       const ReadOptions& o) {
  const Reading want = reading_of(json_of(values), Encoding::json, o, 1);
  EXPECT_EQ(reading_of(msgpack_of(values), Encoding::msgpack, o, 0), want);
  EXPECT_EQ(reading_of(msgpack_of(values, true), Encoding::msgpack, o, 0), want);
  return want.calls;
}

// MessagePack in memory with handlers that act reads as the same items in JSON from a
// byte-at-a-time Source (Decoder::string() for every string): values, errors, calls. With
// no limit: MessagePack refuses a count past one before it reads the items, JSON as it
// meets them (the limits are MsgpackHandlersThatCannotActReadAsNone's).
TEST(HandlerFastPath, MsgpackHandlersThatActReadAsJsonFromASource) {
  const Handlers h;
  std::size_t acted = 0;
  for (const std::vector<std::string>& values : kItems) {
    SCOPED_TRACE(json_of(values));
    const ReadOptions o{.handlers = &h.acting};
    acted += expect_msgpack_reads_as_json_from_a_source(values, o);
  }
  EXPECT_GT(acted, 10u);
}

// Each `~m`, `~f` and `~#m` the text holds is one call, the cached keys and keywords none;
// a cached key's value is a copy that outlives the read's cache (no arena holds it).
TEST(HandlerFastPath, MsgpackScalarHandlersRunOncePerScalar) {
  const Handlers h;
  for (const bool fixstr : {false, true}) {
    const std::string text =
        msgpack_of({R"([{"abcd":"~m1","~:efgh":"~f2","a key of more than 16 bytes":["~#m",3]},)"
                    R"({"^0":"~m4","^1":"~i5","^2":"^2"}])"},
                   fixstr);
    const std::size_t before = calls;
    const Value v = transit::read(text, Encoding::msgpack, {.handlers = &h.acting});
    EXPECT_EQ(calls - before, 4u);
    const Value want = transit::read(
        R"([{"abcd":["m","1"],"~:efgh":["f","2"],"a key of more than 16 bytes":["m",3]},)"
        R"({"abcd":["m","4"],"~:efgh":5,"a key of more than 16 bytes":"a key of more than 16 bytes"}])");
    EXPECT_EQ(v, want);
    EXPECT_EQ(transit::read(transit::write(v, Encoding::msgpack), Encoding::msgpack), want);
  }
}

// A cached tag's value (`["^0", rep]`) and a tagged value's cached rep, with a tag handler:
// one call each, as for the tag written out.
TEST(HandlerFastPath, MsgpackCachedTagsUnderHandlers) {
  const Handlers h;
  for (const bool fixstr : {false, true}) {
    const std::string text = msgpack_of({R"([["~#point",["~:abcd","~:efgh"]],["^0",["^1","^2"]],)"
                                         R"(["^0",{"^1":"^2"}],["~#unknown","^1"],["^3","^2"]])"},
                                        fixstr);
    const std::size_t before = calls;
    const Value v = transit::read(text, Encoding::msgpack, {.handlers = &h.acting});
    EXPECT_EQ(calls - before, 5u);
    EXPECT_EQ(v, transit::read(R"([["point",["~:abcd","~:efgh"]],["point",["~:abcd","~:efgh"]],)"
                               R"(["point",["^ ","~:abcd","~:efgh"]],["unknown","~:abcd"],)"
                               R"(["unknown","~:efgh"]])"));
  }
}

}  // namespace

namespace {

// Handlers for `:` and `$` (extension tags, which a user may replace) act on every keyword
// and symbol, cached or not, in memory as from a Source, JSON and MessagePack alike.
TEST(HandlerFastPath, KeywordAndSymbolHandlersAct) {
  ReadHandlers h;
  h.add(":", [](const Value& rep) {
    ++calls;
    return Value::array({Value("kw"), rep});
  });
  h.add("$", [](const Value& rep) {
    ++calls;
    return Value::array({Value("sym"), rep});
  });
  const ReadOptions o{.handlers = &h};
  const std::string text = R"([["^ ","~:abcdef","~$sym","~:ab","^0"],"^0","~$a/long/symbol"])";
  const Value want = transit::read(R"([["^ ",["kw","abcdef"],["sym","sym"],["kw","ab"],["kw","abcdef"]],)"
                                   R"(["kw","abcdef"],["sym","a/long/symbol"]])");
  for (const Encoding e : {Encoding::json, Encoding::json_verbose, Encoding::msgpack}) {
    SCOPED_TRACE(static_cast<int>(e));
    const std::string in = e == Encoding::msgpack ? msgpack_of({text}, true) : text;
    const std::size_t before = calls;
    EXPECT_EQ(transit::read(in, e, o), want);
    EXPECT_EQ(calls - before, 4u);
  }
  for (const std::string& t : kTexts)
    EXPECT_EQ(outcome_of(t, Encoding::json, o, 0, false), outcome_of(t, Encoding::json, o, 1, false)) << t;
  for (const std::vector<std::string>& values : kItems)
    for (const bool fixstr : {false, true})
      EXPECT_EQ(reading_of(msgpack_of(values, fixstr), Encoding::msgpack, o, 0),
                reading_of(json_of(values), Encoding::json, o, 1))
          << json_of(values);
}

}  // namespace

namespace {

// MessagePack's pairs, `["~#m", ms]` and `["~#u", [hi, lo]]`: read whole by the loop that
// reads them so (fixstr tags) or begun by Decoder::start_pair (str8 tags), where no handler
// may act on their tag; with reps that are no instant's or UUID's, at depths and counts the
// limits refuse, in a map's keys and values, in a set and a Record's rep.
const std::vector<std::vector<std::string>> kPairItems = {
    {R"(["~#m",5])", R"(["~#u",[1,2]])", R"([["~#m",6],["~#u",[3,-4]],{"~#m":7}])"},
    {R"([["~#m",1],["~#m","x"],["~#m",[1]],["~#u",[1]],["~#u",[1,2,3]],["~#u",["ab","cd"]],["~#u",5]])"},
    {R"({"abcd":["~#m",1],"^0":["~#u",[9223372036854775807,-9223372036854775808]]})",
     R"({"~#m":["~#u",[1,2]]})"},
    {R"([[[["~#m",1]]]])", R"([["~#u",[[1],2]]])", R"([["~#u",[1,2]],["~#u",[3,4]],["~#u",[5,6]]])"},
    {R"(["~#m",1,2])", R"(["~#m"])", R"(["~#u",[1,2],3])", R"([["~#m",1],["^0",2]])"},
    {R"(["~#set",[["~#m",1],["~#u",[1,2]]]])", R"(["~#list",[["~#m",1],"^0"]])"},
};
// Tags other handlers may act on (a default handler on `unknown`, the Record `pt`).
const std::vector<std::vector<std::string>> kPairItemsTagged = {
    {R"(["~#pt",{"~:x":16,"~:name":["~#m",3]}])", R"(["~#unknown",["~#u",[1,2]]])",
     R"(["~#pt",{"~:x":["~#u",[1,2]],"~:name":"abcd"}])"},
};

// The pairs' texts: str8 and fixstr tags, each also cut short of its last byte.
std::vector<std::string> pair_texts(const std::vector<std::vector<std::string>>& items) {
  std::vector<std::string> texts;
  for (const std::vector<std::string>& values : items)
    for (const bool fixstr : {false, true}) {
      texts.push_back(msgpack_of(values, fixstr));
      texts.push_back(texts.back().substr(0, texts.back().size() - 1));
    }
  return texts;
}

TEST(HandlerFastPath, MsgpackPairsWithHandlersThatCannotActReadAsNone) {
  expect_inert_handlers_read_as_none(pair_texts(kPairItems));
}

// A pair begun by start_pair (a str8 tag, so not seen ahead) sends a reader's next values to
// the loop that reads pairs whole, with handlers that cannot act on its tag as with none.
TEST(HandlerFastPath, MsgpackPairWithHandlersThatCannotActMeetsThePairsLoop) {
  const Handlers h;
  const std::string text = msgpack_of({R"(["~#m",5])", R"([1])", R"([2])"});
  auto pairs_reads = [&](const ReadHandlers* handlers) {
    const std::size_t before = transit::detail::testing::msgpack_pairs_reads();
    transit::Reader reader(text, Encoding::msgpack, {.handlers = handlers});
    while (reader.next()) {
    }
    return transit::detail::testing::msgpack_pairs_reads() - before;
  };
  EXPECT_EQ(pairs_reads(nullptr), 2u);
  EXPECT_EQ(pairs_reads(&h.inert), 2u);
  EXPECT_EQ(pairs_reads(&h.acting), 0u);  // a handler for `m`: the general path
}

// Handlers that may act on a pair's tag (a handler for `m`, for `u`), and those that cannot
// but act elsewhere (a default handler, a Record), read MessagePack's pairs in memory as the
// same items in JSON from a byte-at-a-time Source: values, errors, calls.
TEST(HandlerFastPath, MsgpackPairsWithHandlersReadAsJsonFromASource) {
  const Handlers h;
  ReadHandlers for_m, for_u, by_default;
  for_m.add("m", [](const Value& rep) {
    ++calls;
    if (rep == Value(6)) throw std::runtime_error("no 6");
    return Value::array({Value("m"), rep});
  });
  for_u.add("u", [](const Value& rep) {
    ++calls;
    return Value::array({Value("u"), rep});
  });
  by_default.set_default([](std::string_view tag, const Value& rep) {
    ++calls;
    return Value::array({Value(std::string(tag)), rep});
  });
  by_default.add(transit::Record<Pt>("pt").field(&Pt::x, "x").field(&Pt::name, "name"));
  std::size_t acted = 0;
  for (const ReadHandlers* handlers :
       std::initializer_list<const ReadHandlers*>{&for_m, &for_u, &by_default, &h.acting, &h.inert})
    for (const auto* items : {&kPairItems, &kPairItemsTagged})
      for (const std::vector<std::string>& values : *items) {
        SCOPED_TRACE(json_of(values));
        const ReadOptions o{.handlers = handlers};
        acted += expect_msgpack_reads_as_json_from_a_source(values, o);
      }
  EXPECT_GT(acted, 20u);
}

// What a read learned of its handlers for pairs goes with its walk: readers kept for the next
// one (handlers that act, none, handlers that cannot act, in turn) and a handler for `m`
// added between two values of one reader read as the general path does.
TEST(HandlerFastPath, MsgpackPairsAskTheHandlersOfEachRead) {
  const Handlers h;
  const std::vector<std::string> values = {R"([["~#m",5],["~#u",[1,2]]])", R"(["~#m",6])",
                                           R"([["~#u",[3,4]],"~m7"])"};
  for (int round = 0; round < 2; ++round)
    for (const ReadHandlers* handlers : std::initializer_list<const ReadHandlers*>{
             &h.acting, nullptr, &h.inert, &h.acting, &h.acting, nullptr, nullptr, &h.inert})
      for (const bool fixstr : {false, true}) {
        const ReadOptions o{.handlers = handlers};
        EXPECT_EQ(reading_of(msgpack_of(values, fixstr), Encoding::msgpack, o, 0),
                  reading_of(json_of(values), Encoding::json, o, 1));
      }
  for (const bool fixstr : {false, true}) {
    ReadHandlers added;
    added.add("q", [](const Value& rep) { return rep; });
    const std::string text = msgpack_of(values, fixstr);
    transit::Reader reader(text, Encoding::msgpack, {.handlers = &added});
    EXPECT_EQ(reader.next(), Value::array({Value::instant(5), Value::uuid({1, 2})}));
    added.add("m", [](const Value& rep) { return Value::array({Value("m"), rep}); });
    EXPECT_EQ(reader.next(), Value::array({Value("m"), Value(6)}));
    EXPECT_EQ(reader.next(), Value::array({Value::uuid({3, 4}), Value::array({Value("m"), Value("7")})}));
  }
}

}  // namespace

namespace {

// MessagePack's maps, whose nodes a read with handlers reserves as a read with none does
// (Decoder::sized_map_begin_checked) but for a user's map builder, which takes the entries
// from the stack: maps and arrays, with a map builder, an array builder, both, or neither
// (a tag handler), read in memory as the same items in JSON from a byte-at-a-time Source.
TEST(HandlerFastPath, MsgpackMapsWithBuildersReadAsJsonFromASource) {
  auto build = [](std::string_view what) {
    return [what](std::span<Value> items) {
      ++calls;
      std::vector<Value> out = {Value(std::string(what))};
      for (const Value& v : items) out.push_back(v);
      return Value::array(std::move(out));
    };
  };
  ReadHandlers maps, arrays, both, tags;
  maps.set_map_builder(build("map"));
  arrays.set_array_builder(build("array"));
  both.set_map_builder(build("map")).set_array_builder(build("array"));
  tags.add("point", [](const Value& rep) {
    ++calls;
    return Value::array({Value("point"), rep});
  });
  const std::vector<std::vector<std::string>> items = {
      {R"({"abcd":1,"efgh":{"abcd":[1,2],"ijkl":{}}})", R"([{"abcd":1},{"^0":2},[],{}])"},
      {R"([["~#point",{"x":1}],["~#set",[{"y":2}]],{"~#point":{"z":3}},{"~#m":["~#u",[1,2]]}])"},
      {R"({"a":1,"b":2,"c":3})", R"([{"a":{"b":{"c":{"d":1}}}}])", R"({"a":1,"a":2})"},
  };
  std::size_t acted = 0;
  for (const ReadHandlers* handlers : {&maps, &arrays, &both, &tags})
    for (const std::vector<std::string>& values : items) {
      // With no limit, as MsgpackHandlersThatActReadAsJsonFromASource.
      SCOPED_TRACE(json_of(values));
      const ReadOptions o{.handlers = handlers};
      acted += expect_msgpack_reads_as_json_from_a_source(values, o);
    }
  EXPECT_GT(acted, 20u);
}

}  // namespace
