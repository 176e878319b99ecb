// SPDX-License-Identifier: Apache-2.0
// Must not compile: a char alone is a character or a small integer, and the writer cannot tell
// which (char16_t, char32_t and wchar_t are characters, `~c`). The test (tests/CMakeLists.txt,
// compile_fail_*) passes when the compiler says that a char is ambiguous.
#include "transit/write_handlers.h"
#include "transit/writer.h"

int main() { return static_cast<int>(transit::write('a').size()); }
