// SPDX-License-Identifier: Apache-2.0
// For the tests of a reader kept for the next (MsgpackReader::retire, keep_json_reader): read
// options that each differ from the defaults in one thing (a kept reader must not be taken
// under other options), and the comparison of reads with readers kept and made new.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <vector>

#include "transit/reader.h"

namespace transit::test {

/// The defaults; then max_depth 2, max_collection_length 2, max_string_length 2,
/// max_value_bytes `value_bytes`, and `handlers`, one each.
inline std::vector<ReadOptions> one_limit_each(const ReadHandlers& handlers,
                                               std::size_t value_bytes) {
  std::vector<ReadOptions> options(6);
  options[1].max_depth = 2;
  options[2].max_collection_length = 2;
  options[3].max_string_length = 2;
  options[4].max_value_bytes = value_bytes;
  options[5].handlers = &handlers;
  return options;
}

/// `outcomes()` (a run of reads, one after another on this thread) with every reader made new
/// (`set_reuse(false)`: `kept()` then holds none) and then with readers kept: the same.
template <class Outcomes>
void expect_kept_readers_read_as_new(const Outcomes& outcomes, void (*set_reuse)(bool) noexcept,
                                     bool (*kept)() noexcept) {
  set_reuse(false);
  const auto fresh = outcomes();
  EXPECT_FALSE(kept());
  set_reuse(true);
  const auto reused = outcomes();
  ASSERT_EQ(fresh.size(), reused.size());
  for (std::size_t i = 0; i < fresh.size(); ++i) EXPECT_EQ(fresh[i], reused[i]) << i;
}

}  // namespace transit::test
