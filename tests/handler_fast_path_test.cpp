// SPDX-License-Identifier: Apache-2.0
// A read with read handlers takes the fast paths (JSON's walk of simdjson's document) for
// what its handlers cannot act on: strings that are no tag and no `~X` scalar with a handler
// for X (or a default handler), cache codes. Whatever it takes, it reads as before: with
// handlers that cannot act on the input as with none (values, offsets, errors, no call), and
// with handlers that do act as the byte-at-a-time read of a Source, whose RapidJSON events
// take Decoder::string() for every string.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <vector>

#include "support/step_source.h"
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
