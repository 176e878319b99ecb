// SPDX-License-Identifier: Apache-2.0
// The samples of docs/typed-data.md, compiled and checked (see the doc-sample regions and
// DocSamples.EveryCppBlockIsCompiledInATest in readme_test.cpp).
#include <gtest/gtest.h>

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "transit/transit.h"

namespace {

enum class Carrier { post, courier };

}  // namespace

// doc-sample begin
template <>
struct transit::EnumNames<Carrier> {
  static constexpr std::array names{std::pair{Carrier::post, "post"},
                                    std::pair{Carrier::courier, "courier"}};
};
// doc-sample end

namespace {

TEST(TypedDocs, RecordsBothWays) {
  // doc-sample begin
  struct Money {
    transit::BigDecimal amount;
    std::string currency;
  };

  struct Line {
    std::string sku;
    int quantity = 0;
    std::optional<Money> discount;  // may be missing on the wire
  };

  auto money = transit::Record<Money>("shop/money")
                   .field(&Money::amount, "amount")
                   .field(&Money::currency, "currency");
  auto line = transit::Record<Line>("shop/line")
                  .field(&Line::sku, "sku")
                  .field(&Line::quantity, "quantity")
                  .field(&Line::discount, "discount");

  transit::RegistryBuilder builder;  // the write side
  builder.add(money).add(line);
  const transit::Registry registry = std::move(builder).freeze();
  transit::ReadHandlers handlers;    // the read side, from the same descriptions
  handlers.add(money).add(line);

  std::vector<Line> lines{{"TEA-01", 2, Money{{"1.50"}, "EUR"}}};
  std::string text = transit::write(lines, transit::Encoding::json, {.registry = &registry});
  // [["~#shop/line",["^ ","~:sku","TEA-01","~:quantity",2,"~:discount",
  //   ["~#shop/money",["^ ","~:amount","~f1.50","~:currency","EUR"]]]]]
  auto back = transit::read<std::vector<Line>>(text, transit::Encoding::json,
                                               {.handlers = &handlers});
  // doc-sample end
  EXPECT_EQ(text,
            R"([["~#shop/line",["^ ","~:sku","TEA-01","~:quantity",2,"~:discount",)"
            R"(["~#shop/money",["^ ","~:amount","~f1.50","~:currency","EUR"]]]]])");
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0].sku, "TEA-01");
  EXPECT_EQ(back[0].quantity, 2);
  EXPECT_EQ(back[0].discount->amount.text, "1.50");
  EXPECT_EQ(back[0].discount->currency, "EUR");

  // The error the page shows.
  try {
    (void)transit::read<Line>(R"(["~#shop/line",["^ ","~:sku","B","~:quantity","two"]])",
                              transit::Encoding::json, {.handlers = &handlers});
    FAIL();
  } catch (const transit::Error& e) {
    EXPECT_STREQ(e.what(),
                 "transit: type_mismatch at byte 46 (line 1, column 47) in "
                 "$<#shop/line>[:quantity]: expected int, got string \"two\"");
  }
}

TEST(TypedDocs, EnumsByName) {
  EXPECT_EQ(transit::write(std::vector<Carrier>{Carrier::courier}), R"(["~:courier"])");
  EXPECT_EQ(transit::read<std::vector<Carrier>>(R"(["~:post"])"), std::vector<Carrier>{Carrier::post});
}

}  // namespace
