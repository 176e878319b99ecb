// SPDX-License-Identifier: Apache-2.0
// Each sharing that docs/thread-safety.md allows, exercised from several threads at once. The
// names contain "Thread" so that ./run.sh test runs them under ThreadSanitizer (ctest -R Thread),
// which reports any data race as a failure.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "transit/transit.h"

namespace {

using transit::Encoding;
using transit::Value;

constexpr int kThreads = 4;

template <class Body>
void on_threads(Body body) {
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) threads.emplace_back(body, t);
  for (auto& t : threads) t.join();
}

/// A value with heap payloads at every level: long strings, nested collections, big numbers.
Value shared_document() {
  std::vector<Value> items;
  for (int i = 0; i < 50; ++i) {
    items.push_back(Value::map({
        {transit::kw("name-of-the-item"), "a string long enough to live on the heap #" + std::to_string(i)},
        {transit::kw("tags"), Value::set({transit::kw("alpha-beta-gamma"), transit::kw("t" + std::to_string(i))})},
        {transit::kw("amount"), Value::big_decimal("12345678901234567890." + std::to_string(i))},
        {Value::array({i, i + 1}), Value::list({1.5, "x"})},
    }));
  }
  return Value::array(std::move(items));
}

// Values are immutable and their counts atomic: copies of one Value may be copied, compared,
// hashed, printed, written and destroyed on any number of threads at once.
TEST(ValueThreads, CopiesOfOneValueAreUsedOnManyThreadsAtOnce) {
  const Value original = shared_document();
  const std::string json = transit::write(original, Encoding::json);
  const std::string edn = transit::to_edn(original);
  const std::size_t hash = original.hash();
  std::atomic<int> wrong{0};
  on_threads([&](int) {
    for (int i = 0; i < 50; ++i) {
      Value copy = original;  // shares the payload
      std::vector<Value> more(8, copy);
      if (!(copy == original) || copy.hash() != hash) ++wrong;
      if (transit::write(copy, Encoding::json) != json || transit::to_edn(more[3]) != edn) ++wrong;
      for (const Value& item : copy.items())
        if (item.find(transit::kw("tags"))->size() != 2) ++wrong;
    }
  });
  EXPECT_EQ(wrong.load(), 0);
}

// A document read into an arena is counted as a whole: its values may be handed to other
// threads, and the last one to let go frees it, whichever thread that is.
TEST(ValueThreads, ADocumentReadOnOneThreadOutlivesItsReaderOnOthers) {
  const Value expected = shared_document();
  const std::string text = transit::write(expected, Encoding::json);
  for (int round = 0; round < 20; ++round) {
    std::vector<Value> parts;
    {
      transit::Reader reader(text, Encoding::json);
      const Value doc = *reader.next();
      for (const Value& item : doc.items()) parts.push_back(item);
    }  // the reader and the document handle are gone; the parts keep the arena alive
    std::atomic<int> wrong{0};
    on_threads([&](int t) {
      for (std::size_t i = std::size_t(t); i < parts.size(); i += kThreads) {
        if (!(parts[i] == expected[i])) ++wrong;
        Value keep = parts[i];
        parts[i] = Value();  // drop this thread's share; others still hold theirs
        if (keep.find(transit::kw("name-of-the-item"))->as_string().empty()) ++wrong;
      }
    });
    EXPECT_EQ(wrong.load(), 0);
  }
}

struct Money {
  long cents;
};

// One ReadHandlers serves any number of readers on any number of threads (its handlers are
// called concurrently, so they must be safe to call so: these are pure functions).
TEST(ReaderThreads, OneReaderPerThreadShareOneReadHandlers) {
  transit::ReadHandlers handlers;
  handlers.add_object<Money>("money", [](const Value& rep) { return Money{long(rep.as_int())}; });
  transit::ReadOptions options;
  options.handlers = &handlers;
  const std::string text = R"([["~#money",950],["^0",25],["~#set",["~:a","~:b"]]])";
  std::atomic<int> wrong{0};
  on_threads([&](int) {
    for (int i = 0; i < 300; ++i) {
      transit::Reader reader(text, Encoding::json, options);  // one reader per thread
      const Value v = *reader.next();
      if (v[0].as<Money>().cents != 950 || v[1].as<Money>().cents != 25 || v[2].size() != 2) ++wrong;
    }
  });
  EXPECT_EQ(wrong.load(), 0);
}

// User objects inside Values (and so the Values read through read handlers) are shared like
// any Value; a frozen Registry writes them from several writers at once.
TEST(WriterThreads, OneWriterPerThreadWritesSharedUserObjects) {
  transit::RegistryBuilder b;
  transit::add<Money>(b, "money", [](const Money& m) { return m.cents; });
  const transit::Registry registry = std::move(b).freeze();
  transit::WriteOptions options;
  options.registry = &registry;
  const Value wallet = Value::array({Value::object<Money>(Money{950}), Value::object<Money>(Money{25})});
  const std::string expected = R"([["~#money",950],["^0",25]])";
  std::atomic<int> wrong{0};
  on_threads([&](int) {
    std::string out;
    transit::StringSink sink(out);
    transit::Writer writer(sink, Encoding::json, options);  // one writer per thread
    for (int i = 0; i < 300; ++i) {
      out.clear();
      writer.write(wallet);
      writer.flush();
      if (out != expected) ++wrong;
    }
  });
  EXPECT_EQ(wrong.load(), 0);
}

// transit::read, transit::write and to_edn keep no state between calls: any thread may call
// them at any time.
/// A map big enough for find() to build its key index on first use.
Value wide_map() {
  std::vector<transit::Entry> entries;
  for (int i = 0; i < 40; ++i) entries.emplace_back(transit::kw("key-" + std::to_string(i)), i);
  return Value::map(std::move(entries));
}

// find() on a large map builds a key index the first time; any thread may be the first, and
// several may race to be, on a map built in memory or read into an arena alike.
TEST(ValueThreads, ManyThreadsFindInOneLargeMapFirstTouchRaces) {
  const Value built = wide_map();
  const std::string text = transit::write(built, Encoding::json);
  for (int round = 0; round < 20; ++round) {
    const Value fresh = wide_map();            // no index yet
    const Value read = transit::read(text);    // in an arena, no index yet
    std::atomic<int> wrong{0};
    on_threads([&](int t) {
      for (int i = 0; i < 40; ++i) {
        const int k = (i + t * 7) % 40;
        const Value key = transit::kw("key-" + std::to_string(k));
        for (const Value* m : {&fresh, &read}) {
          const Value* v = m->find(key);
          if (v == nullptr || v->as_int() != k) ++wrong;
        }
      }
    });
    EXPECT_EQ(wrong.load(), 0);
  }
}

TEST(FreeFunctionThreads, ReadWriteAndToEdnFromManyThreads) {
  const Value v = shared_document();
  std::vector<std::string> texts;
  for (Encoding e : {Encoding::json, Encoding::json_verbose, Encoding::msgpack})
    texts.push_back(transit::write(v, e));
  std::atomic<int> wrong{0};
  on_threads([&](int t) {
    const Encoding e = t % 3 == 0 ? Encoding::json : t % 3 == 1 ? Encoding::json_verbose : Encoding::msgpack;
    const Encoding read_as = e == Encoding::msgpack ? e : Encoding::json;
    for (int i = 0; i < 20; ++i) {
      const Value back = transit::read(texts[std::size_t(t % 3)], read_as);
      if (!(back == v) || transit::write(back, e) != texts[std::size_t(t % 3)]) ++wrong;
      if (transit::to_edn(back).empty()) ++wrong;
    }
  });
  EXPECT_EQ(wrong.load(), 0);
}

}  // namespace
