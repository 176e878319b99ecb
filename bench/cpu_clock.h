// SPDX-License-Identifier: Apache-2.0
// The clock the bench tools time a pair of operations by, as `transit bench` does
// (src/cli/bench.cpp keeps its own copy, in the product tool, rather than a header shared with
// the benchmarks).
#pragma once

#include <time.h>

#include <cstdint>

namespace transit::bench {

/// This thread's CPU time, user and system, in nanoseconds: what the work cost, page faults
/// included, without the time the thread waited for a core.
inline std::int64_t thread_cpu_ns() {
  timespec t{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return std::int64_t{t.tv_sec} * 1'000'000'000 + t.tv_nsec;
}

}  // namespace transit::bench
