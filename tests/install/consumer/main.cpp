// SPDX-License-Identifier: Apache-2.0
#include <iostream>

#include <transit/transit.h>

int main() {
  const transit::Value v = transit::Value::map({{transit::kw("installed"), true}});
  const std::string text = transit::write(v);
  if (transit::read(text) != v) return 1;
  std::cout << text << "\n";
  return 0;
}
