// SPDX-License-Identifier: Apache-2.0
// Must not compile: a string view read would point into a buffer the read frees. The test
// (tests/CMakeLists.txt, compile_fail_*) passes when the compiler says to read a std::string.
#include <string_view>

#include "transit/typed.h"

int main() { return static_cast<int>(transit::read<std::string_view>("[\"~#'\",\"a\"]").size()); }
