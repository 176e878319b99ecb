// SPDX-License-Identifier: Apache-2.0
// An LD_PRELOAD shim for instruction counts (bench/count_rows.sh): std::random_device gives
// the same numbers every run, so the keyed hashes seeded from it (Value maps, the read cache)
// repeat, and with them the counts to the instruction. Never linked into anything.
//   g++ -O2 -shared -fPIC -std=c++20 bench/fixed_random.cpp -o /tmp/fixed_random.so
#include <random>

unsigned int std::random_device::_M_getval() {
  static unsigned int next = 0x9e3779b9u;
  next = next * 1664525u + 1013904223u;
  return next;
}
