// SPDX-License-Identifier: Apache-2.0
// The sink `transit convert` writes through: its output holds complete values only.
#pragma once

#include <cstddef>
#include <string>
#include <sys/types.h>

#include "transit/sink.h"

namespace transit::cli {

/// A Writer hands a value larger than its buffer (64 KiB) to its sink as it goes, before the
/// value is known to succeed; a value that then fails (too_large, too_deep) would leave its
/// first bytes at the end of the output, where no reader can read past them. This sink holds
/// a value's bytes until the value is complete (`value_done`), and forgets them when it fails
/// (`drop_value`). The first kHeldBytes of a value are held in memory; past that, a regular
/// file takes them as they come and is cut back to its last whole value if the value fails,
/// and any other output (a pipe, a terminal, a device) gets them from a temporary file once
/// the value is complete. Memory stays flat whatever a value expands to.
class WholeValueOutput final : public Sink {
 public:
  static constexpr std::size_t kHeldBytes = std::size_t{8} << 20;

  /// Values go out as the Writer wrote them, a JSON value with its newline (convert sets
  /// WriteOptions::newline_after_value).
  explicit WholeValueOutput(int fd) : fd_(fd), out_(fd) {}
  ~WholeValueOutput() override;
  WholeValueOutput(const WholeValueOutput&) = delete;
  WholeValueOutput& operator=(const WholeValueOutput&) = delete;

  /// Bytes of the value being written (the Writer's).
  void write(const char* data, std::size_t size) override;
  /// The bytes written since the last value_done or drop_value are one whole value (the
  /// Writer has been flushed after it). Complete values go out in blocks of 32 KiB or more.
  void value_done();
  /// The value being written failed: none of it reaches the output. Throws Error(io) when a
  /// file's end cannot be cut back to the values before it.
  void drop_value();
  /// Writes every complete value now (before waiting for input, and at the end).
  void push();

 private:
  enum class Spill { none, output, temp };
  bool start_spill();
  void to_temp(const char* data, std::size_t size);
  void copy_temp_out();
  void forget_temp() noexcept;

  int fd_;
  FdSink out_;
  std::string held_;       // complete values [0, whole_), then the value being written
  std::size_t whole_ = 0;
  Spill spill_ = Spill::none;
  off_t whole_end_ = 0;    // Spill::output: the file's size before the value
  int temp_ = -1;          // the temporary file, made at the first value that needs it
  off_t temp_size_ = 0;
  bool no_temp_ = false;   // no temporary file could be made: hold the value in memory
};

}  // namespace transit::cli
