// SPDX-License-Identifier: Apache-2.0
// Must not compile: a char8_t alone is a UTF-8 code unit, no character past ASCII, and as
// likely a small integer, so a Value is not made of one (char16_t, char32_t and wchar_t are
// characters). The test (tests/CMakeLists.txt, compile_fail_*) passes when the compiler names
// the deleted constructor Value(char8_t).
#include "transit/value.h"

int main() {
  const transit::Value v = u8'a';
  return static_cast<int>(v.kind());
}
