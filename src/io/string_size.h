// SPDX-License-Identifier: Apache-2.0
// StringSink's fallback for sizing its string to a region about to be written (see sink.cpp).
#pragma once

#include <cstddef>
#include <string>

namespace transit::detail {

/// Sets the string's size to `n`, at most its capacity, as StringSink's region needs: no
/// reallocation, the bytes before the old size kept. This is the fallback of sink.cpp's
/// set_size where std::string::resize_and_overwrite (C++23) is missing: the new bytes are
/// zero-filled, which is correct, only slower. It is a function of its own so that the tests
/// build it and call it whatever standard the library is built with (sink.cpp is C++23 where
/// the compiler has it, and then never calls this).
inline void set_size_by_resize(std::string& s, std::size_t n) { s.resize(n); }

}  // namespace transit::detail
