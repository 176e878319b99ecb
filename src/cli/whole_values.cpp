// SPDX-License-Identifier: Apache-2.0
#include "whole_values.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>

#include "transit/error.h"

namespace transit::cli {
namespace {

// Complete values go out in blocks of at least this, as the Writer's own 64 KiB buffer spills
// once half full: the same writes as before, and the held values fit in 64 KiB.
constexpr std::size_t kBlock = 32 * 1024;

[[noreturn]] void io_error(const std::string& what, int error) {
  throw Error(Errc::io, {}, {}, what + ": " + std::strerror(error));
}

// An unnamed file in TMPDIR (or /tmp), gone when closed; -1 when none can be made.
int make_temp() {
  const char* env = std::getenv("TMPDIR");
  const std::string dir = env != nullptr && *env != '\0' ? env : "/tmp";
#ifdef O_TMPFILE
  if (const int fd = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600); fd >= 0) return fd;
#endif
  std::string name = dir + "/transit-convert-XXXXXX";
  const int fd = ::mkostemp(name.data(), O_CLOEXEC);
  if (fd >= 0) ::unlink(name.c_str());
  return fd;
}

}  // namespace

WholeValueOutput::~WholeValueOutput() {
  if (temp_ >= 0) ::close(temp_);
}

void WholeValueOutput::write(const char* data, std::size_t size) {
  if (spill_ == Spill::none) {
    const std::size_t value_bytes = held_.size() - whole_ + size;
    if (value_bytes <= kHeldBytes || !start_spill()) {
      // Past 1 MiB, room for all a value may hold at once: doubling from 4 to 8 MiB would
      // need both blocks at the peak.
      if (value_bytes > (std::size_t{1} << 20) && value_bytes <= kHeldBytes &&
          held_.size() + size > held_.capacity())
        held_.reserve(whole_ + kHeldBytes);
      held_.append(data, size);
      return;
    }
  }
  if (spill_ == Spill::output)
    out_.write(data, size);
  else
    to_temp(data, size);
}

// The value has outgrown memory: a regular file output takes it as it comes, if its end can
// be cut back (we write at its end, and truncating is allowed); anything else gets it from a
// temporary file. False when neither can be had: the value stays in memory.
bool WholeValueOutput::start_spill() {
  push();
  struct stat st {};
  if (::fstat(fd_, &st) == 0 && S_ISREG(st.st_mode)) {
    const int flags = ::fcntl(fd_, F_GETFL);
    const off_t at = flags >= 0 && (flags & O_APPEND) != 0 ? st.st_size : ::lseek(fd_, 0, SEEK_CUR);
    if (at == st.st_size && ::ftruncate(fd_, at) == 0) {
      whole_end_ = at;
      spill_ = Spill::output;
      out_.write(held_.data(), held_.size());
      held_.clear();
      return true;
    }
  }
  if (temp_ < 0 && !no_temp_) no_temp_ = (temp_ = make_temp()) < 0;
  if (temp_ < 0) return false;
  spill_ = Spill::temp;
  to_temp(held_.data(), held_.size());
  held_.clear();
  return true;
}

void WholeValueOutput::to_temp(const char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t n = ::pwrite(temp_, data, size, temp_size_);
    if (n < 0) {
      if (errno == EINTR) continue;
      io_error("cannot hold a value in a temporary file", errno);
    }
    data += n;
    size -= static_cast<std::size_t>(n);
    temp_size_ += n;
  }
}

// Through the held block, empty now and as large as the value made it before it spilled.
void WholeValueOutput::copy_temp_out() {
  held_.resize(std::max(held_.capacity(), std::size_t{1} << 20));
  for (off_t at = 0; at < temp_size_;) {
    const ssize_t n = ::pread(temp_, held_.data(), held_.size(), at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) io_error("cannot read back a value from its temporary file", n < 0 ? errno : EIO);
    out_.write(held_.data(), static_cast<std::size_t>(n));
    at += n;
  }
  held_.clear();
}

void WholeValueOutput::forget_temp() noexcept {
  temp_size_ = 0;  // the next value is written from its start
  if (::ftruncate(temp_, 0) != 0) {
    // The space stays taken until the file is closed; nothing else depends on it.
  }
}

void WholeValueOutput::value_done() {
  if (spill_ == Spill::temp) {
    push();
    copy_temp_out();
    forget_temp();
  }
  spill_ = Spill::none;
  whole_ = held_.size();
  if (whole_ >= kBlock) push();
}

void WholeValueOutput::drop_value() {
  held_.resize(whole_);
  const Spill spill = std::exchange(spill_, Spill::none);
  if (spill == Spill::temp) {
    forget_temp();
  } else if (spill == Spill::output) {
    if (::ftruncate(fd_, whole_end_) != 0 || ::lseek(fd_, whole_end_, SEEK_SET) < 0)
      io_error("cannot cut the output back to the values before the one that failed", errno);
  }
}

void WholeValueOutput::push() {
  if (whole_ == 0) return;
  out_.write(held_.data(), whole_);
  held_.erase(0, whole_);
  whole_ = 0;
  // A large value held in memory leaves its memory behind: give it back.
  if (held_.capacity() > (std::size_t{1} << 20) && held_.size() < kBlock) held_.shrink_to_fit();
}

}  // namespace transit::cli
