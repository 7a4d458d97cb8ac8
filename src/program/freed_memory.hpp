// Freed memory kept for reuse. With glibc's defaults a block at or above malloc's
// mmap threshold (128 KiB at first, rising to the largest mmap'd block freed so
// far, up to 32 MiB) comes from mmap and goes back to the system when freed, and
// the freed top of the heap is trimmed, so the next block arrives as fresh pages, which the
// kernel fills with zeros at their first touch. A computation that makes and
// drops large temporaries at every step (chapter 14 recomputing a whole prefix
// for each word, chapter 13's trainings) then spends much of its time there,
// not in arithmetic: at 128 words, chapter 14's recomputing took about thirteen
// times as long with the defaults on the book's AMD machine. Every program
// keeps what it frees instead, as the allocators of most numerical libraries do.
#pragma once

namespace program {

/// Asks glibc's malloc to keep freed blocks for reuse rather than return them
/// to the system (mallopt: no mmap'd blocks below 32 MiB, glibc's largest setting,
/// and no trimming of the heap). Without glibc (the page's WebAssembly), it does nothing.
void keep_freed_memory();

}  // namespace program
