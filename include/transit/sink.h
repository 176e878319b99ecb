// SPDX-License-Identifier: Apache-2.0
// transit-cpp: where writers put their bytes.
#pragma once

#include <cstddef>
#include <cstdio>
#include <ostream>
#include <span>
#include <string>
#include <type_traits>

#include "transit/error.h"

namespace transit {

/// Where a Writer sends bytes. Writers buffer internally and call `write` with large chunks,
/// so one virtual call per chunk is all a sink costs. Implementations throw Error(io) on
/// failure.
///
/// A sink that keeps its bytes in memory may also let writers encode straight into that
/// memory, with no copy through the writer's buffer, by overriding both `open_region` and
/// `commit_region`. A writer then commits each top-level value whole when it ends, so such a
/// sink holds complete values only, and a value that fails leaves nothing of itself, however
/// large it was.
class Sink {
 public:
  virtual ~Sink() = default;
  virtual void write(const char* data, std::size_t size) = 0;
  /// Pushes anything the sink itself buffers to its destination.
  virtual void flush() {}
  /// Writable memory of at least `size` bytes that starts right after the sink's output; none
  /// of it is output until `commit_region`. A region opened while one is open continues it:
  /// its first `keep` bytes are those of the open one (moved if the memory had to grow). The
  /// region stays valid until the next call to the sink. The default, an empty span, means
  /// the sink offers no memory and takes its bytes through `write`; a sink answers one way for
  /// its whole life. May throw (std::bad_alloc, Error(io)).
  virtual std::span<char> open_region(std::size_t keep, std::size_t size);
  /// Makes the first `n` bytes of the open region output and closes it (0 drops all of it).
  virtual void commit_region(std::size_t n) noexcept;
};

/// Appends to a std::string the caller owns. Writers encode straight into the string: it grows
/// geometrically while a value is written and is trimmed to its output when the value ends, so
/// between writes it holds exactly the values written, and may be read, cleared or moved from.
class StringSink final : public Sink {
 public:
  explicit StringSink(std::string& out) : out_(out) {}
  void write(const char* data, std::size_t size) override { out_.append(data, size); }
  std::span<char> open_region(std::size_t keep, std::size_t size) override;
  void commit_region(std::size_t n) noexcept override;

 private:
  std::string& out_;
  bool open_ = false;       // while a region is open, the string's size covers it
  std::size_t output_ = 0;  // the string's size before the open region
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

namespace detail {
/// SinkRef's failures, out of line: Error(io) naming the call and, for a count, what it said.
[[noreturn]] void throw_sink_ref_failed(const char* call, std::size_t size);
[[noreturn]] void throw_sink_ref_count(std::size_t size, long long returned);

// The size parameter of a `write` that names one member function. SinkRef passes the size as
// that type, so that a signed one (std::ostream's std::streamsize) costs a consumer building
// with -Wsign-conversion no warning; std::size_t for an overloaded or template `write`.
template <class C, class R, class P, class N> N write_size_parameter(R (C::*)(P, N));
template <class C, class R, class P, class N> N write_size_parameter(R (C::*)(P, N) const);
template <class C, class R, class P, class N> N write_size_parameter(R (C::*)(P, N) noexcept);
template <class C, class R, class P, class N> N write_size_parameter(R (C::*)(P, N) const noexcept);
template <class T>
struct write_size {
  using type = std::size_t;
};
template <class T>
  requires std::is_integral_v<std::remove_cvref_t<decltype(detail::write_size_parameter(&T::write))>>
struct write_size<T> {
  using type = std::remove_cvref_t<decltype(detail::write_size_parameter(&T::write))>;
};
}  // namespace detail

/// Adapts anything with `write(const char*, std::size_t)` to a Sink, heeding what its `write`
/// returns: an integer is a count of the bytes taken, as POSIX `write` and sockets return it,
/// so the rest is written again until all are taken, and a count of 0 or less (or more than
/// was given) is an Error(io); a result that tests as a bool (a `std::ostream&`, a `bool`) is
/// an Error(io) when false; any other result, or none, is success. `flush()` calls the
/// target's `flush()` when it has one, its result tested as a bool the same way.
template <class T>
  requires requires(T& t, const char* p, std::size_t n) { t.write(p, n); }
class SinkRef final : public Sink {
 public:
  explicit SinkRef(T& target) : target_(target) {}
  void write(const char* data, std::size_t size) override {
    using Size = typename detail::write_size<T>::type;
    using Result = decltype(target_.write(data, static_cast<Size>(size)));
    if constexpr (std::is_integral_v<Result> && !std::is_same_v<Result, bool>) {
      while (size != 0) {
        const Result n = target_.write(data, static_cast<Size>(size));
        if (n <= 0 || static_cast<std::make_unsigned_t<Result>>(n) > size)
          detail::throw_sink_ref_count(size, static_cast<long long>(n));
        data += n;
        size -= static_cast<std::size_t>(n);
      }
    } else if constexpr (std::is_constructible_v<bool, Result>) {
      if (!static_cast<bool>(target_.write(data, static_cast<Size>(size))))
        detail::throw_sink_ref_failed("write", size);
    } else {
      target_.write(data, static_cast<Size>(size));
    }
  }
  void flush() override {
    if constexpr (requires { target_.flush(); }) {
      using Result = decltype(target_.flush());
      // Only a result that says success or failure is tested: an integer could be either.
      if constexpr (std::is_constructible_v<bool, Result> &&
                    (std::is_same_v<Result, bool> || std::is_class_v<std::remove_reference_t<Result>>)) {
        if (!static_cast<bool>(target_.flush())) detail::throw_sink_ref_failed("flush", 0);
      } else {
        target_.flush();
      }
    }
  }

 private:
  T& target_;
};

}  // namespace transit
