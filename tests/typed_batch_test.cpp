// SPDX-License-Identifier: Apache-2.0
// Typed reads of JSON in memory on a bounded tape (ReadOptions::typed_batch_tokens): the
// value is taped a batch at a time as the binder reaches the end of the tokens so far, and
// every read, and every error, is what the whole tape gives.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <variant>
#include <vector>

#include "testing.h"
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

TEST(TypedBatch, TheDefaultIsTheLibrarys) {
  EXPECT_EQ(transit::ReadOptions{}.typed_batch_tokens, transit::ReadOptions::kLibraryDefault);
  // Read with the library's batch, whatever this binary made it: as the whole tape reads.
  const std::string text = "[" + std::string(R"(["^ ","a",[1,2,3],"b",[4]],)") + "[5,6]]";
  transit::ReadOptions whole;
  whole.typed_batch_tokens = 0;
  EXPECT_EQ(outcome<std::vector<Value>>(text, {}), outcome<std::vector<Value>>(text, whole));
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

// How many times one typed read of `text` as T was read again whole (its outcome is dropped).
template <class T>
std::size_t rereads_of(const std::string& text, transit::ReadOptions options) {
  const std::size_t before = transit::detail::testing::whole_rereads();
  (void)outcome<T>(text, options);
  return transit::detail::testing::whole_rereads() - before;
}

// Batches of 1 to 8 tokens read `text` as T as the whole tape does, and never read it again
// whole: every token a binder went back to was still on the tape (pinned). A missing pin
// fails here: the seek into a dropped token stops the bounded read, and the whole re-read
// then gives the right outcome, which the other tests cannot tell from a bounded one.
template <class T>
void expect_no_reread(const std::string& text, transit::ReadOptions options = {}) {
  options.typed_batch_tokens = 0;
  const std::string whole = outcome<T>(text, options);
  for (std::size_t batch = 1; batch <= 8; ++batch) {
    options.typed_batch_tokens = batch;
    const std::size_t before = transit::detail::testing::whole_rereads();
    EXPECT_EQ(outcome<T>(text, options), whole) << "batch " << batch << ": " << text.substr(0, 200);
    EXPECT_EQ(transit::detail::testing::whole_rereads() - before, 0u)
        << "batch " << batch << ": " << text.substr(0, 200);
  }
}

TEST(TypedBatch, LookAheadNeedsNoWholeReread) {
  // A variant tries each alternative from the value's start: the first fails 40 tokens in.
  using V = std::variant<std::vector<std::int64_t>, std::vector<Value>>;
  expect_no_reread<std::vector<V>>("[" + ints(40, "\"x\"") + "," + ints(40) + "]");
  using W = std::variant<std::vector<std::int64_t>, std::vector<std::string>, std::map<std::string, Value>>;
  expect_no_reread<std::vector<W>>(R"([[1,2,3,4,5],["a","b","c"],{"k":[1,2,3]},[1,2],[]])");
  // Pairs, tuples and std::arrays count their items, then read them from the first.
  expect_no_reread<std::pair<std::vector<int>, std::string>>("[" + ints(40) + ",\"s\"]");
  expect_no_reread<std::vector<std::pair<std::string, std::vector<int>>>>(
      R"([["a",[1,2,3,4]],["b",[5,6,7,8,9]],["c",[]]])");
  expect_no_reread<std::tuple<std::vector<int>, int>>("[" + ints(40) + ",7]");
  expect_no_reread<std::tuple<int, std::array<int, 4>, std::string>>(R"([1,[2,3,4,5],"six"])");
  expect_no_reread<std::array<std::vector<int>, 2>>("[" + ints(40) + "," + ints(20) + "]");
  // A user's Bind looks at the whole value (40 tokens of padding), then reads it from the start.
  std::string padded = R"([["^ ","x",1,"y",2)";
  for (int i = 0; i < 20; ++i) padded += ",\"p" + std::to_string(i) + "\"," + std::to_string(i);
  expect_no_reread<std::vector<Point>>(padded + "],[3,4]]");
  expect_no_reread<std::vector<Point>>(R"([[1,2],["^ ","x",3,"y",4],[5,6],["^ ","y",8,"x",7]])");
}

TEST(TypedBatch, RecordsNeedNoWholeReread) {
  transit::ReadHandlers handlers;
  handlers.add(seat_record());
  transit::RegistryBuilder b;
  b.add(seat_record());
  const transit::Registry reg = std::move(b).freeze();
  // Optional fields present and missing, vectors of integers long and empty, tagged and plain.
  const std::string text = transit::write(many_seats(40), Encoding::json, {.registry = &reg});
  expect_no_reread<std::vector<Seat>>(text, batched(0, &handlers));
  expect_no_reread<std::vector<Seat>>(
      R"([["^ ","~:row",1,"~:name","a","~:prices",)" + ints(40) + R"(,"~:open",true],)"
      R"(["^ ","~:name","b","~:row",2,"~:note","n","~:open",false,"~:prices",[]]])",
      batched(0, &handlers));
}

// Read by a Bind that reads an integer, then throws, counting its runs.
struct Grumpy {};
int grumpy_runs = 0;

}  // namespace

template <>
struct transit::Bind<Grumpy> {
  static Grumpy read(transit::detail::Cursor& c) {
    ++grumpy_runs;
    (void)transit::Bind<std::int64_t>::read(c);
    throw std::runtime_error("grumpy");
  }
};

namespace {

TEST(TypedBatch, AStoppedBoundedReadIsReadAgainWholeOnce) {
  if (!transit::detail::testing::built_with_simdjson())
    GTEST_SKIP() << "a bounded typed read walks simdjson's document; this library has none";
  using Pairs = std::vector<std::pair<int, int>>;
  using Throws = std::pair<std::vector<int>, Grumpy>;
  for (std::size_t batch = 1; batch <= 8; ++batch) {
    // A user's Bind that throws, 40 items in: it runs again on the whole tape, and throws.
    const std::size_t before = transit::detail::testing::whole_rereads();
    grumpy_runs = 0;
    EXPECT_THROW((void)transit::read<Throws>("[" + ints(40) + ",1]", Encoding::json, batched(batch)),
                 std::runtime_error);
    EXPECT_EQ(grumpy_runs, 2) << "batch " << batch;
    EXPECT_EQ(transit::detail::testing::whole_rereads() - before, 1u) << "batch " << batch;
    // A bind failure after the first batch: the whole tape places its error.
    EXPECT_EQ(rereads_of<Pairs>(R"([[1,2],[3,4],[5,6],[7,8,9]])", batched(batch)), 1u)
        << "batch " << batch;
    // read_int64_items's seek-back, which always ends in the field's call failing.
    transit::ReadHandlers handlers;
    handlers.add(seat_record());
    EXPECT_EQ(rereads_of<std::vector<Seat>>(
                  R"([["^ ","~:row",1,"~:name","a","~:prices",)" + ints(40, "\"x\"") + R"(,"~:open",true]])",
                  batched(batch, &handlers)),
              1u)
        << "batch " << batch;
  }
  // The whole tape is never read again.
  EXPECT_EQ(rereads_of<Pairs>(R"([[1,2],[3,4],[5,6],[7,8,9]])", batched(0)), 0u);
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
