// SPDX-License-Identifier: Apache-2.0
// SinkRef adapts a user's object with write(const char*, size_t) to a Sink: what that write
// says about the bytes it took (a count, a stream's state, a bool) is heeded, so nothing is
// lost without an Error(io).
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>

#include "transit/transit.h"

namespace {

using transit::Encoding;
using transit::Value;

/// Takes at most 100 bytes a call and says how many, as a socket's send does.
struct ShortWrites {
  std::string got;
  long calls = 0;
  long write(const char* data, std::size_t size) {
    ++calls;
    const std::size_t n = std::min<std::size_t>(size, 100);
    got.append(data, n);
    return static_cast<long>(n);
  }
};

/// Says -1 (failed) from the first call, as POSIX write does.
struct Broken {
  long write(const char*, std::size_t) { return -1; }
};

/// Takes nothing and says so: without a check this would be retried for ever.
struct Stuck {
  std::size_t write(const char*, std::size_t) { return 0; }
};

/// Reports success or failure as a bool; counts its flushes.
struct Flagged {
  bool ok = true;
  int flushes = 0;
  std::string got;
  bool write(const char* data, std::size_t size) {
    if (ok) got.append(data, size);
    return ok;
  }
  void flush() { ++flushes; }
};

/// Returns nothing: every call is taken as success, as before.
struct Plain {
  std::string got;
  void write(const char* data, std::size_t size) { got.append(data, size); }
};

Value long_value() { return Value::array({Value(std::string(1000, 'y')), 1, "z"}); }

// Flushes, which hands what was written to the target, and wants Error(io) saying `message`.
void expect_io_error(transit::Writer& writer, const char* message) {
  try {
    writer.flush();
    ADD_FAILURE() << "no error";
  } catch (const transit::Error& e) {
    EXPECT_EQ(e.code(), transit::Errc::io);
    EXPECT_STREQ(e.what(), message);
  }
}

TEST(SinkRef, AShortCountIsWrittenAgainUntilEveryByteIsTaken) {
  for (Encoding e : {Encoding::json, Encoding::json_verbose, Encoding::msgpack}) {
    ShortWrites socket;
    transit::SinkRef<ShortWrites> sink(socket);
    transit::Writer writer(sink, e);
    writer.write(long_value());
    writer.flush();
    EXPECT_EQ(socket.got, transit::write(long_value(), e));
    EXPECT_GT(socket.calls, 10);
  }
}

TEST(SinkRef, ACountOfZeroOrLessIsAnIoError) {
  Broken broken;
  transit::SinkRef<Broken> broken_sink(broken);
  transit::Writer w1(broken_sink, Encoding::json);
  w1.write(long_value());
  expect_io_error(w1, "transit: io: SinkRef: the target's write of 1010 bytes returned -1");
  Stuck stuck;
  transit::SinkRef<Stuck> stuck_sink(stuck);
  transit::Writer w2(stuck_sink, Encoding::json);
  w2.write(long_value());
  EXPECT_THROW(w2.flush(), transit::Error);
}

TEST(SinkRef, AStreamInAFailedStateIsAnIoError) {
  std::ostringstream os;
  os.setstate(std::ios::badbit);
  transit::SinkRef<std::ostringstream> sink(os);
  transit::Writer writer(sink, Encoding::json);
  writer.write(long_value());
  expect_io_error(writer, "transit: io: SinkRef: the target's write of 1010 bytes failed");
}

TEST(SinkRef, AFalseResultIsAnIoErrorAndFlushReachesTheTarget) {
  Flagged target;
  transit::SinkRef<Flagged> sink(target);
  transit::Writer writer(sink, Encoding::json);
  writer.write(Value::array({1}));
  writer.flush();
  EXPECT_EQ(target.got, "[1]");
  EXPECT_EQ(target.flushes, 1);
  target.ok = false;
  writer.write(Value::array({2}));
  EXPECT_THROW(writer.flush(), transit::Error);
}

TEST(SinkRef, AWriteThatReturnsNothingIsTakenAsWritten) {
  Plain target;
  transit::SinkRef<Plain> sink(target);
  transit::Writer writer(sink, Encoding::msgpack);
  writer.write(long_value());
  writer.flush();
  EXPECT_EQ(target.got, transit::write(long_value(), Encoding::msgpack));
}

}  // namespace
