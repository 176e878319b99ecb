// SPDX-License-Identifier: Apache-2.0
// Writers encode straight into a StringSink's string (Sink::open_region): the bytes are those a
// chunked sink receives, the string holds complete values only, and a value that fails leaves
// it exactly as it was, however large the value had grown.
#include <gtest/gtest.h>

#include <string>
#include <vector>

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
