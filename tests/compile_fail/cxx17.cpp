// SPDX-License-Identifier: Apache-2.0
// Built as C++17, a consumer must be told first that transit-cpp needs C++20. sink.h comes
// first: it is the header that needs no Value.
#include <transit/sink.h>
#include <transit/transit.h>
