// SPDX-License-Identifier: Apache-2.0
// Must not compile: a span read would point into a buffer the read frees. The test
// (tests/CMakeLists.txt, compile_fail_*) passes when the compiler says to read a std::vector.
#include <cstddef>
#include <span>

#include "transit/typed.h"

int main() {
  return static_cast<int>(transit::read<std::span<const std::byte>>("[\"~#'\",\"~bAA==\"]").size());
}
