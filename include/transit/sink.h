// SPDX-License-Identifier: Apache-2.0
// transit-cpp: where writers put their bytes.
#pragma once

#include <cstddef>
#include <cstdio>
#include <ostream>
#include <string>

namespace transit {

/// Where a Writer sends bytes. Writers buffer internally and call `write` with large chunks,
/// so one virtual call per chunk is all a sink costs. Implementations throw Error(io) on
/// failure.
class Sink {
 public:
  virtual ~Sink() = default;
  virtual void write(const char* data, std::size_t size) = 0;
  /// Pushes anything the sink itself buffers to its destination.
  virtual void flush() {}
};

/// Appends to a std::string the caller owns.
class StringSink final : public Sink {
 public:
  explicit StringSink(std::string& out) : out_(out) {}
  void write(const char* data, std::size_t size) override { out_.append(data, size); }

 private:
  std::string& out_;
};

/// Writes to a C stream; flush() calls fflush.
class FileSink final : public Sink {
 public:
  explicit FileSink(std::FILE* file) : file_(file) {}
  void write(const char* data, std::size_t size) override;
  void flush() override;

 private:
  std::FILE* file_;
};

/// Writes to a file descriptor (a pipe, a socket, a file), retrying short writes and EINTR. A
/// non-blocking descriptor that is full (EAGAIN) is waited on with poll, as a blocking one.
class FdSink final : public Sink {
 public:
  explicit FdSink(int fd) : fd_(fd) {}
  void write(const char* data, std::size_t size) override;

 private:
  int fd_;
};

/// Writes to a std::ostream; a stream in a failed state is an Error(io).
class OstreamSink final : public Sink {
 public:
  explicit OstreamSink(std::ostream& os) : os_(os) {}
  void write(const char* data, std::size_t size) override;
  void flush() override;

 private:
  std::ostream& os_;
};

/// Adapts anything with `write(const char*, std::size_t)` to a Sink.
template <class T>
  requires requires(T& t, const char* p, std::size_t n) { t.write(p, n); }
class SinkRef final : public Sink {
 public:
  explicit SinkRef(T& target) : target_(target) {}
  void write(const char* data, std::size_t size) override { target_.write(data, size); }

 private:
  T& target_;
};

}  // namespace transit
