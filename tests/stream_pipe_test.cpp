// SPDX-License-Identifier: Apache-2.0
// Streaming over a real pipe, in every encoding: a peer sends a value, waits until the reader
// has returned it, then sends the next. The reader must answer each value while the pipe is still
// open, so it can never be waiting for end of input or for a buffer to fill.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "transit/transit.h"

namespace {

using transit::Encoding;
using transit::Value;

// How long the peer waits for an answer before it gives up and closes the pipe (which would let
// a reader that waits for end of input finish, and is reported as a failure).
constexpr auto kPatience = std::chrono::seconds(5);

std::vector<Value> sample_values() {
  return {
      Value::array({1, 2, 3}),
      Value::map({{Value::keyword("name"), "pipe"}, {Value::keyword("n"), 42}}),
      Value(true),  // a quoted scalar
      Value::set({Value::instant(946728000000), Value::uuid({1, 2})}),
      Value::array({}),
      Value::map({{Value::array({1}), 2.5}}),
      Value::array({std::string(100000, 'x')}),  // larger than one read
      Value::list({Value::symbol("end")}),
  };
}

class Peer {
 public:
  // Sends each value in two writes with a pause between, so the reader sees a partial value.
  void run(int fd, Encoding encoding, const std::vector<Value>& values) {
    try {
      for (std::size_t i = 0; i < values.size(); ++i) {
        const std::string bytes = transit::write(values[i], encoding);
        const std::size_t half = bytes.size() / 2;
        send(fd, bytes.substr(0, half));
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
        send(fd, bytes.substr(half));
        std::unique_lock lock(mutex_);
        if (!answered_.wait_for(lock, kPatience, [&] { return answers_ > i; })) {
          gave_up_ = true;
          break;
        }
      }
    } catch (const transit::Error&) {
      // The reader closed its end after a failure; that failure is what the test reports.
    }
    ::close(fd);
  }

  void answered() {
    {
      std::lock_guard lock(mutex_);
      ++answers_;
    }
    answered_.notify_one();
  }

  bool gave_up() {
    std::lock_guard lock(mutex_);
    return gave_up_;
  }

 private:
  static void send(int fd, const std::string& bytes) {
    transit::FdSink sink(fd);
    sink.write(bytes.data(), bytes.size());
  }

  std::mutex mutex_;
  std::condition_variable answered_;
  std::size_t answers_ = 0;
  bool gave_up_ = false;
};

class PipeStream : public ::testing::TestWithParam<Encoding> {
 protected:
  void read_all_answering(int fd, const std::vector<Value>& values, Peer& peer) {
    transit::FdSource source(fd);
    transit::ReadOptions options;
    options.chunk_size = 4096;
    transit::Reader reader(source, GetParam(), options);
    for (std::size_t i = 0; i < values.size(); ++i) {
      std::optional<Value> v = reader.next();
      ASSERT_FALSE(peer.gave_up()) << "value " << i
                                   << " was returned only after the peer closed the pipe";
      ASSERT_TRUE(v.has_value()) << "value " << i;
      EXPECT_EQ(*v, values[i]) << "value " << i;
      peer.answered();
    }
    EXPECT_EQ(reader.next(), std::nullopt);
  }
};

// Closes the read end (so a peer blocked on a full pipe fails instead of hanging) and joins the
// peer, on every way out of the test.
struct Cleanup {
  int read_fd;
  std::thread& peer;
  ~Cleanup() {
    ::close(read_fd);
    peer.join();
  }
};

TEST_P(PipeStream, EachValueIsReturnedBeforeTheNextIsSent) {
  // A write to a pipe whose reader is gone must fail with EPIPE, not kill the test binary.
  struct sigaction ignore {}, previous {};
  ignore.sa_handler = SIG_IGN;
  ASSERT_EQ(::sigaction(SIGPIPE, &ignore, &previous), 0);
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const std::vector<Value> values = sample_values();
  Peer peer;
  std::thread writer([&] { peer.run(fds[1], GetParam(), values); });
  {
    Cleanup cleanup{fds[0], writer};
    read_all_answering(fds[0], values, peer);
  }
  ::sigaction(SIGPIPE, &previous, nullptr);
}


INSTANTIATE_TEST_SUITE_P(AllEncodings, PipeStream,
                         ::testing::Values(Encoding::json, Encoding::json_verbose, Encoding::msgpack),
                         [](const ::testing::TestParamInfo<Encoding>& info) {
                           std::string name(transit::encoding_name(info.param));
                           std::erase(name, '-');
                           return name;
                         });

}  // namespace
