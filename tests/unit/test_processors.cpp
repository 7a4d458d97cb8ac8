// program::usable_processors, against which chapter 12 checks --threads: the
// processors this process may run on, not the machine's count.
#include <catch2/catch.hpp>

#include "program/processors.hpp"

#if defined(__linux__)
#include <sched.h>
#endif

TEST_CASE("usable_processors counts the processors the caller may run on", "[ch12]") {
  CHECK(program::usable_processors() >= 1);
#if defined(__linux__)
  cpu_set_t before;
  CPU_ZERO(&before);
  REQUIRE(sched_getaffinity(0, sizeof before, &before) == 0);
  CHECK(program::usable_processors() == static_cast<unsigned>(CPU_COUNT(&before)));
  // Restricted to one of them (as taskset -c does), the count is 1, however many the machine has.
  int first = 0;
  while (!CPU_ISSET(first, &before)) ++first;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(first, &one);
  REQUIRE(sched_setaffinity(0, sizeof one, &one) == 0);
  const unsigned restricted = program::usable_processors();
  REQUIRE(sched_setaffinity(0, sizeof before, &before) == 0);
  CHECK(restricted == 1);
#endif
}
