// SPDX-License-Identifier: Apache-2.0
// Typed reads of JSON in memory on a bounded tape (ReadOptions::typed_batch_tokens): the
// value is taped a batch at a time as the binder reaches the end of the tokens so far, and
// every read, and every error, is what the whole tape gives.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <variant>
#include <vector>

#include "transit/transit.h"

namespace {

struct Seat {
  std::int64_t row = 0;
  std::string name;
  std::optional<std::string> note;
  std::vector<std::int64_t> prices;
  bool open = false;
};

// Read by a user's Bind that looks ahead and seeks back: [x, y] or {"x": .., "y": ..}.
struct Point {
  std::int64_t x = 0;
  std::int64_t y = 0;
  bool operator==(const Point&) const = default;
};

}  // namespace

template <>
struct transit::Bind<Point> {
  static Point read(transit::detail::Cursor& c) {
    const std::size_t at = c.position();
    // Looks at the whole value first (its tokens may span batches), then reads it from the
    // start: the tokens from `at` on must still be there.
    std::size_t tokens = 0;
    c.skip();
    tokens = c.position() - at;
    c.seek(at);
    if (c.peek().op == transit::detail::Op::array_begin) {
      auto xy = transit::Bind<std::vector<std::int64_t>>::read(c);
      if (xy.size() != 2 || tokens != 4) c.fail(at, "a point has two numbers");
      return {xy[0], xy[1]};
    }
    auto m = transit::Bind<std::map<std::string, std::int64_t>>::read(c);
    return {m.at("x"), m.at("y")};
  }
};

namespace {

using transit::Encoding;
using transit::Value;

const transit::Record<Seat>& seat_record() {
  static const auto r = transit::Record<Seat>("seat")
                            .field(&Seat::row, "row")
                            .field(&Seat::name, "name")
                            .field(&Seat::note, "note")
                            .field(&Seat::prices, "prices")
                            .field(&Seat::open, "open");
  return r;
}

transit::ReadOptions batched(std::size_t tokens, const transit::ReadHandlers* handlers = nullptr) {
  transit::ReadOptions o;
  o.typed_batch_tokens = tokens;
  o.handlers = handlers;
  return o;
}

// The outcome of a typed read: the value written back as JSON, or the error's message.
template <class T>
std::string outcome(const std::string& text, transit::ReadOptions options) {
  try {
    return "ok " + transit::write(transit::read<T>(text, Encoding::json, options), Encoding::json);
  } catch (const transit::Error& e) {
    return std::string("error ") + e.what() + " path " + e.path();
  }
}

// Batches of 1, 2, 3, 5, 16 and 4096 tokens read `text` as the whole tape does.
template <class T>
void expect_batches_read_as_whole(const std::string& text, transit::ReadOptions options = {}) {
  options.typed_batch_tokens = 0;
  const std::string whole = outcome<T>(text, options);
  for (std::size_t batch : {1, 2, 3, 5, 16, 4096}) {
    options.typed_batch_tokens = batch;
    EXPECT_EQ(outcome<T>(text, options), whole) << "batch " << batch << ": " << text.substr(0, 200);
  }
}

std::vector<Seat> many_seats(std::size_t n) {
  std::vector<Seat> seats(n);
  for (std::size_t i = 0; i < n; ++i) {
    seats[i].row = static_cast<std::int64_t>(i);
    seats[i].name = "seat-" + std::to_string(i % 37);  // repeated: cached... as values, not
    if (i % 3 == 0) seats[i].note = "note " + std::to_string(i);
    for (std::size_t k = 0; k < i % 5; ++k) seats[i].prices.push_back(static_cast<std::int64_t>(k * i));
    seats[i].open = i % 2 == 0;
  }
  return seats;
}

TEST(TypedBatch, DefaultOfTheBuildIsUsed) {
  EXPECT_EQ(transit::ReadOptions{}.typed_batch_tokens, std::size_t{TRANSIT_TYPED_BATCH_TOKENS});
}

TEST(TypedBatch, DocumentsLargerThanABatchReadAsTheWholeTape) {
  transit::RegistryBuilder b;
  b.add(seat_record());
  const transit::Registry reg = std::move(b).freeze();
  transit::ReadHandlers handlers;
  handlers.add(seat_record());
  const std::vector<Seat> seats = many_seats(500);
  const std::string text = transit::write(seats, Encoding::json, {.registry = &reg});
  // The tape of 500 seats is thousands of tokens: a batch of 256 takes many.
  auto read = [&](std::size_t batch) {
    return transit::read<std::vector<Seat>>(text, Encoding::json, batched(batch, &handlers));
  };
  const std::vector<Seat> whole = read(0);
  ASSERT_EQ(whole.size(), seats.size());
  for (std::size_t batch : {1, 2, 3, 7, 64, 4096}) {
    const std::vector<Seat> got = read(batch);
    ASSERT_EQ(got.size(), seats.size());
    for (std::size_t i = 0; i < seats.size(); ++i) {
      EXPECT_EQ(got[i].row, seats[i].row);
      EXPECT_EQ(got[i].name, seats[i].name);
      EXPECT_EQ(got[i].note, seats[i].note);
      EXPECT_EQ(got[i].prices, seats[i].prices);
      EXPECT_EQ(got[i].open, seats[i].open);
    }
  }
  expect_batches_read_as_whole<Value>(text);
  expect_batches_read_as_whole<std::vector<std::map<transit::Keyword, Value>>>(
      transit::write(transit::read(text), Encoding::json));
}

TEST(TypedBatch, CacheCodesNameStringsOfADroppedBatch) {
  // Keys cached at the first map, named by their codes (^0, ^1 ...) hundreds of tokens later,
  // long after the batch that held their text was dropped.
  std::string text = "[";
  for (int i = 0; i < 300; ++i) {
    if (i) text += ",";
    text += i == 0 ? R"(["^ ","alpha",1,"bravo","x","charlie",[1,2]])"
                   : R"(["^ ","^0",)" + std::to_string(i) + R"(,"^1","y","^2",[3]])";
  }
  text += "]";
  expect_batches_read_as_whole<std::vector<std::map<std::string, Value>>>(text);
  expect_batches_read_as_whole<Value>(text);
  const auto got = transit::read<std::vector<std::map<std::string, Value>>>(text, Encoding::json,
                                                                             batched(2));
  ASSERT_EQ(got.size(), 300u);
  EXPECT_EQ(got[299].at("alpha"), Value(std::int64_t{299}));
  EXPECT_EQ(got[299].at("bravo"), Value("y"));
}

// "[1,2,...,n]" and the same with `last` as its last item.
std::string ints(int n, const std::string& last = "") {
  std::string s = "[";
  for (int i = 1; i <= n; ++i) s += (i > 1 ? "," : "") + std::to_string(i);
  if (!last.empty()) s += "," + last;
  return s + "]";
}

TEST(TypedBatch, LongLookAheadKeepsItsTokens) {
  // Look-ahead over many more tokens than a batch and than the tokens a refill keeps anyway.
  using V = std::variant<std::vector<std::int64_t>, std::vector<Value>>;
  expect_batches_read_as_whole<std::vector<V>>("[" + ints(40, "\"x\"") + "," + ints(40) + "]");
  expect_batches_read_as_whole<std::pair<std::vector<int>, std::string>>("[" + ints(40) + ",\"s\"]");
  expect_batches_read_as_whole<std::tuple<std::vector<int>, int>>("[" + ints(40) + ",7]");
  expect_batches_read_as_whole<std::vector<Point>>("[" + std::string(R"(["^ ","x",1,"y",2,"pad",)") +
                                                   ints(40) + "]]");
  transit::ReadHandlers handlers;
  handlers.add(seat_record());
  expect_batches_read_as_whole<std::vector<Seat>>(
      R"([["^ ","~:row",1,"~:name","a","~:prices",)" + ints(40, "\"x\"") + R"(,"~:open",true]])",
      batched(0, &handlers));
  expect_batches_read_as_whole<std::vector<Seat>>(
      R"([["^ ","~:row",1,"~:name","a","~:prices",)" + ints(40, "4.5") + R"(,"~:open",true]])",
      batched(0, &handlers));
}

TEST(TypedBatch, LookAheadAcrossABatchBoundary) {
  // Variants try each alternative from the value's start; pairs, tuples and arrays count
  // their items and then read them from the first; a vector of integers that is not one is
  // read again by the field's call.
  using V = std::variant<std::vector<std::int64_t>, std::vector<std::string>, std::map<std::string, Value>>;
  expect_batches_read_as_whole<std::vector<V>>(
      R"([[1,2,3,4,5],["a","b","c"],{"k":[1,2,3]},[1,2,"x"],[]])");
  expect_batches_read_as_whole<std::vector<std::pair<std::string, std::vector<int>>>>(
      R"([["a",[1,2,3,4]],["b",[5,6,7,8,9]],["c",[]]])");
  expect_batches_read_as_whole<std::tuple<int, std::array<int, 4>, std::string>>(
      R"([1,[2,3,4,5],"six"])");
  expect_batches_read_as_whole<std::vector<std::pair<int, int>>>(R"([[1,2],[3,4,5]])");  // error
  transit::ReadHandlers handlers;
  handlers.add(seat_record());
  // prices holds a string: read_int64_items seeks back, and the field's call reports it.
  expect_batches_read_as_whole<std::vector<Seat>>(
      R"([["^ ","~:row",1,"~:name","a","~:prices",[1,2,3,4,5,6],"~:open",true],)"
      R"(["^ ","~:row",2,"~:name","b","~:prices",[1,2,3,"x"],"~:open",true]])",
      batched(0, &handlers));
}

TEST(TypedBatch, AUsersBindSeeksBackAcrossABatchBoundary) {
  expect_batches_read_as_whole<std::vector<Point>>(
      R"([[1,2],["^ ","x",3,"y",4],[5,6],["^ ","y",8,"x",7]])");
  const auto got = transit::read<std::vector<Point>>(
      R"([[1,2],["^ ","x",3,"y",4],[5,6],["^ ","y",8,"x",7]])", Encoding::json, batched(1));
  EXPECT_EQ(got, (std::vector<Point>{{1, 2}, {3, 4}, {5, 6}, {7, 8}}));
  // Its failure is placed as ever.
  expect_batches_read_as_whole<std::vector<Point>>(R"([[1,2],[1,2,3],[5,6]])");
}

TEST(TypedBatch, ErrorsAfterTheFirstBatchArePlacedAsOnTheWholeTape) {
  std::string head = "[";
  for (int i = 0; i < 50; ++i) head += "[" + std::to_string(i) + ",\"s" + std::to_string(i) + "\"],";
  const char* tails[] = {
      R"([1,"x"],[2,3]])",                          // a type mismatch
      R"(["^ ","a",1,"b"]])",                       // an odd map array
      R"(["^9",1]])",                               // an unassigned cache code
      R"([1,["~#cmap",[1,2,3]]]])",                 // an odd cmap
      R"([1,"~#tag"],[2,"x"]])",                    // a tag not first
      R"([1,"x"],[2,"y"])",                         // truncated
      R"([1,"x"],[2,"y"]]])",                       // trailing bytes
      R"([1,"x"],[2,"y" "z"]])",                    // bad syntax
      R"([1,"x"],[2,"~zz"]])",                      // a bad ~ form
      R"([1,"x"],[2,["~#'",1,2]]])",                // a quote of two reps
  };
  for (const char* tail : tails) {
    expect_batches_read_as_whole<std::vector<std::pair<int, std::string>>>(head + tail);
    expect_batches_read_as_whole<std::vector<std::pair<int, Value>>>(head + tail);
    expect_batches_read_as_whole<Value>(head + tail);
  }
  // Deeper than the limit after the first batch.
  transit::ReadOptions shallow;
  shallow.max_depth = 4;
  expect_batches_read_as_whole<Value>(head + R"([1,[[[[[2]]]]]]])", shallow);
  transit::ReadOptions few;
  few.max_collection_length = 60;
  expect_batches_read_as_whole<Value>(head + R"([1,"x"],[2,"y"],[3,"z"]])", few);
}

TEST(TypedBatch, ReaderReadsValuesOneAfterAnother) {
  // One value per Reader::next<T>, each bounded, in one text.
  const std::string text = R"([1,2,3,4,5,6,7,8] ["^ ","a",[1,2,3],"b",[4]] [9,10])";
  transit::Reader r(text, Encoding::json, batched(2));
  EXPECT_EQ(r.next<std::vector<int>>(), (std::vector<int>{1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_EQ((r.next<std::map<std::string, std::vector<int>>>()),
            (std::map<std::string, std::vector<int>>{{"a", {1, 2, 3}}, {"b", {4}}}));
  EXPECT_EQ(r.next<std::vector<int>>(), (std::vector<int>{9, 10}));
  EXPECT_EQ(r.next<std::vector<int>>(), std::nullopt);
}

}  // namespace
