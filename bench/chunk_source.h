// SPDX-License-Identifier: Apache-2.0
// A Source over an in-memory text that hands it out at most `chunk` bytes a read, as a pipe
// or a socket would: the benchmarks' reads from a Source (transit-bench's Read/...Source rows
// and memory table, transit-read-file's `source` mode).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <string_view>

#include "transit/reader.h"

namespace transit::bench {

class ChunkSource final : public Source {
 public:
  ChunkSource(std::string_view text, std::size_t chunk) : text_(text), chunk_(chunk) {}
  std::size_t read(char* buffer, std::size_t size) override {
    const std::size_t n = std::min({size, text_.size(), chunk_});
    std::memcpy(buffer, text_.data(), n);
    text_.remove_prefix(n);
    return n;
  }

 private:
  std::string_view text_;
  std::size_t chunk_;
};

}  // namespace transit::bench
