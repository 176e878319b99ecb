// SPDX-License-Identifier: Apache-2.0
// A thread cancelled (pthread_cancel) while a Reader runs user code or waits on its Source
// ends as a cancelled thread does. glibc cancels by a "forced unwinding" that every catch
// (...) on the way must rethrow: a reader that keeps what user code throws as the value's
// refusal (docs/errors.md) would keep it instead, and glibc then aborts the process ("FATAL:
// exception not rethrown"); MessagePack's reader, which throws a kept refusal again, crashed
// (the unwinding has no exception_ptr).
#include <gtest/gtest.h>
#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "support/sanitizers.h"
#include "transit/transit.h"

namespace {

using transit::Encoding;
using transit::Value;

enum class Read { value, typed_value, typed_vector };
enum class Way { memory, fd_source };

struct Job {
  std::string bytes;
  Encoding encoding;
  Way way;
  Read read;
  const transit::ReadHandlers* handlers;
  int fd = -1;  // the pipe's read end, for Way::fd_source
};

// Reads every value as a service's loop does, going on past errors; returns only if the
// thread was not cancelled.
void read_all(Job& job) {
  transit::ReadOptions options;
  options.handlers = job.handlers;
  auto loop = [&](transit::Reader& r) {
    for (int calls = 0; calls < 100; ++calls) {
      try {
        switch (job.read) {
          case Read::value:
            if (!r.next()) return;
            break;
          case Read::typed_value:
            if (!r.next<Value>()) return;
            break;
          case Read::typed_vector:
            if (!r.next<std::vector<Value>>()) return;
            break;
        }
      } catch (const transit::Error&) {
      }
    }
  };
  if (job.way == Way::memory) {
    transit::Reader r(job.bytes, job.encoding, options);
    loop(r);
  } else {
    transit::FdSource source(job.fd);
    transit::Reader r(source, job.encoding, options);
    loop(r);
  }
}

void* run_job(void* p) {
  read_all(*static_cast<Job*>(p));
  return nullptr;
}

// Runs `job` on a thread of its own; `while_running`, if given, runs on this thread before
// the join (it may cancel the reading thread). Whether the thread ended cancelled.
bool ended_cancelled(Job job, const std::function<void(pthread_t)>& while_running = {}) {
  int fds[2];
  if (job.way == Way::fd_source) {
    if (::pipe(fds) != 0) ADD_FAILURE() << "pipe";
    job.fd = fds[0];
    // Room for all of the bytes before the reading starts, so that its reads meet them as
    // written (Linux lets any process raise a pipe's size to 1 MiB).
    if (job.bytes.size() > 64 * 1024 && ::fcntl(fds[1], F_SETPIPE_SZ, 256 * 1024) < 0)
      ADD_FAILURE() << "F_SETPIPE_SZ";
    if (::write(fds[1], job.bytes.data(), job.bytes.size()) != static_cast<ssize_t>(job.bytes.size()))
      ADD_FAILURE() << "write";
  }
  pthread_t thread;
  if (pthread_create(&thread, nullptr, run_job, &job) != 0) ADD_FAILURE() << "pthread_create";
  if (while_running) while_running(thread);
  void* result = nullptr;
  pthread_join(thread, &result);
  if (job.way == Way::fd_source) {
    ::close(fds[0]);
    ::close(fds[1]);
  }
  return result == PTHREAD_CANCELED;
}

// The thread cancels itself inside user code: pthread_testcancel acts on the request at once.
Value cancel_here() {
  pthread_cancel(pthread_self());
  pthread_testcancel();
  return Value();
}

std::string text_of(const Value& v, Encoding e) { return transit::write(v, e); }

constexpr Encoding kEncodings[] = {Encoding::json, Encoding::json_verbose, Encoding::msgpack};

// The sanitizers cannot follow glibc's forced unwinding: it runs through _Unwind_ForcedUnwind,
// which they do not intercept, so the frames it leaves keep their poison (ASan then reports a
// stack-buffer-overflow in its own sigaltstack call at the next throw in that thread: clang
// 14's ASan on run_user_call's rethrow, "this may be a false positive if your program uses
// some custom stack unwind mechanism"), and TSan's shadow stack is left with frames that never
// returned. The release build's suite runs these tests.
#if defined(TRANSIT_TEST_ASAN) || defined(TRANSIT_TEST_TSAN)
#define SKIP_UNDER_SANITIZERS() GTEST_SKIP() << "a sanitizer cannot follow glibc's forced unwinding"
#else
#define SKIP_UNDER_SANITIZERS() (void)0
#endif

TEST(ThreadCancel, InAReadHandlerEndsTheThreadEveryWay) {
  SKIP_UNDER_SANITIZERS();
  transit::ReadHandlers handlers;
  handlers.add("cancel", [](const Value&) { return cancel_here(); });
  const Value v = Value::array({Value(1), Value::tagged("cancel", Value(1))});
  for (const Encoding e : kEncodings) {
    // A value after the cancelling one, which the thread must never reach.
    const std::string bytes = text_of(v, e) + text_of(Value::array({Value(2)}), e);
    for (const Way way : {Way::memory, Way::fd_source})
      for (const Read read : {Read::value, Read::typed_value, Read::typed_vector})
        EXPECT_TRUE(ended_cancelled({bytes, e, way, read, &handlers}))
            << transit::encoding_name(e) << " way " << int(way) << " read " << int(read);
  }
}

TEST(ThreadCancel, InTheDefaultHandlerEndsTheThread) {
  SKIP_UNDER_SANITIZERS();
  transit::ReadHandlers handlers;
  handlers.set_default([](std::string_view, const Value&) { return cancel_here(); });
  const Value v = Value::array({Value::tagged("unknown", Value(1))});
  for (const Encoding e : kEncodings)
    for (const Way way : {Way::memory, Way::fd_source})
      for (const Read read : {Read::value, Read::typed_value})
        EXPECT_TRUE(ended_cancelled({text_of(v, e), e, way, read, &handlers}))
            << transit::encoding_name(e) << " way " << int(way) << " read " << int(read);
}

TEST(ThreadCancel, InAMapBuilderEndsTheThread) {
  SKIP_UNDER_SANITIZERS();
  transit::ReadHandlers handlers;
  handlers.set_map_builder([](std::span<Value>) { return cancel_here(); });
  // The map first, then more tokens than a typed read of JSON in memory tapes at a time
  // (ReadOptions::typed_batch_tokens): the map's builder runs in the bind of the first batch.
  std::vector<Value> items(1000, Value(1));
  items[0] = Value::map({{Value("a"), Value(1)}});
  const Value v = Value::array(std::move(items));
  for (const Encoding e : kEncodings)
    for (const Way way : {Way::memory, Way::fd_source})
      for (const Read read : {Read::value, Read::typed_value, Read::typed_vector})
        EXPECT_TRUE(ended_cancelled({text_of(v, e), e, way, read, &handlers}))
            << transit::encoding_name(e) << " way " << int(way) << " read " << int(read);
}

// A service's reading thread waits in its Source's read for the rest of a value and is
// cancelled from outside. Two whole chunks (ReadOptions::chunk_size) of it are there: the
// JSON reader, which reads ahead while its Source fills whole chunks to find the value's end
// (and parse it with simdjson), waits in that read.
TEST(ThreadCancel, WhileTheSourceWaitsForTheRestOfAValue) {
  SKIP_UNDER_SANITIZERS();
  for (const Encoding e : kEncodings) {
    std::vector<Value> items(40000, Value(123456));
    std::string bytes = text_of(Value::array(std::move(items)), e);
    ASSERT_GT(bytes.size(), 2 * transit::ReadOptions{}.chunk_size);
    bytes.resize(2 * transit::ReadOptions{}.chunk_size);  // the rest never comes
    for (const Read read : {Read::value, Read::typed_value}) {
      EXPECT_TRUE(ended_cancelled({bytes, e, Way::fd_source, read, nullptr}, [](pthread_t t) {
        ::usleep(50 * 1000);  // time to read what is there and wait
        pthread_cancel(t);
      })) << transit::encoding_name(e) << " read " << int(read);
    }
  }
}

}  // namespace
