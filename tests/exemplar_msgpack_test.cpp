// SPDX-License-Identifier: Apache-2.0
// MessagePack conformance over the transit-format exemplars: each `.mp` (as transit-clj wrote
// it) decodes to the value of its `.json`, and writing that value gives the `.mp` bytes back,
// but for the listed exceptions. The folder comes from the environment variable
// TRANSIT_EXEMPLARS, else from the build (TRANSIT_DEFAULT_EXEMPLARS).
#include <gtest/gtest.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "transit/transit.h"

namespace {

namespace fs = std::filesystem;
using transit::Encoding;
using transit::Value;

constexpr const char* kMissing = "folder_missing";

fs::path exemplar_dir() {
  if (const char* env = std::getenv("TRANSIT_EXEMPLARS"); env != nullptr && *env != '\0') return env;
  return TRANSIT_DEFAULT_EXEMPLARS;
}

bool folder_exists() { return fs::is_directory(exemplar_dir()); }

std::vector<std::string> mp_cases() {
  if (!folder_exists()) return {kMissing};
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(exemplar_dir())) {
    const std::string file = entry.path().filename().string();
    if (file.ends_with(".mp")) names.push_back(file.substr(0, file.size() - 3));
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path.string());
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

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

// Cases we do not write back byte for byte, and why. Each is checked to still differ, so the
// list cannot go stale.
const std::map<std::string, std::string>& byte_exceptions() {
  static const std::map<std::string, std::string> exceptions = {
      {"ints_interesting",
       "2^63 .. 2^64-1 are written as native uint 64 (0xcf), the smallest encoding, where "
       "transit-clj writes every BigInteger as a \"~n\" string; beyond 2^64-1 both write \"~n\""},
  };
  return exceptions;
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
  const auto it = byte_exceptions().find(GetParam());
  if (it == byte_exceptions().end()) {
    EXPECT_EQ(hex(rewritten), hex(original));
  } else {
    EXPECT_NE(rewritten, original) << "listed as an exception (" << it->second
                                   << ") but now written byte for byte: remove it from the list";
  }
}

INSTANTIATE_TEST_SUITE_P(Simple, MsgpackExemplar, ::testing::ValuesIn(mp_cases()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

// The bytes of each item of a top-level MessagePack array 16, cut with a streaming reader.
std::vector<std::string> array16_items(const std::string& bytes) {
  EXPECT_EQ(static_cast<unsigned char>(bytes.at(0)), 0xdc);
  const std::string body = bytes.substr(3);
  transit::Reader reader(body, Encoding::msgpack);
  std::vector<std::string> items;
  for (std::size_t start = 0; reader.next(); start = reader.offset())
    items.push_back(body.substr(start, reader.offset() - start));
  return items;
}

// The one exception differs exactly where it says: each "~n" string of a value that a uint 64
// holds is a 0xcf item with that value; every other item has transit-clj's bytes.
TEST(MsgpackExemplarExceptions, IntsInterestingDiffersOnlyInUint64Values) {
  if (!folder_exists())
    GTEST_SKIP() << "exemplar folder " << exemplar_dir().string() << " not found; set TRANSIT_EXEMPLARS";
  const std::string original = slurp(exemplar_dir() / "ints_interesting.mp");
  const std::vector<std::string> theirs = array16_items(original);
  const std::vector<std::string> ours =
      array16_items(transit::write(transit::read(original, Encoding::msgpack), Encoding::msgpack));
  ASSERT_EQ(ours.size(), theirs.size());
  std::size_t uint64s = 0;
  for (std::size_t i = 0; i < ours.size(); ++i) {
    const Value item = transit::read(theirs[i], Encoding::msgpack);
    std::uint64_t u = 0;
    const bool is_uint64 =
        item.kind() == transit::Kind::big_integer &&
        std::from_chars(item.as_string().data(), item.as_string().data() + item.as_string().size(), u)
                .ec == std::errc();
    if (!is_uint64) {
      EXPECT_EQ(hex(ours[i]), hex(theirs[i])) << "item " << i;
      continue;
    }
    ++uint64s;
    std::string expected(1, static_cast<char>(0xcf));
    for (int shift = 56; shift >= 0; shift -= 8) expected.push_back(static_cast<char>(u >> shift));
    EXPECT_EQ(hex(ours[i]), hex(expected)) << "item " << i << ": " << item.as_string();
    const std::string tilde_n = "~n" + std::string(item.as_string());
    EXPECT_EQ(hex(theirs[i]), hex(static_cast<char>(0xa0 | tilde_n.size()) + tilde_n))
        << "transit-clj wrote a \"~n\" fixstr";
  }
  EXPECT_EQ(uint64s, 5u);  // 2^63, 2^63+1, 2^63+2, 2^64-2, 2^64-1
}

}  // namespace
