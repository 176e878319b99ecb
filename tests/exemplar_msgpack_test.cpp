// SPDX-License-Identifier: Apache-2.0
// MessagePack conformance over the transit-format exemplars: each `.mp` (as transit-clj wrote
// it) decodes to the value of its `.json`, and writing that value gives the `.mp` bytes back,
// but for the listed exceptions. The folder comes from the environment variable
// TRANSIT_EXEMPLARS, else from the build (TRANSIT_DEFAULT_EXEMPLARS).
#include <gtest/gtest.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "support/exemplars.h"
#include "transit/transit.h"

namespace {

namespace fs = std::filesystem;
using transit::Encoding;
using transit::Value;

using transit::test::exemplar_dir;
using transit::test::slurp;

constexpr std::string_view kMissing = transit::test::kMissingCase;

std::vector<std::string> mp_cases() { return transit::test::exemplar_cases(".mp"); }

std::string hex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (const char c : bytes) {
    const auto b = static_cast<unsigned char>(c);
    if (!out.empty()) out.push_back(' ');
    out.push_back(kDigits[b >> 4]);
    out.push_back(kDigits[b & 15]);
  }
  return out;
}

class MsgpackExemplar : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() == kMissing)
      GTEST_SKIP() << "exemplar folder " << exemplar_dir().string()
                   << " not found; set TRANSIT_EXEMPLARS";
  }
  fs::path file(std::string_view suffix) const {
    return exemplar_dir() / (GetParam() + std::string(suffix));
  }
};

TEST_P(MsgpackExemplar, DecodesEqualToTheJson) {
  const Value from_mp = transit::read(slurp(file(".mp")), Encoding::msgpack);
  const Value from_json = transit::read(slurp(file(".json")));
  EXPECT_EQ(from_mp, from_json) << transit::to_edn(from_mp) << "\nvs\n" << transit::to_edn(from_json);
}

TEST_P(MsgpackExemplar, RewritingGivesTheOriginalBytes) {
  const std::string original = slurp(file(".mp"));
  const Value v = transit::read(original, Encoding::msgpack);
  const std::string rewritten = transit::write(v, Encoding::msgpack);
  EXPECT_EQ(transit::read(rewritten, Encoding::msgpack), v);
  // Every exemplar, ints_interesting included: integers beyond int64 are "~n" strings, as
  // transit-clj writes them (transit-java cannot read a uint 64 above INT64_MAX).
  EXPECT_EQ(hex(rewritten), hex(original));
}

INSTANTIATE_TEST_SUITE_P(Simple, MsgpackExemplar, ::testing::ValuesIn(mp_cases()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

}  // namespace
