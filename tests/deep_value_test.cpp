// SPDX-License-Identifier: Apache-2.0
// Values built by hand, not read: no builder makes one deeper than Value::kMaxDepth, so that
// destroying, writing, comparing, hashing and printing any Value a program can build fit in a
// default 8 MiB thread stack, under AddressSanitizer too.
#include <gtest/gtest.h>
#include <pthread.h>

#include <cstddef>
#include <cstring>
#include <exception>
#include <functional>
#include <string>
#include <vector>

#include "transit/transit.h"
#include "model/value_internal.h"

namespace {

using transit::Encoding;
using transit::Errc;
using transit::Error;
using transit::Kind;
using transit::ReadOptions;
using transit::Value;
using transit::WriteOptions;

constexpr std::size_t kLimit = Value::kMaxDepth;
constexpr std::size_t kTries = 1'000'000;
constexpr const char* kTooDeep = "value nests deeper than 1000 levels (Value::kMaxDepth)";

// Runs `body` on a thread with the stack glibc gives a thread by default (8 MiB), whatever
// the test runner's own stack is, and reports what it throws as a failure.
void on_default_stack(const std::function<void()>& body) {
  struct Job {
    const std::function<void()>* body;
    std::string failure;
  } job{&body, {}};
  pthread_attr_t attr;
  ASSERT_EQ(pthread_attr_init(&attr), 0);
  ASSERT_EQ(pthread_attr_setstacksize(&attr, std::size_t{8} << 20), 0);
  pthread_t thread;
  const int started = pthread_create(
      &thread, &attr,
      [](void* p) -> void* {
        auto* j = static_cast<Job*>(p);
        try {
          (*j->body)();
        } catch (const std::exception& e) {
          j->failure = e.what();
        }
        return nullptr;
      },
      &job);
  pthread_attr_destroy(&attr);
  ASSERT_EQ(started, 0);
  pthread_join(thread, nullptr);
  EXPECT_EQ(job.failure, "");
}

// One level of nesting around `inner`, by one builder.
struct Builder {
  const char* name;
  std::function<Value(Value inner)> wrap;
};

std::vector<Builder> builders() {
  return {
      {"array", [](Value v) { return Value::array({std::move(v)}); }},
      {"list", [](Value v) { return Value::list({std::move(v)}); }},
      {"set", [](Value v) { return Value::set({std::move(v), 1}); }},
      {"map value", [](Value v) { return Value::map({{"k", std::move(v)}}); }},
      {"map key", [](Value v) { return Value::map({{std::move(v), 1}}); }},
      {"link field", [](Value v) { return Value::link(Value::map({{"href", std::move(v)}})); }},
      {"tagged", [](Value v) { return Value::tagged("deep", std::move(v)); }},
  };
}

// Wraps `core` by `builder` until it refuses; returns the deepest value built and how many
// levels were added.
Value build_until_refused(const Builder& builder, Value core, std::size_t& added) {
  Value v = std::move(core);
  for (added = 0; added < kTries; ++added) {
    try {
      v = builder.wrap(v);
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), Errc::too_deep);
      EXPECT_EQ(e.detail(), kTooDeep);
      EXPECT_EQ(e.offset(), transit::Location::npos);
      break;
    }
  }
  return v;
}

TEST(DeepValue, DepthCountsLevels) {
  EXPECT_EQ(Value().depth(), 0u);
  EXPECT_EQ(Value(std::string(100, 'x')).depth(), 0u);  // a text node is no level
  EXPECT_EQ(Value::uuid({1, 2}).depth(), 0u);
  EXPECT_EQ(Value::array({}).depth(), 1u);
  EXPECT_EQ(Value::map({}).depth(), 1u);
  EXPECT_EQ(Value::array({1, "two"}).depth(), 1u);
  EXPECT_EQ(Value::array({1, Value::array({}), Value::set({Value::list({2})})}).depth(), 3u);
  EXPECT_EQ(Value::map({{Value::array({Value::array({})}), 1}}).depth(), 3u);
  EXPECT_EQ(Value::link("http://a", "self").depth(), 1u);
  // A tagged value is a level around a container or a tagged value, not around a scalar.
  EXPECT_EQ(Value::tagged("deep", 1).depth(), 0u);
  EXPECT_EQ(Value::tagged("deep", Value::tagged("v", 1)).depth(), 1u);
  // One Value::tagged refuses (no reader reads ["~#u", 1]), made as a reader would make it.
  EXPECT_EQ(Value::tagged("deep", transit::ValueAccess::tagged(Value("u"), 1)).depth(), 1u);
  EXPECT_EQ(Value::tagged("deep", Value::array({})).depth(), 2u);
  EXPECT_EQ(Value::object(std::vector<Value>{Value::array({Value::array({})})}).depth(), 0u);
  // A map key replaced by a later value for the same key no longer counts.
  EXPECT_EQ(Value::map({{"k", Value::array({Value::array({})})}, {"k", 1}}).depth(), 1u);
  EXPECT_EQ(transit::read(R"([[],{"a":[1]},["~#deep",[[]]],"~qabc"])").depth(), 4u);
}

// A container read into an arena counts an empty container among its children, held inline,
// as a level (the Adoption's pass over the children): in maps of each size the duplicate
// check takes apart (1, 2, 3 to 8, 9 and more entries), in arrays, first and last, from JSON,
// JSON-Verbose and MessagePack; and a key's earlier value replaced by a later one no longer
// counts, nor does a scalar that replaced an empty container.
TEST(DeepValue, EmptyContainersReadIntoAnArenaCountALevel) {
  const auto map_of = [](std::size_t n, std::size_t at, const std::string& value) {
    std::string text = "[\"^ \"";
    for (std::size_t i = 0; i < n; ++i)
      text += ",\"~:k" + std::to_string(i) + "\"," + (i == at ? value : std::to_string(i));
    return text + "]";
  };
  for (std::size_t n : {1, 2, 3, 8, 9, 20}) {
    for (std::size_t at : {std::size_t{0}, n - 1}) {
      SCOPED_TRACE(testing::Message() << n << " entries, the container at " << at);
      for (const std::string value : {"[]", "{}", "[\"^ \"]", "[\"~#set\",[]]", "[\"~#list\",[]]"}) {
        const Value map = transit::read(map_of(n, at, value));
        EXPECT_EQ(map.depth(), 2u) << value;
        EXPECT_EQ(transit::read("[" + map_of(n, at, value) + "]").depth(), 3u) << value;
        for (const transit::Encoding enc : {transit::Encoding::json_verbose, transit::Encoding::msgpack})
          EXPECT_EQ(transit::read(transit::write(map, enc), enc).depth(), 2u) << value;
      }
      EXPECT_EQ(transit::read(map_of(n, at, "1")).depth(), 1u);
    }
  }
  EXPECT_EQ(transit::read(R"([1,[],2])").depth(), 2u);
  EXPECT_EQ(transit::read(R"([[]])").depth(), 2u);
  EXPECT_EQ(transit::read(R"([1,2,{}])").depth(), 2u);
  EXPECT_EQ(transit::read(R"([1,2,"x"])").depth(), 1u);
  EXPECT_EQ(transit::read(R"(["^ ","~:k",[],"~:k",1])").depth(), 1u);
  EXPECT_EQ(transit::read(R"(["^ ","~:k",1,"~:k",[]])").depth(), 2u);
  EXPECT_EQ(transit::read(R"(["^ ","~:k",[],"~:j",2,"~:k",1])").depth(), 1u);
  EXPECT_EQ(transit::read(R"(["^ ","~:k",{},"~:a",1,"~:b",2,"~:c",3,"~:d",4,"~:e",5,"~:f",6,"~:g",7,"~:k",1])").depth(), 1u);
}

TEST(DeepValue, DocSample) {
  // doc-sample begin
  transit::Value v = transit::Value::array({});
  for (int i = 1; i < 1000; ++i) v = transit::Value::array({v});  // v.depth() == 1000
  // transit::Value::array({v}) throws Error(too_deep)
  // doc-sample end
  EXPECT_EQ(v.depth(), 1000u);
  EXPECT_THROW((void)transit::Value::array({v}), Error);
}

TEST(DeepValue, EveryBuilderRefusesAMillionLevelsAtTheLimit) {
  on_default_stack([] {
    for (const Builder& b : builders()) {
      SCOPED_TRACE(b.name);
      std::size_t added = 0;
      Value v = build_until_refused(b, Value(1), added);
      EXPECT_EQ(v.depth(), kLimit);
      // A tagged value around a scalar is a scalar: one wrap more than the others.
      EXPECT_EQ(added, std::string(b.name) == "tagged" ? kLimit + 1 : kLimit);
      // What was built is destroyed here, 1,000 levels deep, without a stack overflow (and,
      // under ASan, without a leak of the refused partial nodes).
    }
  });
}

TEST(DeepValue, BuildersRefuseInAReadersArenaToo) {
  // While a reader builds a document, nodes go to its arena and are measured as they adopt
  // their children: the same limit, and the refused node goes with the arena.
  on_default_stack([] {
    transit::ArenaScope scope;
    for (const Builder& b : builders()) {
      SCOPED_TRACE(b.name);
      std::size_t added = 0;
      const Value v = build_until_refused(b, Value::array({}), added);
      EXPECT_EQ(v.depth(), kLimit);
      EXPECT_EQ(added, kLimit - 1);
    }
  });
}

TEST(DeepValue, BuildersCountTheDeepestChild) {
  Value deep = Value::array({});
  for (std::size_t i = 1; i < kLimit; ++i) deep = Value::array({1, deep, 2});
  ASSERT_EQ(deep.depth(), kLimit);
  for (const Builder& b : builders()) {
    SCOPED_TRACE(b.name);
    try {
      (void)b.wrap(deep);
      ADD_FAILURE() << "built";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), Errc::too_deep);
      EXPECT_EQ(std::string(e.what()), std::string("transit: too_deep: ") + kTooDeep);
    }
  }
  // Beside shallow items, in any position, in a set (which compacts) or as a map key.
  EXPECT_THROW((void)Value::array({1, 2, deep}), Error);
  EXPECT_THROW((void)Value::set({1, deep, 2, 1}), Error);
  EXPECT_THROW((void)Value::map({{1, 2}, {deep, 3}}), Error);
  EXPECT_THROW((void)Value::map({{1, 2}, {3, deep}}), Error);
  // Big containers index their duplicates: same checks past that size.
  std::vector<Value> many(100, Value(0));
  for (int i = 0; i < 100; ++i) many[i] = Value(i);
  many[57] = deep;
  EXPECT_THROW((void)Value::array(many), Error);
  EXPECT_THROW((void)Value::set(many), Error);
  EXPECT_EQ(Value::array({deep.items()[1]}).depth(), kLimit);  // one level less: fits
}

// Values exactly kMaxDepth deep, two equal copies of each built apart (so comparing them
// walks every level), and whether a reader at its deepest setting reads them back.
struct DeepCase {
  const char* name;
  Value core;
  std::function<Value(Value)> wrap;
  bool reads_back;  // nests no deeper than kMaxDepthLimit on the wire, in every encoding
};

std::vector<DeepCase> deep_cases() {
  return {
      {"arrays", Value(1), [](Value v) { return Value::array({"x", std::move(v)}); }, true},
      {"map values", Value(1), [](Value v) { return Value::map({{"a", 1}, {"k", std::move(v)}}); },
       true},
      {"tagged around an array", Value::array({7}),
       [](Value v) { return Value::tagged("deep", std::move(v)); }, true},
      {"sets", Value(1), [](Value v) { return Value::set({2, std::move(v)}); }, false},
      {"lists", Value(1), [](Value v) { return Value::list({std::move(v)}); }, false},
      {"map keys", Value(1), [](Value v) { return Value::map({{std::move(v), 2}}); }, false},
      {"many big sets", Value(1),
       [](Value v) {
         std::vector<Value> items;
         for (int i = 0; i < 20; ++i) items.push_back(Value::array({i}));
         items.push_back(std::move(v));
         return Value::set(std::move(items));
       },
       false},
  };
}

Value build(const DeepCase& c) {
  Value v = c.core;
  while (v.depth() < kLimit) v = c.wrap(std::move(v));
  return v;
}

TEST(DeepValue, AtTheLimitEveryOperationFitsInTheStack) {
  on_default_stack([] {
    for (const DeepCase& c : deep_cases()) {
      SCOPED_TRACE(c.name);
      const Value a = build(c);
      const Value b = build(c);
      ASSERT_EQ(a.depth(), kLimit);
      EXPECT_TRUE(a == b);
      EXPECT_FALSE(a == c.wrap(c.core));
      EXPECT_EQ(a.hash(), b.hash());
      EXPECT_EQ(std::hash<Value>{}(a), b.hash());
      const std::string edn = transit::to_edn(a);
      EXPECT_EQ(edn, transit::to_edn(b));
      EXPECT_GT(edn.size(), 2 * kLimit);
      EXPECT_EQ(a.detach(), b);
      WriteOptions unlimited;
      unlimited.max_depth = SIZE_MAX;
      ReadOptions deepest;
      deepest.max_depth = ReadOptions::kMaxDepthLimit;
      for (const Encoding e : {Encoding::json, Encoding::json_verbose, Encoding::msgpack}) {
        SCOPED_TRACE(static_cast<int>(e));
        const std::string wire = transit::write(a, e, unlimited);
        if (!c.reads_back) {
          // Two levels on the wire per level of the value: a reader refuses it, cleanly.
          try {
            (void)transit::read(wire, e, deepest);
            ADD_FAILURE() << "read";
          } catch (const Error& err) {
            EXPECT_EQ(err.code(), Errc::too_deep);
          }
          continue;
        }
        const Value back = transit::read(wire, e, deepest);
        EXPECT_EQ(back.depth(), kLimit);
        EXPECT_TRUE(back == a);
        EXPECT_EQ(back.hash(), a.hash());
        EXPECT_EQ(transit::to_edn(back), edn);
        EXPECT_EQ(back.detach(), a);
        EXPECT_EQ(transit::write(back, e, unlimited), wire);
      }
    }
  });
}

TEST(DeepValue, ReadAndHandBuiltLevelsAddUp) {
  ReadOptions deepest;
  deepest.max_depth = ReadOptions::kMaxDepthLimit;
  // 999 levels from a reader's arena, one more by hand: the limit; one more again: refused.
  const Value read =
      transit::read(std::string(kLimit - 1, '[') + std::string(kLimit - 1, ']'), Encoding::json,
                    deepest);
  ASSERT_EQ(read.depth(), kLimit - 1);
  // MessagePack announces its counts, so its arrays are built in their own slots: measured
  // the same way. 0x91 is an array of one item, 0x90 an empty array.
  const Value read_msgpack = transit::read(std::string(kLimit - 2, '\x91') + '\x90', Encoding::msgpack, deepest);
  EXPECT_EQ(read_msgpack.depth(), kLimit - 1);
  EXPECT_EQ(read_msgpack, read);
  // A JSON array long enough to leave the value stack for slots of its own, too.
  std::string long_array = "[[[[1]]]";
  for (int i = 0; i < 70'000; ++i) long_array += ",0";
  EXPECT_EQ(transit::read(long_array + "]").depth(), 4u);
  const Value at_limit = Value::map({{read, Value::array({})}});
  EXPECT_EQ(at_limit.depth(), kLimit);
  EXPECT_THROW((void)Value::array({at_limit}), Error);
  EXPECT_THROW((void)Value::array({at_limit.detach()}), Error);
  EXPECT_EQ(at_limit.detach().depth(), kLimit);
  // A read handler's hand-built value, 990 deep, inside arrays of the reader's arena.
  transit::ReadHandlers handlers;
  handlers.add("deep", [](const Value&) {
    Value v = Value::array({});
    while (v.depth() < 990) v = Value::array({v});
    return v;
  });
  ReadOptions with_handler = deepest;
  with_handler.handlers = &handlers;
  auto nested = [](std::size_t arrays) {
    return std::string(arrays, '[') + R"(["~#deep",0])" + std::string(arrays, ']');
  };
  EXPECT_EQ(transit::read(nested(10), Encoding::json, with_handler).depth(), kLimit);
  try {
    (void)transit::read(nested(11), Encoding::json, with_handler);
    ADD_FAILURE() << "read";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::too_deep);
    EXPECT_EQ(e.detail(), kTooDeep);
    EXPECT_EQ(e.offset(), 33u);  // the outermost array's end, where it would have been built
  }
}

// A user object whose write handler writes, as its representation, the next object of a chain
// that never ends: Value::kMaxDepth does not see into objects, the writer's max_depth stops it.
struct Runaway {
  int level;
};

TEST(DeepValue, WriterMaxDepthStopsRunawayHandlerReps) {
  on_default_stack([] {
    transit::RegistryBuilder builder;
    builder.add<Runaway>("runaway", [](const Runaway& r) {
      return Value::object(Runaway{r.level + 1});
    });
    const transit::Registry registry = std::move(builder).freeze();
    const Value v = Value::object(Runaway{0});
    EXPECT_EQ(v.depth(), 0u);
    WriteOptions options;
    options.registry = &registry;
    for (const Encoding e : {Encoding::json, Encoding::json_verbose, Encoding::msgpack}) {
      for (const std::size_t max_depth : {std::size_t{512}, ReadOptions::kMaxDepthLimit}) {
        options.max_depth = max_depth;
        try {
          (void)transit::write(v, e, options);
          ADD_FAILURE() << "written";
        } catch (const Error& err) {
          EXPECT_EQ(err.code(), Errc::too_deep);
        }
      }
    }
    // Printing it as its handler writes it goes through a writer with the default limit.
    try {
      (void)transit::to_edn(v, registry);
      ADD_FAILURE() << "printed";
    } catch (const Error& err) {
      EXPECT_EQ(err.code(), Errc::too_deep);
    }
  });
}

}  // namespace
