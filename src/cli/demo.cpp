// SPDX-License-Identifier: Apache-2.0
#include "demo.h"

#include <ostream>

#include "transit/transit.h"

namespace transit::cli {

Value demo_value() {
  auto line_item = [](std::string_view sku, int qty, double price) {
    return Value::map({{kw("sku"), sku}, {kw("quantity"), qty}, {kw("unit-price"), price}});
  };
  return Value::map({
      {kw("order/id"), Value::uuid({0x5a2cbea3e8c6428bULL, 0xb52521239370dd55ULL})},
      {kw("order/placed"), Value::instant(1396909037000)},
      {kw("order/status"), kw("shipped")},
      {kw("order/handler"), sym("orders/fulfil")},
      {kw("order/receipt"), Value::uri("https://example.com/receipts/7")},
      {kw("order/total-cents"), Value::big_integer("123456789012345678901234567890")},
      {kw("order/tax-rate"), Value::big_decimal("0.0825")},
      {kw("order/tags"), Value::set({kw("gift"), kw("express"), "fragile"})},
      {kw("order/history"), Value::list({kw("placed"), kw("paid"), kw("shipped")})},
      {kw("order/lines"), Value::array({line_item("A-100", 2, 9.5), line_item("B-200", 1, 24.25),
                                        line_item("C-300", 12, 0.1)})},
      {kw("warehouse/bins"),
       Value::map({{Value::array({3, 7}), "aisle 3, shelf 7"},
                   {Value::array({4, 1}), "aisle 4, shelf 1"}})},
      {kw("order/courier"), Value::tagged("point", Value::array({52.37, 4.89}))},
      {kw("order/grade"), Value::character(U'A')},
      {"~note", "strings that look like Transit are escaped"},
  });
}

int run_demo(std::ostream& out) {
  const Value sample = demo_value();
  out << "value (EDN):\n  " << to_edn(sample) << "\n\n";
  bool ok = true;
  for (Encoding encoding : {Encoding::json, Encoding::json_verbose}) {
    const std::string text = write(sample, encoding);
    const Value back = read(text, encoding);
    const bool same = back == sample;
    ok = ok && same;
    out << encoding_name(encoding) << " (" << text.size() << " bytes):\n  " << text << "\n"
        << "  read back: " << (same ? "equal" : "DIFFERENT") << "\n\n";
  }
  out << "round trip: " << (ok ? "ok" : "FAILED") << "\n";
  return ok ? 0 : 1;
}

}  // namespace transit::cli
