// SPDX-License-Identifier: Apache-2.0
// Conformance over the transit-format exemplars: each case is one value in EDN (as Clojure
// printed it), compact JSON and JSON-Verbose (as transit-clj wrote them). The folder comes from
// the environment variable TRANSIT_EXEMPLARS, else from the build (TRANSIT_DEFAULT_EXEMPLARS).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "support/edn.h"
#include "support/exemplars.h"
#include "transit/transit.h"

namespace {

namespace fs = std::filesystem;
using transit::Encoding;
using transit::Kind;
using transit::Value;

// The exemplar set of transit-format 0.8 "simple".
constexpr std::size_t kExemplarCount = 67;
// The parameter of the one placeholder case instantiated when the folder is missing.
constexpr std::string_view kMissing = transit::test::kMissingCase;

using transit::test::exemplar_dir;
using transit::test::slurp;

bool folder_exists() { return transit::test::exemplars_present(); }

// Every case that has a compact JSON file: "<name>.json" beside "<name>.verbose.json".
std::vector<std::string> case_names() {
  return transit::test::exemplar_cases(".json", ".verbose.json");
}

bool holds_double(const Value& v) {
  switch (v.kind()) {
    case Kind::floating:
      return true;
    case Kind::array:
    case Kind::list:
    case Kind::set:
      return std::any_of(v.items().begin(), v.items().end(), holds_double);
    case Kind::map:
    case Kind::link:
      return std::any_of(v.entries().begin(), v.entries().end(),
                         [](const transit::Entry& e) { return holds_double(e.first) || holds_double(e.second); });
    case Kind::tagged:
      return holds_double(v.rep());
    default:
      return false;
  }
}

// The text with every JSON number outside a string replaced by '#', and the numbers' values, so
// two texts that differ only in how they spell numbers can be compared.
std::pair<std::string, std::vector<double>> split_numbers(std::string_view text) {
  std::string skeleton;
  std::vector<double> numbers;
  for (std::size_t i = 0; i < text.size();) {
    const char c = text[i];
    if (c == '"') {
      const std::size_t start = i++;
      while (i < text.size() && text[i] != '"') i += text[i] == '\\' ? 2 : 1;
      skeleton.append(text.substr(start, ++i - start));
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      const std::size_t start = i;
      while (i < text.size() && std::string_view("0123456789+-.eE").find(text[i]) != std::string_view::npos) ++i;
      numbers.push_back(std::strtod(std::string(text.substr(start, i - start)).c_str(), nullptr));
      skeleton.push_back('#');
    } else {
      skeleton.push_back(c);
      ++i;
    }
  }
  return {skeleton, numbers};
}

// Cases whose files we do not write back byte for byte, and why. Every other case must be
// written exactly as the reference implementation wrote it, in both encodings. Each entry is
// checked to still differ, so the list cannot go stale.
struct Exception {
  std::string reason;
  bool only_number_spelling;  // the texts are equal once numbers are compared as values
};
const std::map<std::string, Exception>& byte_exceptions() {
  static const std::map<std::string, Exception> exceptions = {
      {"doubles_interesting",
       {"Java prints doubles as Double.toString does (4.0E11, 2.998E8, 6.626E-34); we print the "
        "shortest text that reads back exactly (4e+11, 299800000.0, 6.626e-34)",
        true}},
  };
  return exceptions;
}

class Exemplar : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() == kMissing)
      GTEST_SKIP() << "exemplar folder " << exemplar_dir().string() << " not found; set TRANSIT_EXEMPLARS";
  }
  fs::path file(std::string_view suffix) const { return exemplar_dir() / (GetParam() + std::string(suffix)); }
};

TEST_P(Exemplar, JsonAndVerboseDecodeToTheSameValue) {
  const Value compact = transit::read(slurp(file(".json")));
  const Value verbose = transit::read(slurp(file(".verbose.json")));
  EXPECT_EQ(compact, verbose) << transit::to_edn(compact) << "\nvs\n" << transit::to_edn(verbose);
}

TEST_P(Exemplar, DecodedValueEqualsTheEdn) {
  std::optional<Value> edn = transit::test::parse_edn(slurp(file(".edn")));
  if (!edn) {
    // Clojure printed these values as opaque Java objects; what they hold is written out here.
    static const std::map<std::string, Value> unprintable = {
        {"maps_unrecognized_keys",
         Value::array({Value::tagged("abcde", transit::kw("anything")),
                       Value::tagged("fghij", transit::kw("anything-else"))})},
    };
    const auto it = unprintable.find(GetParam());
    ASSERT_NE(it, unprintable.end()) << "parse_edn gave no value for " << GetParam();
    edn = it->second;
  }
  const Value compact = transit::read(slurp(file(".json")));
  EXPECT_EQ(compact, *edn) << transit::to_edn(compact) << "\nvs\n" << transit::to_edn(*edn);
}

TEST_P(Exemplar, RewrittenValueDecodesTheSame) {
  const Value v = transit::read(slurp(file(".json")));
  for (const Encoding enc : {Encoding::json, Encoding::json_verbose}) {
    SCOPED_TRACE(std::string(transit::encoding_name(enc)));
    EXPECT_EQ(transit::read(transit::write(v, enc)), v);
  }
}

// The original bytes, or for a listed exception the same text up to the spelling of numbers.
void expect_original_bytes(const std::string& name, const std::string& original, const std::string& rewritten,
                           const Value& v) {
  const auto& exceptions = byte_exceptions();
  const auto it = exceptions.find(name);
  if (it == exceptions.end()) {
    EXPECT_EQ(rewritten, original);
    return;
  }
  EXPECT_NE(rewritten, original) << "listed as an exception (" << it->second.reason
                                 << ") but now written byte for byte: remove it from the list";
  if (it->second.only_number_spelling) {
    EXPECT_TRUE(holds_double(v)) << "only doubles are spelled differently";
    const auto [original_skeleton, original_numbers] = split_numbers(original);
    const auto [skeleton, numbers] = split_numbers(rewritten);
    EXPECT_EQ(skeleton, original_skeleton);
    EXPECT_EQ(numbers, original_numbers);
  }
}

TEST_P(Exemplar, RewritingJsonGivesTheOriginalBytes) {
  const std::string original = slurp(file(".json"));
  const Value v = transit::read(original);
  expect_original_bytes(GetParam(), original, transit::write(v, Encoding::json), v);
}

TEST_P(Exemplar, RewritingVerboseGivesTheOriginalBytes) {
  const std::string original = slurp(file(".verbose.json"));
  const Value v = transit::read(original);
  expect_original_bytes(GetParam(), original, transit::write(v, Encoding::json_verbose), v);
}

INSTANTIATE_TEST_SUITE_P(Simple, Exemplar, ::testing::ValuesIn(case_names()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

TEST(ExemplarFolder, HoldsAll67Cases) {
  if (!folder_exists())
    GTEST_SKIP() << "exemplar folder " << exemplar_dir().string() << " not found; set TRANSIT_EXEMPLARS";
  const std::vector<std::string> names = case_names();
  EXPECT_EQ(names.size(), kExemplarCount);
  for (const auto& [name, exception] : byte_exceptions())
    EXPECT_TRUE(std::find(names.begin(), names.end(), name) != names.end()) << "unknown exception " << name;
}

}  // namespace
