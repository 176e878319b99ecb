// SPDX-License-Identifier: Apache-2.0
// FdSink and FdSource on non-blocking descriptors: a full pipe or an empty one is waited on,
// as with blocking descriptors, instead of failing with EAGAIN and half a value written
// (issue 12, item 11: the transit tool on an O_NONBLOCK stdin or stdout).
#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

#include "transit/transit.h"

namespace {

using transit::Value;

void set_nonblocking(int fd) { ASSERT_EQ(::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK), 0); }

// Values whose JSON is far larger than a pipe's buffer (64 KiB), so writing one fills the pipe.
Value large_value() {
  std::vector<Value> items;
  for (int i = 0; i < 20000; ++i) items.emplace_back("item number " + std::to_string(i));
  return Value::array(std::move(items));
}

TEST(NonBlockingFd, AWriterWaitsForAFullPipeToDrain) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  set_nonblocking(fds[1]);
  const Value value = large_value();
  const std::string expected = transit::write(value);
  ASSERT_GT(expected.size(), std::size_t{4} << 16);

  std::string received;
  std::thread reader([&] {
    char buffer[4096];
    for (;;) {
      std::this_thread::sleep_for(std::chrono::microseconds(200));  // slower than the writer
      const ssize_t n = ::read(fds[0], buffer, sizeof buffer);
      if (n <= 0) break;
      received.append(buffer, static_cast<std::size_t>(n));
    }
  });
  {
    transit::FdSink sink(fds[1]);
    transit::Writer writer(sink, transit::Encoding::json);
    writer.write(value);
    writer.flush();
  }
  ::close(fds[1]);
  reader.join();
  ::close(fds[0]);
  EXPECT_EQ(received, expected);
}

TEST(NonBlockingFd, AReaderWaitsForBytesThatHaveNotArrived) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  set_nonblocking(fds[0]);
  const std::string first = transit::write(Value::map({{transit::kw("n"), 1}}));
  const std::string second = transit::write(Value::set({1, 2, 3}));
  std::thread writer([&] {
    // Each value in two halves, with pauses: the reader finds the pipe empty again and again.
    for (const std::string& text : {first, second}) {
      const std::size_t half = text.size() / 2;
      for (const std::string& part : {text.substr(0, half), text.substr(half)}) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        EXPECT_EQ(::write(fds[1], part.data(), part.size()), static_cast<ssize_t>(part.size()));
      }
    }
    ::close(fds[1]);
  });
  transit::FdSource source(fds[0]);
  transit::Reader reader(source, transit::Encoding::json);
  std::vector<Value> values;
  while (auto v = reader.next()) values.push_back(*v);
  writer.join();
  ::close(fds[0]);
  ASSERT_EQ(values.size(), 2u);
  EXPECT_EQ(values[0], Value::map({{transit::kw("n"), 1}}));
  EXPECT_EQ(values[1], Value::set({1, 2, 3}));
}

}  // namespace
