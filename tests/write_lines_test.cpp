// SPDX-License-Identifier: Apache-2.0
// WriteOptions::newline_after_value: a JSON or JSON-Verbose Writer ends each top-level value
// with '\n', for a peer that reads one value a text (transit-js's reader.read). The newline
// belongs to the value: it reaches the sink with the value's last byte, a value that fails
// leaves none, and MessagePack ignores the setting.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "transit/transit.h"

namespace {

using transit::Encoding;
using transit::Value;

const std::vector<Value>& sample_values() {
  static const std::vector<Value> values{
      Value::map({{Value::keyword("name"), "lines"}, {Value::keyword("n"), 42}}),
      Value(true),                      // a quoted scalar
      Value("two\nlines\r\n"),          // raw newlines in a string are escaped
      Value::set({Value::keyword("a"), Value::keyword("b")}),
      Value::array({}),
      Value::map({{Value::array({1}), 2.5}}),  // a cmap
      Value::array({std::string(100000, 'x')}),  // larger than the writer's buffer
      Value::list({Value::symbol("end")}),
  };
  return values;
}

std::string without_newlines(const Value& v, Encoding e) { return transit::write(v, e); }

// A sink with no memory of its own: the writer buffers and hands it chunks, each kept apart.
struct ChunkSink final : transit::Sink {
  void write(const char* data, std::size_t size) override { chunks.emplace_back(data, size); }
  std::string all() const {
    std::string out;
    for (const std::string& chunk : chunks) out += chunk;
    return out;
  }
  std::vector<std::string> chunks;
};

struct Unregistered {};

transit::WriteOptions lines() {
  transit::WriteOptions options;
  options.newline_after_value = true;
  return options;
}

class WriteLines : public ::testing::TestWithParam<Encoding> {
 protected:
  Encoding encoding() const { return GetParam(); }
};

// Each value ends with a newline, and that is the only newline in the text: one value a line.
TEST_P(WriteLines, EachValueEndsWithTheOnlyNewlineOfItsLine) {
  std::string out;
  transit::StringSink sink(out);
  transit::Writer writer(sink, encoding(), lines());
  std::string expected;
  for (const Value& v : sample_values()) {
    writer.write(v);
    expected += without_newlines(v, encoding()) + "\n";
    EXPECT_EQ(out, expected);  // a StringSink holds the value and its newline at once
  }
  writer.write(std::vector<int>{1, 2, 3});  // a C++ value, written with no Value
  expected += without_newlines(Value::array({1, 2, 3}), encoding()) + "\n";
  writer.flush();
  EXPECT_EQ(out, expected);
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'),
            static_cast<std::ptrdiff_t>(sample_values().size() + 1));

  transit::Reader reader(out, encoding());
  for (const Value& v : sample_values()) {
    const auto back = reader.next();
    ASSERT_TRUE(back.has_value());
    EXPECT_EQ(*back, v);
  }
  EXPECT_EQ(reader.next(), Value::array({1, 2, 3}));
  EXPECT_FALSE(reader.next().has_value());
}

// transit::write is one value written by a Writer, newline and all.
TEST_P(WriteLines, TransitWriteEndsTheTextWithTheNewline) {
  for (const Value& v : sample_values())
    EXPECT_EQ(transit::write(v, encoding(), lines()), without_newlines(v, encoding()) + "\n");
}

// A value that fails leaves no newline, whatever failed: the limit, the depth, a handler; over a
// StringSink and over a sink with the writer's own buffer.
TEST_P(WriteLines, AValueThatFailsLeavesNoNewline) {
  std::string text;
  transit::StringSink string_sink(text);
  ChunkSink chunk_sink;
  for (transit::Sink* sink : {static_cast<transit::Sink*>(&string_sink), static_cast<transit::Sink*>(&chunk_sink)}) {
    transit::WriteOptions options = lines();
    options.max_output_bytes = 1000;
    options.max_depth = 8;
    transit::Writer writer(*sink, encoding(), options);
    const Value small = Value::array({1, 2});
    writer.write(small);
    EXPECT_THROW(writer.write(Value::array({std::string(2000, 'y')})), transit::Error);
    Value deep = Value::array({});
    for (int i = 0; i < 20; ++i) deep = Value::array({deep});
    EXPECT_THROW(writer.write(deep), transit::Error);
    EXPECT_THROW(writer.write(Value::object(Unregistered{})), transit::Error);  // no handler
    writer.write(small);
    writer.flush();
    EXPECT_EQ(sink == &string_sink ? text : chunk_sink.all(), without_newlines(small, encoding()) + "\n" + without_newlines(small, encoding()) + "\n");
  }
}

// max_output_bytes counts the value's bytes, not its newline: a value of exactly the limit is
// written, with its newline.
TEST_P(WriteLines, TheNewlineIsNotCountedByTheLimit) {
  const Value v = Value::array({std::string(500, 'z')});
  const std::string text = without_newlines(v, encoding());
  transit::WriteOptions options = lines();
  options.max_output_bytes = text.size();
  EXPECT_EQ(transit::write(v, encoding(), options), text + "\n");
  options.max_output_bytes = text.size() - 1;
  EXPECT_THROW(transit::write(v, encoding(), options), transit::Error);
}

// With a buffer of its own the writer hands the sink large chunks; the newline always goes in
// the same chunk as its value's last byte, never at the start of the next one, wherever the
// value's end falls in the buffer. Most of these end exactly where the buffer does: a base64
// string reserves exactly its bytes (and a separator's, which the first item has not), and
// one larger than the buffer gets a buffer of exactly that size, which the closing bracket
// fills. (Without the byte the buffer keeps for the newline, 1013 chunks of 1200 start with
// one; strings reserve 6 bytes a byte, and grown by them the buffer is never filled.)
TEST_P(WriteLines, TheNewlineReachesTheSinkWithTheValuesLastByte) {
  ChunkSink sink;
  transit::WriteOptions options = lines();
  options.buffer_size = 256;
  transit::Writer writer(sink, encoding(), options);
  std::string expected;
  for (std::size_t n = 0; n < 1200; ++n) {
    const Value v = Value::array({Value::bytes(std::string(n, 'b'))});
    writer.write(v);
    expected += without_newlines(v, encoding()) + "\n";
  }
  writer.flush();
  for (const std::string& chunk : sink.chunks)
    EXPECT_NE(chunk.front(), '\n') << "a newline went to the sink apart from its value";
  EXPECT_EQ(sink.all(), expected);
}

// A peer reads a pipe as values arrive, line by line: after each write and flush it has the
// value and its newline, with the pipe still open (it never waits for the next value).
TEST_P(WriteLines, APipeReaderHasEachLineOnceFlushed) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  std::mutex mutex;
  std::condition_variable arrived;
  std::vector<Value> read_back;
  std::string error;
  std::thread peer([&, in = fds[0]] {
    std::string pending;
    char buffer[4096];
    for (;;) {
      const ssize_t n = ::read(in, buffer, sizeof buffer);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      pending.append(buffer, static_cast<std::size_t>(n));
      for (std::size_t end; (end = pending.find('\n')) != std::string::npos; pending.erase(0, end + 1)) {
        std::lock_guard lock(mutex);
        try {
          read_back.push_back(transit::read(pending.substr(0, end), encoding()));
        } catch (const transit::Error& e) {
          error = e.what();
        }
        arrived.notify_one();
      }
    }
    ::close(in);
  });
  {
    transit::FdSink sink(fds[1]);
    transit::Writer writer(sink, encoding(), lines());
    for (std::size_t i = 0; i < sample_values().size(); ++i) {
      writer.write(sample_values()[i]);
      writer.flush();
      std::unique_lock lock(mutex);
      EXPECT_TRUE(arrived.wait_for(lock, std::chrono::seconds(5), [&] { return read_back.size() > i; }))
          << "value " << i << " and its newline did not arrive after flush()";
      if (read_back.size() <= i) break;
    }
  }
  ::close(fds[1]);
  peer.join();
  EXPECT_EQ(error, "");
  EXPECT_EQ(read_back, sample_values());
}

INSTANTIATE_TEST_SUITE_P(Json, WriteLines, ::testing::Values(Encoding::json, Encoding::json_verbose),
                         [](const auto& info) {
                           return info.param == Encoding::json ? "json" : "json_verbose";
                         });

// MessagePack values delimit themselves, and a newline byte there would be read as the integer
// 10: the setting is ignored, so a program that picks the encoding at run time sets it once.
TEST(WriteLinesMsgpack, IgnoresTheSetting) {
  std::string out, expected;
  transit::StringSink sink(out);
  transit::Writer writer(sink, Encoding::msgpack, lines());
  for (const Value& v : sample_values()) {
    writer.write(v);
    expected += without_newlines(v, Encoding::msgpack);
  }
  writer.flush();
  EXPECT_EQ(out, expected);
  EXPECT_EQ(transit::write(Value(1), Encoding::msgpack, lines()), transit::write(Value(1), Encoding::msgpack));
  transit::Reader reader(out, Encoding::msgpack);
  for (const Value& v : sample_values()) EXPECT_EQ(reader.next(), v);
  EXPECT_FALSE(reader.next().has_value());
}

// docs/wire.md, "Streams".
TEST(WriteLinesDocs, StreamsSample) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  std::string received;
  std::thread peer([&, in = fds[0]] {
    char buffer[4096];
    for (ssize_t n; (n = ::read(in, buffer, sizeof buffer)) != 0;) {
      if (n > 0) received.append(buffer, static_cast<std::size_t>(n));
      else if (errno != EINTR) break;
    }
    ::close(in);
  });
  const std::vector<Value> values{Value::keyword("ready"), Value::map({{"n", 1}})};
  {
    transit::FdSink sink(fds[1]);
    // doc-sample begin
    transit::WriteOptions options;
    options.newline_after_value = true;  // one value a line: transit-js, jq, wc -l
    transit::Writer writer(sink, transit::Encoding::json, options);  // sink: a pipe, a socket
    for (const transit::Value& v : values) {
      writer.write(v);
      writer.flush();  // the value and its newline
    }
    // doc-sample end
  }
  ::close(fds[1]);
  peer.join();
  EXPECT_EQ(received, "[\"~#'\",\"~:ready\"]\n[\"^ \",\"n\",1]\n");
}

}  // namespace
