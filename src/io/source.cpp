// SPDX-License-Identifier: Apache-2.0
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <istream>
#include <string>

#include "backend.h"
#include "transit/error.h"
#include "transit/reader.h"

namespace transit {

std::size_t FdSource::read(char* buffer, std::size_t size) {
  for (;;) {
    const ssize_t n = ::read(fd_, buffer, size);
    if (n >= 0) return static_cast<std::size_t>(n);
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) {
      // A non-blocking descriptor with nothing yet: wait for bytes (or the end) as a blocking
      // read would; 0 from read stays the only end of input.
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, -1) >= 0 || errno == EINTR) continue;
    }
    detail::throw_error(Errc::io, std::string("read failed: ") + std::strerror(errno));
  }
}

std::size_t IstreamSource::read(char* buffer, std::size_t size) {
  std::streambuf* buf = is_.rdbuf();
  if (!buf) return 0;
  std::streamsize available = buf->in_avail();
  if (available <= 0) {
    // Nothing buffered: wait for one byte (or the end), then take whatever came with it.
    if (buf->sgetc() == std::char_traits<char>::eof()) return 0;
    available = std::max<std::streamsize>(1, buf->in_avail());
  }
  const std::streamsize want = std::min<std::streamsize>(available, static_cast<std::streamsize>(size));
  return static_cast<std::size_t>(buf->sgetn(buffer, want));
}

std::size_t detail::read_checked(Source& source, char* buffer, std::size_t size) {
  const std::size_t n = source.read(buffer, size);
  if (n > size)
    throw_error(Errc::io, "Source::read returned " + std::to_string(n) + " bytes for a buffer of " +
                              std::to_string(size));
  return n;
}

}  // namespace transit
