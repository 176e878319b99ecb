// SPDX-License-Identifier: Apache-2.0
// The size of a set of values in every encoding, shared by `transit bench` and transit-bench.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <span>
#include <string>
#include <string_view>

#include "transit/value.h"
#include "transit/writer.h"

namespace transit::cli {

/// The values as plain JSON, the way an application would write them without Transit: text
/// types (keyword, symbol, URI, UUID, character, big decimal) as strings, bytes as base64,
/// instants as epoch milliseconds, big integers as numbers, lists and sets as arrays, a tagged
/// value as its representation, a map as an object when every key is text and as an array of
/// [key, value] pairs otherwise. NaN and the infinities (which JSON lacks) and user objects
/// become null. One value per line.
std::string plain_json(std::span<const Value> values);

/// The values written to one stream in `encoding` with `options`, held in memory. Throws
/// what the writer throws.
std::string write_values(std::span<const Value> values, Encoding encoding,
                         const WriteOptions& options);

/// Bytes the values take in each form, all values written to one stream.
struct Sizes {
  std::size_t plain_json = 0;
  std::size_t json = 0;
  std::size_t json_verbose = 0;
  std::size_t msgpack = 0;
  std::size_t msgpack_float32 = 0;  ///< MessagePack with WriteOptions::float32
};

/// Writes the values in every form and counts the bytes. Throws what the writer throws.
Sizes measure_sizes(std::span<const Value> values);

/// 1234567 as "1,234,567".
std::string thousands(std::size_t n);

/// One line of a size table.
struct SizeRow {
  std::string name;
  Sizes sizes;
};

/// Prints the rows as a table: bytes in each form and, for each, its share of plain JSON.
void print_size_table(std::ostream& out, std::span<const SizeRow> rows);

}  // namespace transit::cli
