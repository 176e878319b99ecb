// SPDX-License-Identifier: Apache-2.0
// A read document's arena: what a kept part of it costs, and Value::detach(), which copies a
// part out so the document's memory can go.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "transit/reader.h"
#include "transit/transit.h"
#include "transit/value.h"
#include "model/value_internal.h"

#include "support/sanitizers.h"
#include "support/step_source.h"

// Under ASan and TSan the sanitizer's allocator serves malloc, and mallinfo2 knows nothing.
#if defined(TRANSIT_TEST_ASAN) || defined(TRANSIT_TEST_TSAN)
// Declared here: g++ 12 on Debian ships the runtime but not <sanitizer/allocator_interface.h>.
extern "C" std::size_t __sanitizer_get_current_allocated_bytes();
#else
#include <malloc.h>
#endif

namespace {

using transit::Encoding;
using transit::Kind;
using transit::kw;
using transit::Value;

// Bytes the process's allocator has handed out and not had back.
std::size_t heap_in_use() {
#if defined(TRANSIT_TEST_ASAN) || defined(TRANSIT_TEST_TSAN)
  return __sanitizer_get_current_allocated_bytes();
#else
  const struct mallinfo2 info = mallinfo2();
  return info.uordblks + info.hblkhd;
#endif
}

// About 75 bytes of JSON a record (150 KB for the default 2,000), each with a 23-byte id and a
// 40-byte payload.
std::string records_json(int records = 2000) {
  std::string json = "[";
  for (int i = 0; i < records; ++i) {
    if (i > 0) json += ',';
    std::string id = "order-" + std::to_string(1000000000 + i) + "-abcdefg";  // 23 bytes
    json += R"(["^ ","~:id",")" + id + R"(","~:payload",")" + std::string(40, 'p') +
            R"(","~:n",)" + std::to_string(i) + "]";
  }
  return json + "]";
}

// Keeps the id of record 7 of each of `documents` reads, detached or not, and returns how much
// the heap grew. On a thread of its own, whose pool of blocks starts empty.
std::size_t growth_keeping_ids(const std::string& json, int documents, bool detach) {
  std::size_t growth = 0;
  std::thread([&] {
    (void)transit::read(json);  // per-thread scratch (caches, pooled blocks) reaches its size
    const std::size_t before = heap_in_use();
    std::vector<Value> kept;
    kept.reserve(documents);
    for (int i = 0; i < documents; ++i) {
      const Value doc = transit::read(json);
      const Value& id = *doc[7].find(kw("id"));
      kept.push_back(detach ? id.detach() : id);
    }
    for (const Value& id : kept) EXPECT_EQ(id.as_string(), "order-1000000007-abcdefg");
    const std::size_t after = heap_in_use();
    growth = after > before ? after - before : 0;
  }).join();
  return growth;
}

TEST(ArenaDetach, AKeptPartPinsItsDocumentUnlessDetached) {
  const std::string json = records_json();
  constexpr int kDocuments = 20;
  // Each kept 23-byte string holds its whole document (the issue measured 60 MB for 200 ids):
  // every read needs new blocks, as the last ones are still in use.
  const std::size_t pinned = growth_keeping_ids(json, kDocuments, false);
  EXPECT_GT(pinned, kDocuments * json.size() / 2);
  // Detached, each document's blocks are free for the next read: the heap grows by the ids.
  const std::size_t detached = growth_keeping_ids(json, kDocuments, true);
  EXPECT_LT(detached, std::size_t{64} << 10) << "pinned: " << pinned;
}

TEST(ArenaBlocks, APoolKeepsAtMostEightMiBOfBlocksForTheNextDocuments) {
  const std::string big = records_json(100000);
  // On a thread of its own, whose pool starts empty: tests run before this one in the same
  // process may have left this thread's pool full, and the read would take those blocks.
  std::thread([&big] {
    (void)transit::read(records_json());
    const std::size_t before = heap_in_use();
    std::size_t while_alive = 0;
    {
      const Value doc = transit::read(big);
      while_alive = heap_in_use() - before;
      ASSERT_EQ(doc.size(), 100000u);
    }
    ASSERT_GT(while_alive, std::size_t{16} << 20);  // the document is well beyond the cap
    const std::size_t after = heap_in_use();
    EXPECT_LE(after > before ? after - before : 0, (std::size_t{8} << 20) + (std::size_t{256} << 10));
  }).join();
}

// A service reading one document after another on a thread: each read takes the blocks the
// last document gave back, so it neither asks malloc for its arena again nor faults fresh
// pages in (the cost `transit bench`, a fresh read per run, would pay were the pool to fail).
// When the thread ends, what its pool kept goes back to malloc.
TEST(ArenaBlocks, TheNextDocumentTakesItsBlocksFromThePoolWhichGoesWithItsThread) {
  const std::string json = records_json(10000);
  const std::size_t before_thread = heap_in_use();
  std::size_t arena = 0, growth = 0, kept = 0;
  std::thread([&] {
    (void)transit::read(json);  // the pool and the thread's scratch reach their size
    const std::size_t before = heap_in_use();
    {
      const Value doc = transit::read(json);
      ASSERT_EQ(doc.size(), 10000u);
      arena = transit::ValueAccess::arena_bytes(doc);
      const std::size_t alive = heap_in_use();
      growth = alive > before ? alive - before : 0;
    }
    const std::size_t after = heap_in_use();
    kept = after > before ? after - before : 0;
  }).join();
  const std::size_t after_thread = heap_in_use();
  ASSERT_GT(arena, std::size_t{1} << 20);  // more than one block, within the pool's bound
  ASSERT_LT(arena, std::size_t{8} << 20);
  // What the read took from malloc: not its arena (the long top-level array's growable slots,
  // 160 KB of items, are the heap's; see reserve_growable_sequence).
  EXPECT_LT(growth, arena / 4) << "arena " << arena;
  EXPECT_LT(kept, std::size_t{64} << 10);
  // The pool (more than a megabyte here) went with the thread.
  EXPECT_LT(after_thread > before_thread ? after_thread - before_thread : 0, std::size_t{256} << 10);
}

TEST(ArenaBlocks, ADocumentDroppedOnAnotherThreadLeavesItsBlocksThere) {
  // The blocks go to the pool of the thread that frees them, which frees them when it ends
  // (LeakSanitizer in the sanitizer build checks that nothing is left behind).
  const std::string json = records_json();
  Value doc = transit::read(json);
  std::thread([d = std::move(doc)]() mutable { d = Value(); }).join();
  std::thread([&json] {
    for (int i = 0; i < 3; ++i) EXPECT_EQ(transit::read(json).size(), 2000u);
  }).join();
}

TEST(ArenaDetach, ADetachedTreeEqualsItsOriginalKindForKind) {
  const std::string json =
      R"(["^ ","~:strings",["a string longer than thirteen bytes","short","~:a-keyword-longer-than-13",)"
      R"("~$a-symbol-longer-than-13","~rhttp://example.com/a/long/uri","~n123456789012345678901234567890",)"
      R"("~f1234567890.123456789","~bAAECAwQFBgcICQoLDA0ODxAREhM=","~u531a379e-31bb-4ce1-8690-158dceb64be6"],)"
      R"("~:set",["~#set",[1,"two",["^ ","~:k","a value longer than thirteen"]]],)"
      R"("~:list",["~#list",[1,2.5,null,true]],)"
      R"("~:cmap",["~#cmap",[["a composite key","x"],1,["^ ","~:k",2],2]],)"
      R"("~:tagged",["~#point",[1,2,"a label longer than 13"]],)"
      R"("~:link",["~#link",["^ ","href","~rhttp://example.com/link","rel","a relation","render","link"]],)"
      R"("~:instant","~m1482233353000","~:char","~c\u00e9"])";
  const Value doc = transit::read(json);
  const Value copy = doc.detach();
  EXPECT_EQ(copy, doc);
  ASSERT_EQ(copy.size(), doc.size());
  for (std::size_t i = 0; i < doc.size(); ++i) {
    EXPECT_EQ(copy.entries()[i].first, doc.entries()[i].first);
    EXPECT_EQ(copy.entries()[i].second.kind(), doc.entries()[i].second.kind());
  }
  const Value* tagged = copy.find(kw("tagged"));
  ASSERT_NE(tagged, nullptr);
  EXPECT_EQ(tagged->tag(), "point");
  EXPECT_EQ(tagged->rep()[2].as_string(), "a label longer than 13");
  // The copy does not depend on the document: it outlives it.
  Value survivor;
  {
    const Value again = transit::read(json);
    survivor = again.detach();
  }
  EXPECT_EQ(survivor, doc);
}

TEST(ArenaDetach, PartsAlreadyOnTheHeapAreSharedNotCopied) {
  const Value built = Value::array({Value("a string longer than thirteen bytes"), Value(1)});
  const Value detached = built.detach();
  EXPECT_EQ(detached.items().data(), built.items().data());

  // A tree built by the user around a part of a document: the user's nodes are copied only
  // because the part below them is in an arena; a heap string beside it is shared.
  const Value doc = transit::read(R"(["a string read from a document"])");
  const Value heap_text("another string longer than 13");
  const Value mixed = Value::array({doc[0], heap_text});
  const Value out = mixed.detach();
  EXPECT_EQ(out, mixed);
  EXPECT_NE(out.items().data(), mixed.items().data());
  EXPECT_EQ(out[1].as_string().data(), heap_text.as_string().data());
  EXPECT_NE(out[0].as_string().data(), doc[0].as_string().data());
}

TEST(ArenaDetach, InsideAnOpenArenaScopeTheCopyGoesToTheHeap) {
  // A read handler that keeps part of what it is given runs while the reader's arena is open.
  const Value doc = transit::read(R"(["a string read from a document"])");
  Value kept;
  {
    transit::ArenaScope scope;
    kept = doc[0].detach();
  }
  // Had the copy gone into the scope's arena, `kept` would be its only owner: the same test
  // as above, by its effect, is that it survives both the scope and the document.
  const std::string expected(doc[0].as_string());
  const Value keep_alive = kept;
  EXPECT_EQ(kept.as_string(), expected);
  EXPECT_EQ(keep_alive.detach().as_string().data(), kept.as_string().data());
}

TEST(ArenaDetach, InlineAndObjectValuesAreReturnedAsTheyAre) {
  EXPECT_EQ(Value(42).detach(), Value(42));
  EXPECT_EQ(kw("short").detach(), kw("short"));
  EXPECT_TRUE(Value().detach().is_null());
  struct Money {
    int cents;
    bool operator==(const Money&) const = default;
  };
  const Value object = Value::object(Money{950});
  EXPECT_EQ(object.detach().object_address(), object.object_address());
}

}  // namespace

namespace {

// A JSON array too long for the value stack is built in heap slots of its own, not in the
// document's arena; the cache hits in it (which the decoder places without a count, as a node
// of the arena would adopt them) must then keep the arena alive themselves. Kept alone, such
// an array must still read its items after the rest of the document is gone and its arena's
// blocks have served the next document.
TEST(Arena, CacheHitsInALongArrayKeepTheirDocument) {
  const std::string keyword = "a-keyword-in-the-arena";
  std::string json = R"([["~:)" + keyword + R"("],[)";
  for (int i = 0; i < 70'000; ++i) json += i == 0 ? "\"^0\"" : ",\"^0\"";
  json += "]]";
  {
    Value long_array;
    {
      const Value doc = transit::read(json);
      long_array = doc[1];
    }
    // The next documents reuse the pooled blocks of the first one, if it was let go.
    for (int i = 0; i < 4; ++i)
      (void)transit::read(R"(["~:)" + std::string(keyword.size(), 'x') + R"(", "overwrite the blocks"])");
    ASSERT_EQ(long_array.size(), 70'000u);
    EXPECT_EQ(long_array[0], kw(keyword));
    EXPECT_EQ(long_array[69'999], kw(keyword));
  }
}

}  // namespace

namespace {

// While a document is built, the counts its nodes are born with and give back to their parents
// are kept aside, off the arena's atomic count, and folded into it when the scope closes. Every
// way a Value of the arena can end the scope must leave the arena alive exactly as long as
// something refers to it: born and kept, copied (an atomic count taken inside the scope), born
// and dropped inside it, adopted by a parent, or copied inside and dropped after.
TEST(ArenaCounts, ValuesOfAScopeKeepItsArenaAfterItClosesAndFreeItWhenGone) {
  const std::string text = "a string longer than thirteen bytes";
  Value born, copied, parent, dropped_after;
  {
    transit::ArenaScope scope;
    Value a(text);
    Value gone("born and dropped inside the scope");
    gone = Value();
    copied = a;  // counted atomically, inside the scope
    std::vector<Value> items{a, Value("a second long string, adopted by its array")};
    parent = Value::array(std::move(items));  // the copy of `a` is adopted: its count goes back
    dropped_after = parent[1];
    born = std::move(a);
    ASSERT_GT(transit::ValueAccess::arena_bytes(born), 0u);
  }
  dropped_after = Value();
  // Documents read now take the pooled blocks of any arena let go: overwrite them.
  for (int i = 0; i < 4; ++i)
    (void)transit::read(R"(["overwrite any pooled block, with a long string", [1, 2, 3]])");
  EXPECT_EQ(born.as_string(), text);
  EXPECT_EQ(copied.as_string(), text);
  ASSERT_EQ(parent.size(), 2u);
  EXPECT_EQ(parent[0].as_string(), text);
  EXPECT_EQ(parent[1].as_string(), "a second long string, adopted by its array");
  // The arena goes with the last of them (LeakSanitizer in the sanitizer build checks that it
  // does; AddressSanitizer that nothing is used after).
  born = Value();
  copied = Value();
  parent = Value();
}

// Texts, UUIDs and tagged values built in a scope: most from the arena's current block, some
// (each time a block fills) from the next one (text_node_elsewhere and the like), and tagged
// values whose tag or rep was made outside the scope, which keep their counts and are released
// with the arena (adopt_tag_and_rep). ASan and LeakSanitizer in the sanitizer build check that
// nothing is used after it is freed or leaked.
TEST(ArenaCounts, TextsUuidsAndTaggedValuesOfAScopeKeepWhatTheyHoldFromOutsideIt) {
  const std::string long_text = "a text from outside the scope, longer than thirteen bytes";
  std::vector<Value> kept;
  {
    Value outside_rep = Value::array(std::vector<Value>{Value(long_text), Value(std::int64_t{7})});
    Value outside_tag(std::string("a tag from outside, longer than 13"));
    // A small document first: the next scope's first block is sized by the last document
    // read on this thread, and so is small.
    (void)transit::read("[1]");
    transit::ArenaScope scope;
    // Enough to fill many blocks of the arena.
    for (int i = 0; i < 3000; ++i) {
      const std::string text = "text number " + std::to_string(i) + ", on the heap";
      switch (i % 4) {
        case 0: kept.push_back(Value(text)); break;
        case 1: kept.push_back(Value::uuid(transit::Uuid{std::uint64_t(i), ~std::uint64_t(i)})); break;
        case 2: kept.push_back(Value::tagged("point", i % 8 == 2 ? outside_rep : Value(text))); break;
        default:
          kept.push_back(transit::ValueAccess::tagged(outside_tag, Value(text)));
          break;
      }
    }
  }
  // Documents read now take the pooled blocks of any arena let go: overwrite them.
  for (int i = 0; i < 4; ++i)
    (void)transit::read(R"(["overwrite any pooled block, with a long string", [1, 2, 3]])");
  for (int i = 0; i < 3000; ++i) {
    const std::string text = "text number " + std::to_string(i) + ", on the heap";
    const Value& v = kept[static_cast<std::size_t>(i)];
    switch (i % 4) {
      case 0: EXPECT_EQ(v.as_string(), text); break;
      case 1: EXPECT_EQ(v.as_uuid(), (transit::Uuid{std::uint64_t(i), ~std::uint64_t(i)})); break;
      case 2:
        ASSERT_EQ(v.kind(), Kind::tagged);
        EXPECT_EQ(v.tag(), "point");
        if (i % 8 == 2) {
          ASSERT_EQ(v.rep().size(), 2u);
          EXPECT_EQ(v.rep()[0].as_string(), long_text);
        } else {
          EXPECT_EQ(v.rep().as_string(), text);
        }
        break;
      default:
        ASSERT_EQ(v.kind(), Kind::tagged);
        EXPECT_EQ(v.tag(), "a tag from outside, longer than 13");
        EXPECT_EQ(v.rep().as_string(), text);
    }
  }
  kept.clear();
}

// A document read on this thread, shared by several threads that copy and drop its parts at
// once, while this thread reads more documents into arenas of their own.
TEST(ArenaCounts, ADocumentBuiltWithOpenCountsIsSharedByThreads) {
  const std::string json = records_json(200);
  const Value doc = transit::read(json);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&doc] {
      for (int round = 0; round < 50; ++round) {
        std::vector<Value> kept;
        for (std::size_t i = 0; i < doc.size(); ++i) kept.push_back(*doc[i].find(kw("id")));
        EXPECT_EQ(kept[7].as_string(), "order-1000000007-abcdefg");
      }
    });
  for (int i = 0; i < 20; ++i) EXPECT_EQ(transit::read(json).size(), 200u);
  for (std::thread& t : threads) t.join();
}

}  // namespace

namespace {

// The long array's heap slots become a node of the document's arena when it is finished. Left
// on the heap, they held a count on the arena for every cache hit in them while the arena held
// them as a child: a cycle, and every such document read leaked whole (1.6 MB each here).
TEST(Arena, ADocumentWithALongArrayIsFreedWhenDropped) {
  std::string json = R"([["~:a-keyword-in-the-arena"],[)";
  for (int i = 0; i < 70'000; ++i) json += i == 0 ? "\"^0\"" : ",\"^0\"";
  json += "]]";
  std::size_t growth = 0;
  std::thread([&] {
    (void)transit::read(json);  // the thread's pool and scratch reach their size
    const std::size_t before = heap_in_use();
    for (int i = 0; i < 10; ++i) {
      const Value doc = transit::read(json);
      ASSERT_EQ(doc[1].size(), 70'000u);
      EXPECT_GT(transit::ValueAccess::arena_bytes(doc), std::size_t{70'000} * sizeof(Value));
    }
    const std::size_t after = heap_in_use();
    growth = after > before ? after - before : 0;
  }).join();
  EXPECT_LT(growth, std::size_t{2} << 20);
}

}  // namespace

namespace {

// Copying or dropping a Value of a document counts on the document's arena, found from the
// Value's node: these tests keep Values from nodes in every kind of block a node can live in
// (a pooled block far larger than a fresh one, a long array's taken-over slots, blocks another
// document had) and check heap nodes' counts and the depths of both. (Round twenty-two's
// 16-byte headers, where a node found its arena through its block, passed them too; see
// docs/performance-log.md, "Value nodes of 16 bytes, round twenty-two".)

using transit::ValueAccess;

std::string text_of(int i) { return "a text longer than 13 bytes, number " + std::to_string(i); }

// A block from the pool can be far larger than the blocks an arena asks malloc for (1 MiB at
// most): a document's one large array gave it back. The nodes of the next document fill it,
// megabytes from its start.
TEST(ArenaNodes, ANodeMegabytesIntoAPooledBlockFindsItsArena) {
  // On a thread of its own, whose pool starts empty. MessagePack, whose counts reserve each
  // array's node at once in the arena.
  std::thread([] {
    std::size_t big_block = 0;
    {
      std::vector<Value> ints(400'000, Value(std::int64_t{1}));
      const Value doc = transit::read(
          transit::write(Value::array(std::move(ints)), Encoding::msgpack), Encoding::msgpack);
      big_block = ValueAccess::arena_bytes(doc);  // one node of 6.4 MB in its own block
    }
    ASSERT_GT(big_block, std::size_t{6} << 20);
    // 90,000 texts of 20 bytes and their array's node of 1.44 MB: 5.0-5.8 MB of nodes (with
    // headers of 16 or 24 bytes), all in the pooled block.
    auto text = [](int i) { return "text, number " + std::to_string(1'000'000 + i); };
    std::vector<Value> texts;
    for (int i = 0; i < 90'000; ++i) texts.emplace_back(text(i));
    const std::string bytes = transit::write(Value::array(std::move(texts)), Encoding::msgpack);
    Value first, last;
    {
      const Value doc = transit::read(bytes, Encoding::msgpack);
      first = doc[0];
      last = doc[89'999];
      ASSERT_EQ(ValueAccess::arena_bytes(doc), big_block);
      ASSERT_GT(ValueAccess::arena_used_bytes(doc), std::size_t{4} << 20);
    }
    // The document lives on in `first` and `last` (counts on its arena, through the block).
    for (int i = 0; i < 4; ++i) (void)transit::read(R"(["overwrite any pooled block, with a long string"])");
    Value copy = last;
    EXPECT_EQ(copy.as_string(), text(89'999));
    EXPECT_EQ(first.as_string(), text(0));
    first = Value();
    copy = Value();
    EXPECT_EQ(last.as_string(), text(89'999));
  }).join();
}

// A long array read with no count grows in slots of its own on the heap, which the document's
// arena takes over as it is finished (Arena::take_over).
TEST(ArenaNodes, ALongArraysTakenOverSlotsFindTheirArena) {
  std::string json = "[[";
  for (int i = 0; i < 70'000; ++i) json += (i ? ",\"" : "\"") + text_of(i) + "\"";
  json += "],\"" + text_of(-1) + "\"]";
  Value long_array, item;
  {
    transit::test::StepSource source(json, 64 * 1024);
    transit::Reader reader(source, Encoding::json);
    const std::optional<Value> doc = reader.next();
    ASSERT_TRUE(doc.has_value());
    long_array = (*doc)[0];
    item = long_array[69'999];
    EXPECT_EQ(ValueAccess::arena_bytes(long_array), ValueAccess::arena_bytes(*doc));
    EXPECT_EQ(ValueAccess::arena_bytes(item), ValueAccess::arena_bytes(*doc));
  }
  for (int i = 0; i < 4; ++i) (void)transit::read(R"(["overwrite any pooled block, with a long string"])");
  ASSERT_EQ(long_array.size(), 70'000u);
  EXPECT_EQ(long_array.depth(), 1u);
  EXPECT_EQ(long_array[0].as_string(), text_of(0));
  EXPECT_EQ(item.as_string(), text_of(69'999));
  // The array holds the arena that holds it: dropping the last Value frees both (LeakSanitizer
  // in the sanitizer build checks that it does).
  item = Value();
  long_array = Value();
}

// With a user's read handler no arena is open: a long array's growable slots become a heap
// node.
TEST(ArenaNodes, ALongArraysGrowableSlotsWithNoArenaBecomeAHeapNode) {
  transit::ReadHandlers handlers;
  handlers.add("point", [](const Value& rep) { return rep; });
  transit::ReadOptions options;
  options.handlers = &handlers;
  std::string json = "[";
  for (int i = 0; i < 70'000; ++i) json += (i ? ",[\"" : "[\"") + text_of(i) + "\"]";
  json += "]";
  transit::test::StepSource source(json, 64 * 1024);
  transit::Reader reader(source, Encoding::json, options);
  std::optional<Value> doc = reader.next();
  ASSERT_TRUE(doc.has_value());
  EXPECT_EQ(ValueAccess::arena_bytes(*doc), 0u);
  ASSERT_EQ(doc->size(), 70'000u);
  EXPECT_EQ(doc->depth(), 2u);
  Value last = (*doc)[69'999];
  doc.reset();
  EXPECT_EQ(last[0].as_string(), text_of(69'999));
}

// Blocks go back to their thread's pool when a document goes, and the next document's arena
// takes them. A value copied out of that document counts on its arena, not on the one gone
// before (AddressSanitizer in the sanitizer build would see the old arena used after it was
// freed).
TEST(ArenaNodes, AValueCopiedFromADocumentInReusedBlocksCountsOnItsOwnArena) {
  const std::string json = records_json(500);
  std::thread([&json] {
    (void)transit::read(json);  // the first document: its blocks go back to the pool
    Value id, record;
    {
      const Value doc = transit::read(json);  // in the first document's blocks
      id = *doc[7].find(kw("id"));
      record = doc[499];
    }
    for (int i = 0; i < 4; ++i) (void)transit::read(json);  // other arenas, other blocks
    EXPECT_EQ(id.as_string(), "order-1000000007-abcdefg");
    EXPECT_EQ(record.find(kw("n"))->as_int(), 499);
    std::vector<Value> copies(100, id);
    id = Value();
    EXPECT_EQ(copies.back().as_string(), "order-1000000007-abcdefg");
  }).join();
}

// A heap node counts its Values, and is freed once, with the last (from any thread); depths
// are the same in a document and in its detached copy.
TEST(ArenaNodes, HeapNodesCountTheirValuesAndDepthsAgreeWithDetachedCopies) {
  static int destroyed = 0;
  struct Tracked {
    Tracked() = default;
    Tracked(const Tracked&) = default;
    ~Tracked() { ++destroyed; }
    bool operator==(const Tracked&) const { return true; }
  };
  destroyed = 0;
  int after_build = 0;
  {
    const Value obj = Value::object(Tracked{});
    after_build = destroyed;  // the temporaries moved from
    std::vector<Value> copies(1000, obj);
    std::thread([copies]() mutable { copies.clear(); }).join();
    copies.clear();
    EXPECT_EQ(destroyed, after_build);  // still held by `obj`
    EXPECT_EQ(ValueAccess::arena_bytes(obj), 0u);
  }
  EXPECT_EQ(destroyed, after_build + 1);  // freed with its last Value, once

  const Value read = transit::read(R"([[["a text longer than 13 bytes"]], ["~#set", [[1], [1], [[2]]]]])");
  const Value heap = read.detach();
  EXPECT_GT(ValueAccess::arena_bytes(read), 0u);
  EXPECT_EQ(ValueAccess::arena_bytes(heap), 0u);
  EXPECT_EQ(read.depth(), 4u);
  EXPECT_EQ(heap.depth(), 4u);
  EXPECT_EQ(read[0].depth(), 2u);
  // The set was made in place from its array's node (duplicates dropped, height measured
  // again): the node stays the arena's.
  ASSERT_EQ(read[1].kind(), Kind::set);
  EXPECT_EQ(read[1].size(), 2u);
  EXPECT_EQ(read[1].depth(), 3u);
  EXPECT_EQ(ValueAccess::arena_bytes(read[1]), ValueAccess::arena_bytes(read));
  Value set = read[1];
  EXPECT_EQ(set, heap[1]);
}

}  // namespace
