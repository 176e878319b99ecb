// SPDX-License-Identifier: Apache-2.0
// The README's examples, compiled and checked, so the README cannot drift from the code.
#include <gtest/gtest.h>

#include <cassert>

#include "transit/transit.h"

namespace {

TEST(Readme, QuickStartInCode) {
  using transit::Value, transit::kw;

  Value order = Value::map({
      {kw("id"), Value::uuid({0x5a2cbea3e8c6428bULL, 0xb52521239370dd55ULL})},
      {kw("tags"), Value::set({kw("gift"), kw("express")})},
      {kw("total"), Value::big_decimal("19.99")},
  });
  std::string text = transit::write(order, transit::Encoding::json);
  EXPECT_EQ(text,
            R"(["^ ","~:id","~u5a2cbea3-e8c6-428b-b525-21239370dd55","~:tags",["~#set",)"
            R"(["~:gift","~:express"]],"~:total","~f19.99"])");
  Value back = transit::read(text);
  EXPECT_EQ(back, order);
  EXPECT_EQ(transit::to_edn(back),
            R"({:id #uuid "5a2cbea3-e8c6-428b-b525-21239370dd55", :tags #{:gift :express}, )"
            R"(:total 19.99M})");
}

TEST(Readme, ErrorMessageExample) {
  try {
    transit::read(R"(["^ ","~:a",[1,2,"~:abcd","^1"]])");
    FAIL() << "expected an error";
  } catch (const transit::Error& e) {
    EXPECT_STREQ(e.what(),
                 "transit: bad_cache_code at byte 26 (line 1, column 27) in $[:a][3]: cache code "
                 "\"^1\" (slot 1) is not assigned; 1 slots are");
    EXPECT_EQ(e.code(), transit::Errc::bad_cache_code);
    EXPECT_EQ(e.offset(), 26u);
  }
}

}  // namespace
