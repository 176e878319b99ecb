// SPDX-License-Identifier: Apache-2.0
#include "transit/sink.h"

#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "transit/error.h"

namespace transit {

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

void OstreamSink::write(const char* data, std::size_t size) {
  os_.write(data, static_cast<std::streamsize>(size));
  if (!os_) detail::throw_error(Errc::io, "std::ostream write failed");
}

void OstreamSink::flush() {
  os_.flush();
  if (!os_) detail::throw_error(Errc::io, "std::ostream flush failed");
}

}  // namespace transit
