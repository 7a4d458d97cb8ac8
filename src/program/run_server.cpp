#include "program/run_server.hpp"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <sanitizer/lsan_interface.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

namespace program {
namespace {

[[noreturn]] void stop(const char* what) {
  std::fprintf(stderr, "run server: %s: %s\n", what, std::strerror(errno));
  std::_Exit(3);
}

// A child's arguments, kept for its whole life: its argv points into them.
std::vector<std::string> run_arguments;
std::vector<char*> run_argv;

}  // namespace

void serve_runs_if_asked(int& argc, char**& argv) {
  const char* descriptor_text = std::getenv("BOOK_RUN_SERVER_FD");
  if (descriptor_text == nullptr) {
    return;
  }
  const int server = std::atoi(descriptor_text);
  unsetenv("BOOK_RUN_SERVER_FD");  // a run sees the environment it would have been started with
  // One leak check here, before any run: it maps what every later check reads
  // (the runtime's tables, the checker's own memory), so that each child
  // inherits it instead of faulting it in again.
  __lsan_do_recoverable_leak_check();
  for (;;) {
    std::vector<char> payload(1 << 16);
    alignas(cmsghdr) char control[CMSG_SPACE(2 * sizeof(int))];
    iovec part{payload.data(), payload.size()};
    msghdr message{};
    message.msg_iov = &part;
    message.msg_iovlen = 1;
    message.msg_control = control;
    message.msg_controllen = sizeof control;
    const ssize_t size = recvmsg(server, &message, MSG_CMSG_CLOEXEC);
    if (size == 0) {
      std::_Exit(0);  // the tests are done
    }
    if (size < 0) {
      stop("reading a request");
    }
    const cmsghdr* attached = CMSG_FIRSTHDR(&message);
    if (payload[0] != 'R' || (message.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) != 0 || attached == nullptr ||
        attached->cmsg_type != SCM_RIGHTS || attached->cmsg_len != CMSG_LEN(2 * sizeof(int))) {
      errno = EPROTO;
      stop("a request that is not 'R', arguments and two descriptors");
    }
    int output[2];
    std::memcpy(output, CMSG_DATA(attached), sizeof output);
    const pid_t child = fork();
    if (child < 0) {
      stop("fork");
    }
    if (child == 0) {
      prctl(PR_SET_PDEATHSIG, SIGKILL);  // a run the tests gave up on dies with its server
      if (dup2(output[0], STDOUT_FILENO) < 0 || dup2(output[1], STDERR_FILENO) < 0) {
        stop("dup2");
      }
      close(output[0]);
      close(output[1]);
      close(server);
      run_arguments = {argv[0]};
      for (ssize_t start = 1; start < size;) {
        const char* end = static_cast<const char*>(std::memchr(payload.data() + start, '\0', size - start));
        const ssize_t length = (end == nullptr ? size : end - payload.data()) - start;
        run_arguments.emplace_back(payload.data() + start, length);
        start += length + 1;
      }
      for (std::string& argument : run_arguments) {
        run_argv.push_back(argument.data());
      }
      run_argv.push_back(nullptr);
      argc = static_cast<int>(run_arguments.size());
      argv = run_argv.data();
      return;
    }
    close(output[0]);
    close(output[1]);
    int status = 0;
    if (waitpid(child, &status, 0) < 0) {
      stop("waitpid");
    }
    if (send(server, &status, sizeof status, 0) != static_cast<ssize_t>(sizeof status)) {
      stop("answering");
    }
  }
}

}  // namespace program
