// SPDX-License-Identifier: Apache-2.0
// The main of transit_typed_batch_tests: the typed-read tests again, with every typed read of
// JSON in memory whose options leave typed_batch_tokens at ReadOptions::kLibraryDefault taped
// in batches of 3 tokens (the library's default batch set through the test hook), so that each
// reads its value across many batch boundaries, as a large document does.
#include <gtest/gtest.h>

#include <cstddef>
#include <string>
#include <vector>

#include "testing.h"
#include "transit/transit.h"

namespace {

constexpr std::size_t kBatchTokens = 3;

// The batches taped after the first by one typed read of `text` with `options`.
std::size_t refills_of(const std::string& text, transit::ReadOptions options) {
  const std::size_t before = transit::detail::testing::refills();
  (void)transit::read<std::vector<std::string>>(text, transit::Encoding::json, options);
  return transit::detail::testing::refills() - before;
}

// Fails unless the reads in this binary are batched by 3 tokens.
TEST(BatchBinary, TypedReadsWithTheDefaultOptionsTakeBatchesOfThreeTokens) {
  if (!transit::detail::testing::built_with_simdjson())
    GTEST_SKIP() << "typed reads tape simdjson's document in batches; this library has none";
  EXPECT_EQ(transit::detail::testing::default_typed_batch_tokens(), kBatchTokens);
  ASSERT_EQ(transit::ReadOptions{}.typed_batch_tokens, transit::ReadOptions::kLibraryDefault);
  std::string text = "[";
  for (int i = 0; i < 60; ++i) text += (i ? ",\"s" : "\"s") + std::to_string(i) + "\"";
  text += "]";
  auto batched = [](std::size_t tokens) {
    transit::ReadOptions o;
    o.typed_batch_tokens = tokens;
    return o;
  };
  const std::size_t by_default = refills_of(text, {});
  EXPECT_GT(by_default, 10u);
  EXPECT_LT(by_default, refills_of(text, batched(kBatchTokens - 1)));
  EXPECT_EQ(by_default, refills_of(text, batched(kBatchTokens)));
  EXPECT_GT(by_default, refills_of(text, batched(kBatchTokens + 1)));
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  transit::detail::testing::set_default_typed_batch_tokens(kBatchTokens);
  return RUN_ALL_TESTS();
}
