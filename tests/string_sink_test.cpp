// SPDX-License-Identifier: Apache-2.0
// Writers encode straight into a StringSink's string (Sink::open_region): the bytes are those a
// chunked sink receives, the string holds complete values only, and a value that fails leaves
// it exactly as it was, however large the value had grown.
#include <gtest/gtest.h>

#include <algorithm>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "io/string_size.h"
#include "transit/transit.h"

namespace {

using transit::Encoding;
using transit::Value;

constexpr Encoding kAll[] = {Encoding::json, Encoding::json_verbose, Encoding::msgpack};

/// A user sink with no memory of its own: it keeps the chunks it is handed.
struct ChunkSink final : transit::Sink {
  std::vector<std::string> chunks;
  void write(const char* data, std::size_t size) override { chunks.emplace_back(data, size); }
  std::string joined() const {
    std::string all;
    for (const std::string& c : chunks) all += c;
    return all;
  }
};

/// Strings, keywords, numbers and nested maps, about `n` items: larger than any small buffer.
Value document(int n) {
  std::vector<Value> items;
  for (int i = 0; i < n; ++i)
    items.push_back(
        Value::map({{transit::kw("id"), i},
                    {transit::kw("name"), "item " + std::to_string(i)},
                    {transit::kw("score"), i * 0.5},
                    {transit::kw("tags"), Value::array({transit::kw("a"), "~tilde"})}}));
  return Value::array(std::move(items));
}

/// Arrays nested `levels` deep around 1.
Value nested(int levels) {
  Value v(1);
  for (int i = 0; i < levels; ++i) v = Value::array({v});
  return v;
}

/// A value that fails with too_deep only after more than 100 KB of it have been written.
Value fails_late() {
  return Value::array({Value(std::string(100'000, 'x')), document(200), nested(600)});
}

TEST(StringSinkWrite, BytesAreThoseAChunkedSinkReceives) {
  const std::vector<Value> values = {Value(1), document(3), document(2000), Value("x"),
                                     document(400)};
  for (Encoding e : kAll) {
    SCOPED_TRACE(transit::encoding_name(e));
    for (std::size_t buffer : {std::size_t{256}, std::size_t{64 * 1024}}) {
      transit::WriteOptions options;
      options.buffer_size = buffer;
      ChunkSink chunks;
      std::string out;
      {
        transit::Writer chunked(chunks, e, options);
        transit::StringSink sink(out);
        transit::Writer direct(sink, e, options);
        for (const Value& v : values) {
          chunked.write(v);
          direct.write(v);
        }
        chunked.flush();
        direct.flush();
      }
      EXPECT_EQ(out, chunks.joined());
      for (const Value& v : values) EXPECT_EQ(transit::write(v, e, options), transit::write(v, e));
    }
  }
}

TEST(StringSinkWrite, TheStringHoldsEachValueAsSoonAsItEnds) {
  for (Encoding e : kAll) {
    SCOPED_TRACE(transit::encoding_name(e));
    std::string out = "prefix";
    transit::StringSink sink(out);
    transit::Writer writer(sink, e);
    writer.write(Value(1));
    EXPECT_EQ(out, "prefix" + transit::write(Value(1), e));
    writer.write(document(500));
    EXPECT_EQ(out, "prefix" + transit::write(Value(1), e) + transit::write(document(500), e));
    // Cleared between writes (a service reusing one string): the next value starts it again.
    out.clear();
    writer.write(Value("again"));
    EXPECT_EQ(out, transit::write(Value("again"), e));
    writer.flush();
    EXPECT_EQ(out, transit::write(Value("again"), e));
  }
}

TEST(StringSinkWrite, AFailedValueLeavesTheStringExactlyAsItWas) {
  for (Encoding e : kAll) {
    SCOPED_TRACE(transit::encoding_name(e));
    for (std::size_t buffer : {std::size_t{256}, std::size_t{64 * 1024}}) {
      transit::WriteOptions options;
      options.buffer_size = buffer;
      std::string out;
      transit::StringSink sink(out);
      transit::Writer writer(sink, e, options);
      // The first failure comes before anything, the second after values, both after the
      // string had to grow several times for the failed value alone.
      EXPECT_THROW(writer.write(fails_late()), transit::Error);
      EXPECT_EQ(out, "");
      writer.write(document(2));
      writer.write(Value(7));
      const std::string before = out;
      try {
        writer.write(fails_late());
        FAIL() << "expected too_deep";
      } catch (const transit::Error& err) {
        EXPECT_EQ(err.code(), transit::Errc::too_deep);
      }
      EXPECT_EQ(out, before);
      writer.write(Value("after"));
      writer.flush();
      EXPECT_EQ(out, before + transit::write(Value("after"), e));
    }
  }
}

TEST(StringSinkWrite, AFailedCppValueLeavesNothingEither) {
  // Written directly, with no Value around it: 200 KB of text, then arrays too deep.
  const std::vector<Value> fails = {Value(std::string(200'000, 'y')), nested(10)};
  transit::WriteOptions options;
  options.max_depth = 5;
  std::string out;
  transit::StringSink sink(out);
  transit::Writer writer(sink, Encoding::msgpack, options);
  writer.write(std::vector<int>{1, 2});
  const std::string before = out;
  EXPECT_THROW(writer.write(fails), transit::Error);
  EXPECT_EQ(out, before);
  EXPECT_EQ(before, transit::write(std::vector<int>{1, 2}, Encoding::msgpack));
}

TEST(ChunkSinkWrite, AUserSinkStillReceivesChunksAndSpilledBytesStay) {
  transit::WriteOptions options;
  options.buffer_size = 1024;
  ChunkSink chunks;
  transit::Writer writer(chunks, Encoding::msgpack, options);
  writer.write(document(300));
  writer.flush();
  const std::string expected = transit::write(document(300), Encoding::msgpack);
  EXPECT_EQ(chunks.joined(), expected);
  ASSERT_GT(chunks.chunks.size(), 2u);
  for (const std::string& c : chunks.chunks) EXPECT_LE(c.size(), 1024u);
  // A value larger than the buffer that fails has handed its first bytes on, as documented;
  // what was still buffered of it is dropped.
  chunks.chunks.clear();
  EXPECT_THROW(writer.write(fails_late()), transit::Error);
  writer.flush();
  EXPECT_GT(chunks.joined().size(), 100'000u);
}

TEST(ChunkSinkWrite, NoValueIsWrittenAfterThePartOfOneThatFailed) {
  // A value written after a partial one would be lost to every reader (a JSON reader stops at
  // the junction with a syntax error, a MessagePack one reads its bytes as the rest of the
  // partial value), while the writer said it was written: the writer refuses it instead.
  for (const Encoding encoding : kAll) {
    SCOPED_TRACE(static_cast<int>(encoding));
    ChunkSink chunks;
    transit::Writer writer(chunks, encoding);
    writer.write(std::vector<int>{1, 2});
    EXPECT_THROW(writer.write(fails_late()), transit::Error);
    const std::size_t held = chunks.joined().size();
    try {
      writer.write(std::string("after"));
      ADD_FAILURE() << "a value was written after a partial one";
    } catch (const transit::Error& e) {
      EXPECT_EQ(e.code(), transit::Errc::io);
      EXPECT_NE(std::string(e.what()).find("the output ends with the first "), std::string::npos)
          << e.what();
    }
    EXPECT_THROW(writer.write(Value("after")), transit::Error);
    writer.flush();
    EXPECT_EQ(chunks.joined().size(), held);
  }
  // A value that fails within the buffer leaves nothing, and the writer goes on.
  ChunkSink chunks;
  transit::WriteOptions options;
  options.max_depth = 5;
  transit::Writer writer(chunks, Encoding::json, options);
  EXPECT_THROW(writer.write(nested(10)), transit::Error);
  writer.write(std::vector<int>{1, 2});
  writer.flush();
  EXPECT_EQ(chunks.joined(), "[1,2]");
}

/// A user sink with memory of its own: a vector that grows by doubling, as a caller's arena or
/// ring buffer might.
struct VectorSink final : transit::Sink {
  std::vector<char> bytes;
  std::size_t output = 0;
  int commits = 0;
  void write(const char* data, std::size_t size) override {
    bytes.resize(output);
    bytes.insert(bytes.end(), data, data + size);
    output = bytes.size();
  }
  std::span<char> open_region(std::size_t, std::size_t size) override {
    if (bytes.size() < output + size) bytes.resize(std::max(output + size, 2 * bytes.size()));
    return {bytes.data() + output, bytes.size() - output};
  }
  void commit_region(std::size_t n) noexcept override {
    output += n;
    ++commits;
  }
  std::string text() const { return {bytes.data(), output}; }
};

TEST(UserSinkWrite, ASinkThatOpensRegionsGetsEachValueCommittedWhole) {
  for (Encoding e : kAll) {
    SCOPED_TRACE(transit::encoding_name(e));
    transit::WriteOptions options;
    options.buffer_size = 256;
    VectorSink sink;
    transit::Writer writer(sink, e, options);
    writer.write(document(100));
    writer.write(Value(3));
    EXPECT_THROW(writer.write(fails_late()), transit::Error);
    writer.write(Value("end"));
    writer.flush();
    EXPECT_EQ(sink.text(), transit::write(document(100), e) + transit::write(Value(3), e) +
                               transit::write(Value("end"), e));
    // One commit per value: three whole values, and the failed one dropped with commit(0).
    EXPECT_EQ(sink.commits, 4);
  }
}

}  // namespace

// The writer asks for room generously (JSON reserves 6 bytes a character of a text, for
// escapes) and the string grows by doubling while a value is written; what a returned string
// keeps must stay close to what it holds, not to the room asked for along the way.
TEST(StringSinkWrite, AReturnedStringKeepsLittleMoreThanItHolds) {
  const Value big_text(std::string(4'000'000, 'x'));
  for (Encoding e : kAll) {
    SCOPED_TRACE(transit::encoding_name(e));
    const std::string out = transit::write(big_text, e);
    EXPECT_GE(out.size(), 4'000'000u);
    EXPECT_LE(out.capacity(), 2 * out.size());
    const std::string doc = transit::write(document(20'000), e);
    EXPECT_LE(doc.capacity(), 2 * doc.size());
  }
}

// ---- Growing a sink's memory in the middle of a value ------------------------------------------

namespace {

/// A sink with memory as StringSink has it (the room asked for, or double, whichever is more)
/// that logs what growing it cost: the bytes of the open region kept, which a contiguous string
/// must copy at every growth, and the largest size asked for.
struct GrowthSink final : transit::Sink {
  std::vector<char> memory;
  std::size_t output = 0;
  std::size_t moved = 0;
  std::size_t largest_ask = 0;
  bool open = false;
  void write(const char* data, std::size_t size) override {
    memory.resize(std::max(memory.size(), output + size));
    std::copy(data, data + size, memory.begin() + static_cast<std::ptrdiff_t>(output));
    output += size;
  }
  std::span<char> open_region(std::size_t keep, std::size_t size) override {
    open = true;
    largest_ask = std::max(largest_ask, size);
    if (output + size > memory.size()) {
      std::vector<char> grown(std::max(output + size, 2 * memory.size()));
      std::copy(memory.begin(), memory.begin() + static_cast<std::ptrdiff_t>(output + keep), grown.begin());
      memory.swap(grown);
      moved += keep;
    }
    return {memory.data() + output, memory.size() - output};
  }
  void commit_region(std::size_t n) noexcept override {
    if (open) output += n;
    open = false;
  }
  std::string text() const { return {memory.data(), output}; }
};

/// 2,000 maps of a name and about 1 KB of bytes: a value whose size is all in one array.
Value blobs(int n = 2000) {
  std::vector<Value> items;
  for (int i = 0; i < n; ++i) {
    std::vector<std::byte> data(1000 + static_cast<std::size_t>(i % 7) * 10);
    for (std::size_t j = 0; j < data.size(); ++j) data[j] = static_cast<std::byte>(i + j);
    items.push_back(Value::map({{transit::kw("name"), "blob-" + std::to_string(i)},
                                {transit::kw("data"), Value::bytes(data)}}));
  }
  return Value::array(std::move(items));
}

/// Two 100 KB strings, then 200,000 small integers: the first items say nothing of the rest.
Value lumpy() {
  std::vector<Value> items = {Value(std::string(100'000, 'a')), Value(std::string(100'000, 'b'))};
  for (int i = 0; i < 200'000; ++i) items.emplace_back(i % 100);
  return Value::array(std::move(items));
}

// Doubling alone copies about the whole value once more as it grows (every growth keeps what
// the value wrote so far). The writer sizes the next step from its progress through the value's
// large container, so a value of many like items is copied only for its first few percent.
TEST(GrowingSink, ALargeValueIsCopiedLittleAsTheMemoryGrows) {
  for (const Value& v : {blobs(), document(20'000)}) {
    for (Encoding e : kAll) {
      SCOPED_TRACE(transit::encoding_name(e));
      GrowthSink sink;
      transit::Writer writer(sink, e);
      writer.write(v);
      writer.flush();
      const std::string expected = transit::write(v, e);
      EXPECT_EQ(sink.text(), expected);
      EXPECT_LT(sink.moved, expected.size() / 8) << expected.size() << " bytes";
    }
  }
}

// A wrong guess costs memory for a moment, never bytes: the output is exact, a returned string
// keeps at most twice what it holds, and no step asks for more than 16 MiB or 8 times the
// value so far.
TEST(GrowingSink, FirstItemsUnlikeTheRestAreStillWrittenExactly) {
  const Value v = lumpy();
  for (Encoding e : kAll) {
    SCOPED_TRACE(transit::encoding_name(e));
    ChunkSink chunks;
    {
      transit::Writer chunked(chunks, e);
      chunked.write(v);
    }
    GrowthSink sink;
    {
      transit::Writer writer(sink, e);
      writer.write(v);
    }
    EXPECT_EQ(sink.text(), chunks.joined());
    const std::string out = transit::write(v, e);
    EXPECT_EQ(out, chunks.joined());
    EXPECT_LE(out.capacity(), 2 * out.size());
    EXPECT_GT(sink.largest_ask, 2 * out.size());  // the guess was wrong: this test is of one
    EXPECT_LE(sink.largest_ask, 16u * 1024 * 1024 + 9 * out.size());
  }
}

// With max_output_bytes the guess never asks for room past the limit: a value that may grow to
// the limit does not reserve sixteen times it.
TEST(GrowingSink, TheGuessStaysWithinMaxOutputBytes) {
  const Value v = lumpy();
  for (Encoding e : kAll) {
    SCOPED_TRACE(transit::encoding_name(e));
    const std::size_t size = transit::write(v, e).size();
    transit::WriteOptions options;
    options.max_output_bytes = size + 1000;
    GrowthSink sink;
    transit::Writer writer(sink, e, options);
    writer.write(v);
    writer.flush();
    EXPECT_EQ(sink.text().size(), size);
    EXPECT_LE(sink.largest_ask, options.max_output_bytes + 64 * 1024);
  }
}

// A value that fails inside the container the writer follows leaves nothing behind: the next
// value is followed afresh (and copied as little), and its bytes are exact.
TEST(GrowingSink, AValueThatFailsMidContainerLeavesNoProgressBehind) {
  std::vector<Value> items;
  // Small items: the sink's memory stays small, so the next value grows it from the start.
  for (int i = 0; i < 100; ++i) items.push_back(i == 60 ? nested(600) : Value(std::string(20, 'z')));
  const Value fails = Value::array(std::move(items));
  for (Encoding e : kAll) {
    SCOPED_TRACE(transit::encoding_name(e));
    GrowthSink sink;
    transit::Writer writer(sink, e);
    EXPECT_THROW(writer.write(fails), transit::Error);
    EXPECT_EQ(sink.text(), "");
    writer.write(blobs());
    writer.flush();
    const std::string expected = transit::write(blobs(), e);
    EXPECT_EQ(sink.text(), expected);
    EXPECT_LT(sink.moved, expected.size() / 8);
  }
}

// Values across the writer's buffer size and the growth steps, into a string and into chunks,
// an empty write included: the same bytes.
TEST(GrowingSink, ValuesAcrossGrowthStepsAreThoseAChunkedSinkReceives) {
  const std::vector<Value> values = {blobs(70), Value(std::string(65'536, 'q')), lumpy(), blobs(3),
                                     Value::array({})};
  for (Encoding e : kAll) {
    SCOPED_TRACE(transit::encoding_name(e));
    ChunkSink chunks;
    std::string out;
    {
      transit::Writer chunked(chunks, e);
      transit::StringSink sink(out);
      transit::Writer direct(sink, e);
      for (const Value& v : values) {
        chunked.write(v);
        direct.write(v);
      }
    }
    EXPECT_EQ(out, chunks.joined());
    std::string none;
    {
      transit::StringSink sink(none);
      transit::Writer writer(sink, e);
      writer.flush();
    }
    EXPECT_EQ(none, "");
  }
}

// ---- StringSink's regions, driven as a writer drives them ------------------------------------
// These run in transit_tests against sink.cpp as the library builds it (C++23's
// resize_and_overwrite where the compiler has it) and in transit_sink_fallback_tests against
// sink.cpp built as C++20, where it falls back to detail::set_size_by_resize (see
// string_sink_fallback.cpp).

/// `n` bytes that differ from their neighbours, starting at `seed`.
std::string pattern(std::size_t n, unsigned seed) {
  std::string s(n, '\0');
  for (std::size_t i = 0; i < n; ++i) s[i] = static_cast<char>('a' + (seed + i * 7) % 26);
  return s;
}

/// Opens a region of room `size` keeping `keep` bytes of the open one, and checks it.
std::span<char> open(transit::StringSink& sink, std::size_t keep, std::size_t size) {
  const std::span<char> region = sink.open_region(keep, size);
  EXPECT_GE(region.size(), size);
  return region;
}

// The region grows while a value is written: the string's output before it and the value's
// bytes so far (`keep`) are kept across every growth, and commit makes exactly `n` bytes output.
TEST(StringSinkRegion, GrowingKeepsTheOutputAndTheValueSoFar) {
  std::string out = "prefix";
  transit::StringSink sink(out);
  const std::string value = pattern(3'000'000, 1);
  std::size_t written = 0;
  std::span<char> region = open(sink, 0, 16);
  // Ask for a little more than the region has each time: the string grows about 18 times.
  while (written < value.size()) {
    const std::size_t step = std::min<std::size_t>(region.size() - written + 1, value.size() - written);
    if (written + step > region.size()) {
      region = open(sink, written, written + step);
      ASSERT_EQ(std::string_view(region.data(), written), std::string_view(value).substr(0, written));
    }
    std::copy_n(value.data() + written, step, region.data() + written);
    written += step;
  }
  EXPECT_EQ(out.substr(0, 6), "prefix");
  sink.commit_region(written);
  EXPECT_EQ(out.size(), 6 + value.size());
  EXPECT_EQ(out, "prefix" + value);
  EXPECT_LE(out.capacity(), 2 * out.size());
}

// Many small values, each its own region and commit, and many small appends between them: the
// string holds each in order, and regions do not disturb what `write` appended.
TEST(StringSinkRegion, ManySmallWritesAreKeptInOrder) {
  std::string out;
  std::string expected;
  transit::StringSink sink(out);
  for (unsigned i = 0; i < 20'000; ++i) {
    const std::string bytes = pattern(1 + i % 13, i);
    if (i % 3 == 0) {
      sink.write(bytes.data(), bytes.size());
    } else {
      const std::span<char> region = open(sink, 0, bytes.size() + i % 5);
      std::copy(bytes.begin(), bytes.end(), region.begin());
      sink.commit_region(bytes.size());
    }
    expected += bytes;
    ASSERT_EQ(out.size(), expected.size()) << i;
  }
  EXPECT_EQ(out, expected);
  EXPECT_LE(out.capacity(), std::max<std::size_t>(2 * out.size(), 64 * 1024 + out.size()));
}

// One large region at once (no growth in the middle of it), then a value dropped whole
// (commit 0) and a value cut short: only what was committed stays, byte for byte.
TEST(StringSinkRegion, ALargeWriteIsKeptAndADroppedOneLeavesNothing) {
  std::string out = "x";
  transit::StringSink sink(out);
  const std::string big = pattern(16 * 1024 * 1024 + 3, 5);
  std::span<char> region = open(sink, 0, big.size());
  std::copy(big.begin(), big.end(), region.begin());
  sink.commit_region(big.size());
  EXPECT_EQ(out.size(), 1 + big.size());
  EXPECT_TRUE(out == "x" + big);
  // The next value grows the string past its capacity, then is dropped.
  const std::string before = out;
  region = open(sink, 0, out.capacity());
  std::fill(region.begin(), region.end(), '!');
  region = open(sink, region.size(), 2 * region.size());
  sink.commit_region(0);
  EXPECT_TRUE(out == before);
  EXPECT_LE(out.capacity(), 2 * out.size());
  // A region of which only the first bytes are used.
  region = open(sink, 0, 1000);
  std::copy_n("tail", 4, region.begin());
  sink.commit_region(4);
  EXPECT_TRUE(out == before + "tail");
  // Committing with no region open does nothing.
  sink.commit_region(10);
  EXPECT_TRUE(out == before + "tail");
}

// StringSink's fallback without std::string::resize_and_overwrite (sink.cpp's set_size), which
// the library itself builds only where the compiler lacks C++23's: it must size the string to
// its whole capacity in place, keeping the bytes before, as the region it hands out needs.
TEST(StringSink, FallbackSizingKeepsTheStringInPlace) {
  std::string s = "abc";
  s.reserve(1000);
  const char* const data = s.data();
  const std::size_t capacity = s.capacity();
  transit::detail::set_size_by_resize(s, capacity);
  EXPECT_EQ(s.size(), capacity);
  EXPECT_EQ(s.capacity(), capacity);
  EXPECT_EQ(s.data(), data);
  EXPECT_EQ(s.substr(0, 3), "abc");
  // Written, then cut back to what was written, as commit_region does.
  s.replace(3, 4, "defg");
  s.resize(7);
  EXPECT_EQ(s, "abcdefg");
  EXPECT_EQ(s.data(), data);
}

}  // namespace
