// SPDX-License-Identifier: Apache-2.0
// A reader kept for the next (Reader::Impl::retire) whatever read handlers its reads ran: a
// Reader with handlers takes the reader kept on its thread and leaves its own, as one without
// does, and reads as a reader made new would (values, errors with offsets and paths, typed
// reads, handlers and builders called as often, refusals), in every encoding. A kept reader
// holds nothing of the user's: no value a handler made, no handlers pointer (a ReadHandlers
// destroyed and another made at its address read as themselves).
#include <gtest/gtest.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "support/refusals.h"
#include "testing.h"
#include "transit/transit.h"

namespace {

using transit::Encoding;
using transit::Error;
using transit::ReadHandlers;
using transit::ReadOptions;
using transit::Value;
namespace hooks = transit::detail::testing;

// An encoding with its kept-reader hooks.
struct Kept {
  Encoding encoding;
  void (*set_reuse)(bool) noexcept;
  bool (*kept)() noexcept;
};
const Kept kEncodings[] = {
    {Encoding::json, hooks::set_json_reader_reuse, hooks::json_reader_kept},
    {Encoding::json_verbose, hooks::set_json_reader_reuse, hooks::json_reader_kept},
    {Encoding::msgpack, hooks::set_msgpack_reader_reuse, hooks::msgpack_reader_kept},
};

// A user object a handler makes: equal by its number.
struct Point {
  std::int64_t n = 0;
  friend bool operator==(const Point& a, const Point& b) { return a.n == b.n; }
};

// A Record's type, read through the decoder's bind of its rep.
struct Pt {
  std::int64_t x = 0;
  std::string name;
  friend bool operator==(const Pt&, const Pt&) = default;
};

// The user code calls of this thread's reads (handlers, builders).
thread_local std::size_t calls = 0;

// `texts` (Transit JSON, read here with no handlers) in `e`: each text's values written one
// after another.
std::string encoded(const std::string& json, Encoding e) {
  if (e == Encoding::json) return json;
  std::string out;
  for (const Value& v : transit::read_all(json, Encoding::json)) {
    if (!out.empty() && e != Encoding::msgpack) out += ' ';
    out += transit::write(v, e);
  }
  return out;
}

// A read's outcome: the values and offsets a Reader gives, the error it stops at, the same by
// read() and by a typed read (read<Value>), and the user code's calls in all of them.
struct Outcome {
  std::vector<Value> values;
  std::vector<std::size_t> offsets;
  std::string error;
  std::size_t calls = 0;
};

std::string error_text(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const Error& err) {
    return err.what();
  } catch (const transit::test::Refuse&) {
    return "Refuse";
  } catch (const std::exception& err) {
    return std::string("std: ") + err.what();
  } catch (...) {
    return "other";
  }
}

Outcome outcome_of(const std::string& text, Encoding e, const ReadOptions& o) {
  Outcome out;
  const std::size_t before = calls;
  {
    transit::Reader reader(text, e, o);
    // A refusal fails one call alone: the reader reads on, as far as 8 calls.
    for (int i = 0; i < 8; ++i) {
      try {
        std::optional<Value> v = reader.next();
        if (!v) break;
        out.values.push_back(std::move(*v));
      } catch (...) {
        out.error += error_text(std::current_exception()) + " | ";
      }
      out.offsets.push_back(reader.offset());
    }
  }
  for (int typed = 0; typed < 2; ++typed) {
    try {
      out.values.push_back(typed ? transit::read<Value>(text, e, o) : transit::read(text, e, o));
    } catch (...) {
      out.error += error_text(std::current_exception()) + " / ";
    }
  }
  out.calls = calls - before;
  return out;
}

// Handlers of every kind: tagged and scalar (`~x`) handlers making user objects, a default
// handler that refuses in every way user code can (refusals.h), handlers that read with the
// same handlers, with others and with none, builders, a Record.
struct AllHandlers {
  ReadHandlers other;
  ReadHandlers all;
  ReadHandlers builders;
  ReadHandlers record;
  AllHandlers() {
    other.add("point", [](const Value& rep) {
      ++calls;
      return Value::array({Value("other"), rep});
    });
    all.add("point", [](const Value& rep) {
      ++calls;
      return Value::object(Point{rep.as_int()});
    });
    all.add("x", [](const Value& rep) {
      ++calls;
      return Value::object(Point{static_cast<std::int64_t>(rep.as_string().size())});
    });
    all.add("nest", [this](const Value& rep) {
      ++calls;
      return transit::read(rep.as_string(), Encoding::json, {.handlers = &all});
    });
    all.add("other", [this](const Value& rep) {
      ++calls;
      return transit::read(rep.as_string(), Encoding::json, {.handlers = &other});
    });
    all.add("plain", [](const Value& rep) {
      ++calls;
      return transit::read(rep.as_string(), Encoding::json);
    });
    all.set_default([](std::string_view tag, const Value& rep) {
      ++calls;
      return transit::test::refuse_some(tag, rep);
    });
    builders.add("point", [](const Value& rep) {
      ++calls;
      return Value::array({Value("point"), rep});
    });
    builders.set_map_builder([](std::span<Value> kv) {
      ++calls;
      return Value::array({Value("map"), Value(static_cast<std::int64_t>(kv.size()))});
    });
    builders.set_array_builder([](std::span<Value> items) {
      ++calls;
      if (items.size() == 3) throw std::runtime_error("three");
      return Value::list(std::vector<Value>(items.begin(), items.end()));
    });
    record.add(transit::Record<Pt>("pt").field(&Pt::x, "x").field(&Pt::name, "name"));
  }
  // No handlers, then each set, under the default limits and, for `all`, each limit.
  std::vector<ReadOptions> options() const {
    std::vector<ReadOptions> o = {{}, {.handlers = &all}, {.handlers = &builders}, {.handlers = &record}};
    for (int i = 0; i < 4; ++i) {
      ReadOptions limited{.handlers = &all};
      if (i == 0) limited.max_depth = 2;
      if (i == 1) limited.max_collection_length = 2;
      if (i == 2) limited.max_string_length = 3;
      if (i == 3) limited.max_value_bytes = 12;
      o.push_back(limited);
    }
    return o;
  }
};

const std::vector<std::string> kTexts = {
    R"(["~#point",1])",
    R"([["~#point",2],["~#point",3],"~xabcd"])",
    R"(["^ ","~xabcd",1,"~xefgh",["^ ","~:k","~xabcd"]])",
    R"(["~#unknown",4] ["~#unknown",5] ["~#unknown",6] ["~#unknown",7] ["~#unknown","!no"] ["~#point",8])",
    R"([["~#unknown",9],["~#point",10],["~#unknown",11]])",
    R"(["~#nest","[\"~#point\",12]"] ["~#other","[\"~#point\",13]"] ["~#plain","[\"~:abcd\",\"^0\"]"])",
    R"(["~#nest","[\"~#unknown\",1]"] [["~#point",14]])",
    R"({"a":["~#point",15],"b":[1,2,3],"c":[1,2]})",
    R"(["~#pt",["^ ","~:x",16,"~:name","abcd"]] ["~#pt",["^ ","~:x","no"]])",
    R"(["~#set",[1,2]] ["~:abcd","^0",["~#list",[1,2,3]]])",
    "[1,2,3] [[1,2,3]]",
};

// Every text, whole and cut (see below), in every encoding (JSON by simdjson and by
// RapidJSON), under every option, one after another on this thread: each read after the
// first finds the reader the one before it kept, whatever handlers either had.
TEST(KeptReader, WithHandlersReadsAsANewOne) {
  const AllHandlers h;
  const std::vector<ReadOptions> options = h.options();
  for (const Kept& k : kEncodings) {
    SCOPED_TRACE(static_cast<int>(k.encoding));
    const auto outcomes = [&] {
      std::vector<Outcome> out;
      for (const std::string& json : kTexts) {
        const std::string text = encoded(json, k.encoding);
        // Every byte of a short text, every other of a longer one, and RapidJSON's reads on
        // every fourth (a sanitizer build runs this too).
        const std::size_t step = text.size() > 32 ? 2 : 1;
        for (std::size_t cut = 0; cut <= text.size(); ++cut)
          for (const bool simd : {true, false}) {
            const bool whole = cut == text.size();
            if (!whole && cut % step != 0) continue;
            if (!simd && (k.encoding == Encoding::msgpack || (!whole && cut % 4 != 0))) continue;
            hooks::set_json_simdjson(simd);
            for (const ReadOptions& o : options) out.push_back(outcome_of(text.substr(0, cut), k.encoding, o));
            hooks::set_json_simdjson(true);
          }
      }
      return out;
    };
    k.set_reuse(false);
    const std::vector<Outcome> fresh = outcomes();
    EXPECT_FALSE(k.kept());
    k.set_reuse(true);
    const std::vector<Outcome> reused = outcomes();
    ASSERT_EQ(fresh.size(), reused.size());
    for (std::size_t i = 0; i < fresh.size(); ++i) {
      EXPECT_EQ(fresh[i].values, reused[i].values) << i;
      EXPECT_EQ(fresh[i].offsets, reused[i].offsets) << i;
      EXPECT_EQ(fresh[i].error, reused[i].error) << i;
      EXPECT_EQ(fresh[i].calls, reused[i].calls) << i;
    }
  }
  // What the reads gave, checked once: user objects, refusals read past, nested reads.
  const Value point = transit::read(kTexts[0], Encoding::json, options[1]);
  EXPECT_EQ(point.as<Point>(), Point{1});
  transit::Reader reader(kTexts[3], Encoding::json, options[1]);
  EXPECT_EQ(reader.next(), Value::array({Value("unknown"), Value(4)}));
  EXPECT_THROW(reader.next(), Error);
}

// The reader a Reader with handlers leaves is kept, and taken by the next Reader of its
// thread, with the same handlers, others or none; and a reader kept by one with none is taken
// by one with handlers.
TEST(KeptReader, AReaderWithHandlersIsKeptAndTaken) {
  const AllHandlers h;
  for (const Kept& k : kEncodings) {
    SCOPED_TRACE(static_cast<int>(k.encoding));
    k.set_reuse(false);
    k.set_reuse(true);
    const std::string text = encoded(R"([["~#point",2],["~#point",3]])", k.encoding);
    const Value want = Value::array({Value::object(Point{2}), Value::object(Point{3})});
    EXPECT_EQ(transit::read(text, k.encoding, {.handlers = &h.all}), want);
    EXPECT_TRUE(k.kept());
    for (const ReadHandlers* with : {&h.all, &h.builders, static_cast<const ReadHandlers*>(nullptr), &h.all}) {
      transit::Reader reader(text, k.encoding, {.handlers = with});
      EXPECT_FALSE(k.kept());  // taken
      const std::optional<Value> v = reader.next();
      ASSERT_TRUE(v);
      if (with == &h.all) {
        EXPECT_EQ(*v, want);
      } else if (with == nullptr) {
        EXPECT_EQ(v->size(), 2u);
      }
    }
    EXPECT_TRUE(k.kept());
  }
}

// A ReadHandlers destroyed and another made in its place (the same address, and likely its
// table's too) between reads: each read runs the handlers it was given, the kept reader
// remembering nothing of the last ones.
TEST(KeptReader, HandlersMadeAgainAtTheSameAddressReadAsThemselves) {
  for (const Kept& k : kEncodings) {
    SCOPED_TRACE(static_cast<int>(k.encoding));
    const std::string text = encoded(R"(["~#point",1] ["~#point",2])", k.encoding);
    for (const bool reuse : {false, true}) {
      k.set_reuse(reuse);
      std::optional<ReadHandlers> handlers;
      const ReadHandlers* first = nullptr;
      for (std::int64_t i = 0; i < 20; ++i) {
        handlers.emplace();
        if (!first) first = &*handlers;
        EXPECT_EQ(first, &*handlers);
        handlers->add("point", [i](const Value& rep) { return Value(100 * i + rep.as_int()); });
        const ReadOptions o{.handlers = &*handlers};
        transit::Reader reader(text, k.encoding, o);
        EXPECT_EQ(reader.next(), Value(100 * i + 1));
        EXPECT_EQ(reader.next(), Value(100 * i + 2));
        EXPECT_EQ(transit::read(encoded(R"(["~#point",3])", k.encoding), k.encoding, o), Value(100 * i + 3));
        handlers.reset();
      }
      EXPECT_EQ(k.kept(), reuse);
    }
  }
}

// What a handler made is not held by the reader kept after it: a cached map key's user
// object (the cache's last entry) goes with the last Value the user held. A user object
// whose destructor reads, destroyed as the reader is kept, reads with a reader of its own.
// A user object whose life a test sees (through a weak_ptr to its token).
struct Life {
  std::shared_ptr<int> token;
  friend bool operator==(const Life&, const Life&) { return true; }
};

// A user object that reads when its last copy goes: `k`'s text of a point, with `o`.
struct ReadsWhenGone {
  ReadsWhenGone(const Kept* kept, const ReadOptions* options, int* count)
      : k(kept), o(options), reads(count) {}
  ReadsWhenGone(const ReadsWhenGone&) = delete;
  ReadsWhenGone& operator=(const ReadsWhenGone&) = delete;
  const Kept* k;
  const ReadOptions* o;
  int* reads;
  ~ReadsWhenGone() {
    EXPECT_EQ(transit::read(encoded(R"(["~#point",7])", k->encoding), k->encoding, *o),
              Value::array({Value("point"), Value(7)}));
    ++*reads;
  }
};
struct Reads {
  std::shared_ptr<ReadsWhenGone> gone;
  friend bool operator==(const Reads&, const Reads&) { return true; }
};

TEST(KeptReader, HoldsNothingOfTheUsers) {
  std::weak_ptr<int> life;
  ReadHandlers handlers;
  handlers.add("x", [&](const Value&) {
    auto token = std::make_shared<int>(1);
    life = token;
    return Value::object(Life{token});
  });
  const ReadOptions o{.handlers = &handlers};
  for (const Kept& k : kEncodings) {
    SCOPED_TRACE(static_cast<int>(k.encoding));
    k.set_reuse(false);
    k.set_reuse(true);
    const std::string text = encoded(R"(["^ ","~xabcd",1])", k.encoding);
    {
      transit::Reader reader(text, k.encoding, o);
      std::optional<Value> v = reader.next();
      ASSERT_TRUE(v);
      v.reset();
      // The reader's cache holds the key (a JSON-Verbose value caches nothing).
      EXPECT_EQ(life.expired(), k.encoding == Encoding::json_verbose);
    }
    EXPECT_TRUE(k.kept());
    EXPECT_TRUE(life.expired());
  }

  // Destroyed as the reader is kept (the cache's key, its last owner), it reads, with the
  // same handlers.
  ReadHandlers reading;
  int reads = 0;
  const Kept* current = nullptr;
  const ReadOptions ro{.handlers = &reading};
  reading.add("point", [](const Value& rep) { return Value::array({Value("point"), rep}); });
  reading.add("x", [&](const Value&) {
    return Value::object(Reads{std::make_shared<ReadsWhenGone>(current, &ro, &reads)});
  });
  for (const Kept& k : kEncodings) {
    if (k.encoding == Encoding::json_verbose) continue;  // it caches no key
    SCOPED_TRACE(static_cast<int>(k.encoding));
    current = &k;
    k.set_reuse(false);
    k.set_reuse(true);
    reads = 0;
    const std::string text = encoded(R"(["^ ","~xabcd",1])", k.encoding);
    {
      transit::Reader reader(text, k.encoding, ro);
      EXPECT_EQ(reader.next()->size(), 1u);  // the Value gone: the cache holds the last key
      EXPECT_EQ(reads, 0);
    }
    EXPECT_EQ(reads, 1);
    EXPECT_TRUE(k.kept());
    // The Value returned outlives its reader, and reads when it goes.
    EXPECT_EQ(transit::read(text, k.encoding, ro).size(), 1u);
    EXPECT_EQ(reads, 2);
  }
}

// Threads that read with the same handlers each keep and take their own reader.
TEST(KeptReader, ThreadsWithHandlersReadApart) {
  const AllHandlers h;
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 300; ++i) {
        const Kept& k = kEncodings[(i + t) % 3];
        const std::string text = encoded(R"([["~#point",1],["~#nest","[\"~#point\",2]"]])", k.encoding);
        const ReadOptions& o = i % 2 ? ReadOptions{.handlers = &h.all} : ReadOptions{.handlers = &h.builders};
        const Value v = transit::read(text, k.encoding, o);
        const Value want = i % 2 ? Value::array({Value::object(Point{1}), Value::object(Point{2})})
                                 : Value::list({Value::array({Value("point"), Value(1)}),
                                                Value::tagged("nest", Value("[\"~#point\",2]"))});
        if (v != want) ++wrong;
      }
    });
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(wrong.load(), 0);
}

}  // namespace
