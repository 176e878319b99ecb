// SPDX-License-Identifier: Apache-2.0
// The decoder driven by events directly, for what no backend of this library sends yet: a
// `"^ "` map array whose item count is announced (a JSON backend that knows its counts may).
#include <gtest/gtest.h>

#include <string>

#include "decoder.h"
#include "transit/transit.h"
#include "value_internal.h"

namespace transit::detail {
namespace {

// ["^ ", "a", 1, "long...", "x", "a", 3]: its 7 items announced.
Value read_map_array(Decoder& d, const std::string& long_key) {
  d.reset();
  d.array_begin(7);
  d.string("^ ");
  d.string("a");
  d.integer(1);
  d.string(long_key);
  d.string("x");
  d.string("a");
  d.integer(3);
  d.array_end();
  EXPECT_TRUE(d.done());
  return d.take();
}

TEST(DecoderCounts, AnnouncedMapArrayIsBuiltInItsNodeWithoutDuplicates) {
  const std::string long_key(30, 'k');
  const Value expected = Value::map({{"a", 3}, {long_key, "x"}});
  Decoder d{ReadOptions{}};
  {
    const Value heap = read_map_array(d, long_key);
    EXPECT_EQ(heap, expected);
    EXPECT_EQ(heap.entries()[0].first, Value("a"));
  }
  Value kept;
  {
    ArenaScope arena;
    kept = read_map_array(d, long_key);
  }
  EXPECT_EQ(kept, expected);
  EXPECT_EQ(kept.entries()[1].first, Value(long_key));
}

TEST(DecoderCounts, MapArrayWithMoreEntriesThanAnnouncedFails) {
  Decoder d{ReadOptions{}};
  d.reset();
  d.array_begin(3);
  d.string("^ ");
  d.string("a");
  d.integer(1);
  try {
    d.string("b");
    FAIL() << "an entry beyond the count was taken";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::syntax);
    EXPECT_NE(std::string(e.what()).find("map has more entries than the 1 it announced"),
              std::string::npos)
        << e.what();
  }
  // An odd count cannot be a map array: it is read on the stack, and found odd at its end.
  d.reset();
  d.array_begin(4);
  d.string("^ ");
  d.string("a");
  d.integer(1);
  d.string("b");
  try {
    d.array_end();
    FAIL() << "an odd map array was read";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::odd_map);
  }
}

}  // namespace
}  // namespace transit::detail
