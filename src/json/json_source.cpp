// SPDX-License-Identifier: Apache-2.0
// Pieces of a read from RapidJSON's events (a Source, or text simdjson leaves to RapidJSON)
// kept out of JSON's unit (json_reader.cpp), so that they move none of the code of its walk
// of simdjson's documents, the counted read every in-memory read takes: changed there, the
// memchr of SourceInput::refill made GCC inline otherwise in that walk (twitter's in-memory
// JSON read 0.4% more instructions).
#include <cstring>
#include <string>

#include "decoder.h"
#include "json/json_reader.h"

namespace transit::detail {

void Decoder::validated_string(std::string_view raw) { checked_string(raw, false); }

namespace json {

bool SourceInput::refill() {
  if (!source_ || eof_) return false;
  // A token that started in this chunk is placed now, before its bytes are dropped.
  if (!armed_ && !token_located_ && token_ >= before_) {
    token_loc_ = locate(token_);
    token_located_ = true;
  }
  // Keep line numbers for error messages across dropped chunks. By memchr: a byte at a time,
  // this loop was 8.5% of keywords' read from a Source (11.1 M instructions for its 1.4 MB
  // with no newline).
  for (const char* q = chunk_;
       (q = static_cast<const char*>(std::memchr(q, '\n', static_cast<std::size_t>(p_ - q)))) != nullptr;
       ++q) {
    ++lines_;
    line_start_ = before_ + static_cast<std::size_t>(q - chunk_) + 1;
  }
  before_ += static_cast<std::size_t>(p_ - chunk_);
  chunk_ = p_ = end_ = buf_.data();
  // Checked before reading more, so a value never holds more than the limit plus a chunk.
  if (before_ > value_end_)
    throw_error(Errc::too_large, "value is longer than " + std::to_string(max_value_bytes_) + " bytes");
  const std::size_t n = source_->read(buf_.data(), chunk_size_);
  end_ = p_ + n;
  eof_ = n == 0;
  return n != 0;
}

}  // namespace json
}  // namespace transit::detail
