#include "program/freed_memory.hpp"

#include <cstdlib>  // defines __GLIBC__ where the C library is glibc

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace program {

void keep_freed_memory() {
#if defined(__GLIBC__)
  // glibc's largest allowed threshold on a 64-bit machine, 32 MiB; larger blocks still come from mmap.
  constexpr int largest_kept_block = 32 << 20;
  mallopt(M_MMAP_THRESHOLD, largest_kept_block);
  mallopt(M_TRIM_THRESHOLD, -1);  // never give the top of the heap back
#endif
}

}  // namespace program
