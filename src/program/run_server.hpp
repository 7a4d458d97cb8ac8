// One started program serving many runs, for the tests under the sanitizers.
//
// Under AddressSanitizer and UndefinedBehaviorSanitizer every start of a
// program costs tens of milliseconds before main() (the runtime maps and fills
// its tables), and LeakSanitizer's check at exit reads megabytes of the
// runtime's own memory; the tests start the chapter programs about 850 times.
// When the tests ask for it, a program instead starts once and forks a child
// for each run: the child takes the run's arguments in place of argv, writes to
// the run's own stdout and stderr, and exits as the program always does, with
// LeakSanitizer's check, so every run is still checked on its own. The
// sanitizer build has this; the programs a reader builds do not.
#pragma once

namespace program {

/// If the environment holds BOOK_RUN_SERVER_FD (a socket of the kind
/// tests/programs/harness.py opens), serves runs and returns only in a forked
/// child, with @p argc and @p argv replaced by that run's; the serving process
/// exits when the socket closes. Otherwise returns at once, changing nothing.
///
/// Each request is one message: the byte 'R', then each argument followed by
/// a NUL byte, with two descriptors attached (the run's stdout and stderr).
/// The answer is the child's wait status, a native int.
void serve_runs_if_asked(int& argc, char**& argv);

}  // namespace program
