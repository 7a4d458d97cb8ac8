// How many threads a program may usefully start: the processors this process
// may run on, which can be fewer than the machine has.
#pragma once

#include <algorithm>
#include <thread>

#if defined(__linux__)
#include <sched.h>
#endif

namespace program {

/// The number of processors this process may run on, at least 1: on Linux its
/// CPU affinity (sched_getaffinity), which taskset, a container's cpuset or a
/// batch system may set below the machine's count; elsewhere, or if the
/// affinity cannot be read, std::thread::hardware_concurrency(), which counts
/// the machine's processors whatever the affinity.
inline unsigned usable_processors() {
#if defined(__linux__)
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof allowed, &allowed) == 0) {
    return static_cast<unsigned>(std::max(1, CPU_COUNT(&allowed)));
  }
#endif
  return std::max(1u, std::thread::hardware_concurrency());
}

}  // namespace program
