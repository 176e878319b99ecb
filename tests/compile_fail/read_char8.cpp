// SPDX-License-Identifier: Apache-2.0
// Must not compile: a char8_t alone is a UTF-8 code unit, no character past ASCII, and as
// likely a small integer. The test (tests/CMakeLists.txt, compile_fail_*) passes when the
// compiler says that a char is ambiguous.
#include "transit/typed.h"

int main() { return static_cast<int>(transit::read<char8_t>("[\"~#'\",\"~ca\"]")); }
