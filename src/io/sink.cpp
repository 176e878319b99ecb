// SPDX-License-Identifier: Apache-2.0
#include "transit/sink.h"

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "io/string_size.h"
#include "transit/error.h"

namespace transit {

std::span<char> Sink::open_region(std::size_t, std::size_t) {
  return {};
}
void Sink::commit_region(std::size_t) noexcept {}

namespace {

/// Sets the string's size to `n` without writing its new bytes: the writer is about to.
/// std::string::resize_and_overwrite is C++23 (this file is built as C++23 where the compiler
/// has it: see CMakeLists.txt); without it, detail::set_size_by_resize, which the tests call.
void set_size(std::string& s, std::size_t n) {
#if defined(__cpp_lib_string_resize_and_overwrite)
  s.resize_and_overwrite(n, [](char*, std::size_t size) noexcept { return size; });
#else
  detail::set_size_by_resize(s, n);
#endif
}

}  // namespace

std::span<char> StringSink::open_region(std::size_t keep, std::size_t size) {
  if (!open_) {
    output_ = out_.size();
    open_ = true;
  }
  if (size > out_.capacity() - output_) {
    if (size > out_.max_size() - output_)
      throw std::length_error("transit::StringSink: string too long");
    // Grow geometrically, as sbuffer's realloc or append would, and copy only the output and
    // the value's bytes so far, not the rest of the old region.
    out_.resize(output_ + keep);
    out_.reserve(std::max(output_ + size, 2 * out_.capacity()));
  }
  // The region is all of the capacity: a value that fits needs no second call.
  set_size(out_, out_.capacity());
  return {out_.data() + output_, out_.size() - output_};
}

void StringSink::commit_region(std::size_t n) noexcept {
  if (!open_) return;
  out_.resize(output_ + n);  // shrinking: sets the size, never allocates
  open_ = false;
  // The room asked for can far exceed what was written (JSON asks 6 bytes a character of a
  // text, for escapes): a string the caller keeps should not hold three times its bytes.
  // Doubling leaves at most 2x; past that, and past a small floor, give the rest back (one
  // copy of the output, only in that case).
  constexpr std::size_t kSlackKept = 64 * 1024;
  if (out_.capacity() - out_.size() > std::max(out_.size(), kSlackKept)) {
    try {
      out_.shrink_to_fit();
    } catch (...) {  // a request only: without memory for the copy, the string stays as it is
    }
  }
}

void FileSink::write(const char* data, std::size_t size) {
  if (std::fwrite(data, 1, size, file_) != size)
    detail::throw_error(Errc::io, std::string("fwrite failed: ") + std::strerror(errno));
}

void FileSink::flush() {
  if (std::fflush(file_) != 0)
    detail::throw_error(Errc::io, std::string("fflush failed: ") + std::strerror(errno));
}

void FdSink::write(const char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t n = ::write(fd_, data, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) {
        // A non-blocking descriptor that is full: wait until it takes more, as a blocking
        // one would, rather than fail with half a value written.
        pollfd p{fd_, POLLOUT, 0};
        if (::poll(&p, 1, -1) >= 0 || errno == EINTR) continue;
      }
      detail::throw_error(Errc::io, std::string("write failed: ") + std::strerror(errno));
    }
    data += n;
    size -= static_cast<std::size_t>(n);
  }
}

namespace detail {
void throw_sink_ref_failed(const char* call, std::size_t size) {
  if (size == 0) throw_error(Errc::io, std::string("SinkRef: the target's ") + call + " failed");
  throw_error(Errc::io, std::string("SinkRef: the target's ") + call + " of " + std::to_string(size) +
                            " bytes failed");
}
void throw_sink_ref_count(std::size_t size, long long returned) {
  throw_error(Errc::io, "SinkRef: the target's write of " + std::to_string(size) + " bytes returned " +
                            std::to_string(returned));
}
}  // namespace detail

void OstreamSink::write(const char* data, std::size_t size) {
  os_.write(data, static_cast<std::streamsize>(size));
  if (!os_) detail::throw_error(Errc::io, "std::ostream write failed");
}

void OstreamSink::flush() {
  os_.flush();
  if (!os_) detail::throw_error(Errc::io, "std::ostream flush failed");
}

}  // namespace transit
