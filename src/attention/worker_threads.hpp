/// @file worker_threads.hpp
/// @brief Work cut into shares, one thread per share: the calling thread takes share 0, helper threads the rest,
/// each helper kept off the caller's processor.
///
/// Why the last part. On the virtual machine this book is built on, Linux put
/// a newly started thread (or a woken one) on the processor of the thread that
/// started it, even with the other processor idle, and moved it only a few
/// milliseconds later. A share that takes a few milliseconds then ran after the
/// caller's share instead of beside it, and two threads took as long as one
/// (chapter 12's kernel at n = 1024). Told that it may not use the caller's
/// processor, a helper starts at once on another. It stays bound so for its
/// one call, where Linux offers it and where the caller may use more
/// than one processor; elsewhere the helpers run where the system puts them.
#pragma once

#include <algorithm>
#include <atomic>
#include <exception>
#include <functional>
#include <thread>
#include <vector>

#if defined(__linux__)
#include <pthread.h>
#include <sched.h>
#endif

namespace attention {

/// @cond INTERNAL
namespace detail {

// clang-format off
// [keep_off_this_processor]
// Lets `helper` run on any processor the calling thread may use but the one the caller is on now (Linux).
inline void keep_off_this_processor(std::thread& helper) {
#if defined(__linux__)
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  const int here = sched_getcpu();
  if (here < 0 || sched_getaffinity(0, sizeof allowed, &allowed) != 0) return;
  if (!CPU_ISSET(here, &allowed) || CPU_COUNT(&allowed) < 2) return;
  CPU_CLR(here, &allowed);
  // Binding while the helper lives; if it is refused, the helper runs where the scheduler puts it.
  (void)pthread_setaffinity_np(helper.native_handle(), sizeof allowed, &allowed);
#else
  (void)helper;
#endif
}
// [keep_off_this_processor]
// clang-format on

}  // namespace detail
/// @endcond

/// @brief Calls work(0), work(1), …, work(count − 1) at the same time, share 0 on the calling thread and each other
/// share on a helper thread kept off the caller's processor; returns when every share has returned.
///
/// @param count the number of shares; 0 is taken as 1
/// @param work called once with each share's index
/// @throws whatever a share threw (the lowest share's, if several did), once every share has finished; or
/// std::system_error if a helper thread cannot be started (after the ones already started have finished)
inline void run_shares(unsigned count, const std::function<void(unsigned share)>& work) {
  count = std::max(1u, count);
  std::vector<std::exception_ptr> failures(count);
  const auto run = [&work, &failures](unsigned share) {
    try {
      work(share);
    } catch (...) {
      failures[share] = std::current_exception();
    }
  };
  // A helper starts its share only once every helper has been kept off the
  // caller's processor, so that no share runs there beside the caller's.
  std::atomic<bool> placed{false};
  const auto help = [&run, &placed](unsigned share) {
    placed.wait(false);
    run(share);
  };
  const auto release = [&placed] {
    placed = true;
    placed.notify_all();
  };
  std::vector<std::thread> helpers;
  const auto join_helpers = [&helpers] {
    for (std::thread& helper : helpers) helper.join();
  };
  try {
    for (unsigned share = 1; share < count; ++share) {
      helpers.emplace_back(help, share);
      detail::keep_off_this_processor(helpers.back());
    }
  } catch (...) {
    release();
    join_helpers();
    throw;
  }
  release();
  run(0);
  join_helpers();
  for (const std::exception_ptr& failure : failures) {
    if (failure) std::rethrow_exception(failure);
  }
}

}  // namespace attention
