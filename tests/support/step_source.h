// SPDX-License-Identifier: Apache-2.0
// A Source that hands out at most `step` bytes per read, so that tests and fuzzers can cut
// the input anywhere, as a pipe may.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <utility>

#include "transit/reader.h"

namespace transit::test {

class StepSource final : public transit::Source {
 public:
  StepSource(std::string data, std::size_t step) : data_(std::move(data)), step_(step) {}
  std::size_t read(char* buffer, std::size_t size) override {
    const std::size_t n = std::min({size, step_, data_.size() - pos_});
    data_.copy(buffer, n, pos_);
    pos_ += n;
    ++reads_;
    return n;
  }
  /// Calls to read() so far.
  std::size_t reads() const noexcept { return reads_; }

 private:
  std::string data_;
  std::size_t step_;
  std::size_t pos_ = 0;
  std::size_t reads_ = 0;
};

/// The first value of `text` read as JSON from a StepSource of `step` bytes a read: shorter
/// than a chunk, so RapidJSON's events read it, as a pipe's text is (text in memory, and full
/// chunks, are simdjson's where the build has it).
inline Value read_first_in_steps(std::string text, std::size_t step = 7) {
  StepSource source(std::move(text), step);
  Reader reader(source, Encoding::json);
  return reader.next().value();
}

}  // namespace transit::test
