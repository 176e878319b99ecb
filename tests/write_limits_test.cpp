// SPDX-License-Identifier: Apache-2.0
// What a Writer does when its sink throws anything at all, and the limit on the bytes one value
// may expand to (WriteOptions::max_output_bytes).
#include <gtest/gtest.h>

#include <new>
#include <string>
#include <vector>

#include "transit/transit.h"

namespace {

using transit::Encoding;
using transit::Value;

constexpr Encoding kAll[] = {Encoding::json, Encoding::json_verbose, Encoding::msgpack};

/// A sink that throws something other than transit::Error on its first write.
template <class Exception>
class ThrowingSink final : public transit::Sink {
 public:
  void write(const char*, std::size_t) override { throw Exception{}; }
};

struct NotAnError {};

TEST(WriterDestructor, SwallowsStdBadAllocFromTheSink) {
  ThrowingSink<std::bad_alloc> sink;
  {
    transit::Writer writer(sink, Encoding::json);
    writer.write(Value(1));
    // The value is buffered; the destructor's flush meets std::bad_alloc and must not let it
    // out (an exception out of a destructor is std::terminate).
  }
  SUCCEED();
}

TEST(WriterDestructor, SwallowsAnyExceptionType) {
  ThrowingSink<NotAnError> sink;
  {
    transit::Writer writer(sink, Encoding::msgpack);
    writer.write(Value::array({1, 2, 3}));
  }
  SUCCEED();
}

TEST(WriterDestructor, FlushReportsWhatTheDestructorSwallows) {
  ThrowingSink<std::bad_alloc> sink;
  transit::Writer writer(sink, Encoding::json);
  writer.write(Value("x"));
  EXPECT_THROW(writer.flush(), std::bad_alloc);
}

/// `copies` maps, each keyed by the same long keyword: JSON writes the key once and `^0` after,
/// JSON-Verbose writes it in full every time.
Value amplifier(std::size_t key_bytes, int copies) {
  const Value key = transit::kw(std::string(key_bytes, 'k'));
  std::vector<Value> maps;
  for (int i = 0; i < copies; ++i) maps.push_back(Value::map({{key, i}}));
  return Value::array(std::move(maps));
}

TEST(MaxOutputBytes, ASmallInputCannotExpandPastTheLimit) {
  // 100 KB of JSON stands for 100 MB of JSON-Verbose.
  const Value v = amplifier(100'000, 1000);
  const std::string json = transit::write(v, Encoding::json);
  ASSERT_LT(json.size(), 120'000u);
  const Value back = transit::read(json);

  transit::WriteOptions options;
  options.max_output_bytes = 1'000'000;
  std::string out;
  transit::StringSink sink(out);
  transit::Writer writer(sink, Encoding::json_verbose, options);
  writer.write(Value::array({1, 2}));
  try {
    writer.write(back);
    FAIL() << "expected too_large";
  } catch (const transit::Error& e) {
    EXPECT_EQ(e.code(), transit::Errc::too_large);
    EXPECT_STREQ(e.what(), "transit: too_large: a value written expands to more than 1000000 bytes "
                           "(WriteOptions::max_output_bytes)");
  }
  writer.flush();
  // The value before it is there whole; of the failed one, at most the limit and one buffer.
  EXPECT_EQ(out.substr(0, 5), "[1,2]");
  EXPECT_LE(out.size(), 5 + options.max_output_bytes + options.buffer_size);
  // A StringSink holds complete values only (tests/string_sink_test.cpp): nothing of it.
  EXPECT_EQ(out, "[1,2]");
  // The string grew only as far as the limit and a buffer, with geometric slack: not toward
  // the 100 MB the value stands for. A single key of 100 KB needs room for its escapes, 600 KB.
  EXPECT_LE(out.capacity(), 4 * (options.max_output_bytes + 6 * 100'000 + options.buffer_size));
}

TEST(MaxOutputBytes, AValueOfExactlyTheLimitIsWrittenOneByteMoreIsNot) {
  const Value v = Value::map({{transit::kw("name"), "transit"}, {transit::kw("n"), 42}});
  for (Encoding e : kAll) {
    SCOPED_TRACE(transit::encoding_name(e));
    const std::string expected = transit::write(v, e);
    transit::WriteOptions options;
    options.max_output_bytes = expected.size();
    EXPECT_EQ(transit::write(v, e, options), expected);

    options.max_output_bytes = expected.size() - 1;
    std::string out;
    transit::StringSink sink(out);
    transit::Writer writer(sink, e, options);
    EXPECT_THROW(writer.write(v), transit::Error);
    // The limit is per value: the failed value left nothing, and a smaller one still goes.
    writer.write(Value(1));
    writer.flush();
    EXPECT_EQ(out, transit::write(Value(1), e));
  }
}

TEST(MaxOutputBytes, AppliesToCppValuesWrittenDirectly) {
  const std::vector<std::string> words(100, std::string(100, 'w'));
  transit::WriteOptions options;
  options.max_output_bytes = 5'000;
  std::string out;
  transit::StringSink sink(out);
  transit::Writer writer(sink, Encoding::json, options);
  EXPECT_THROW(writer.write(words), transit::Error);
  writer.write(std::vector<int>{1, 2});
  writer.flush();
  EXPECT_EQ(out, "[1,2]");
}

}  // namespace
