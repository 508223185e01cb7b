#include "tests/conformance/forked_pool.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <vector>

namespace loom {
namespace conformance {
namespace {

using Clock = std::chrono::steady_clock;

constexpr size_t kMaxCapturedOutput = 64 * 1024;

struct Child {
  size_t index = 0;
  pid_t pid = -1;
  int result_fd = -1;  // CaseResult, serialized
  int output_fd = -1;  // the child's stdout and stderr
  std::string result_bytes;
  std::string output;
  Clock::time_point deadline;
  bool timed_out = false;
};

void WriteAll(int fd, const std::string& bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

// Reads what is available; returns false at end of file (or error).
bool Drain(int fd, std::string* into, size_t limit) {
  char buf[4096];
  ssize_t n = read(fd, buf, sizeof(buf));
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return true;
  if (n <= 0) return false;
  into->append(buf, static_cast<size_t>(n));
  if (into->size() > limit) into->erase(0, into->size() - limit);  // keep the tail
  return true;
}

[[noreturn]] void RunChild(size_t index, int result_fd, int output_fd,
                           const std::function<CaseResult(size_t)>& run_case) {
  dup2(output_fd, STDOUT_FILENO);
  dup2(output_fd, STDERR_FILENO);
  close(output_fd);
  CaseResult r;
  try {
    r = run_case(index);
  } catch (const std::exception& e) {
    r = {Outcome::kFail, std::string("exception escaped: ") + e.what(), ""};
  } catch (...) {
    r = {Outcome::kFail, "unknown exception escaped", ""};
  }
  std::fflush(stdout);
  std::fflush(stderr);
  WriteAll(result_fd, std::string(1, static_cast<char>('0' + static_cast<int>(r.outcome))) + r.message);
  close(result_fd);
  _exit(0);
}

bool StartChild(size_t index, double timeout_seconds, const std::function<CaseResult(size_t)>& run_case,
                Child* child) {
  int result_pipe[2], output_pipe[2];
  if (pipe(result_pipe) != 0) return false;
  if (pipe(output_pipe) != 0) {
    close(result_pipe[0]);
    close(result_pipe[1]);
    return false;
  }
  std::fflush(stdout);
  std::fflush(stderr);
  pid_t pid = fork();
  if (pid < 0) {
    for (int fd : {result_pipe[0], result_pipe[1], output_pipe[0], output_pipe[1]}) close(fd);
    return false;
  }
  if (pid == 0) {
    close(result_pipe[0]);
    close(output_pipe[0]);
    RunChild(index, result_pipe[1], output_pipe[1], run_case);
  }
  close(result_pipe[1]);
  close(output_pipe[1]);
  child->index = index;
  child->pid = pid;
  child->result_fd = result_pipe[0];
  child->output_fd = output_pipe[0];
  child->deadline = Clock::now() + std::chrono::microseconds(static_cast<int64_t>(timeout_seconds * 1e6));
  return true;
}

std::string DescribeExit(int status) {
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    return "killed by signal " + std::to_string(sig) + " (" + strsignal(sig) + ")";
  }
  return "exited with code " + std::to_string(WEXITSTATUS(status)) + " without a result";
}

// Waits for the child and turns what it sent (or how it died) into a result.
CaseResult Finish(Child* child, double timeout_seconds) {
  int status = 0;
  while (waitpid(child->pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (child->result_fd >= 0) close(child->result_fd);
  if (child->output_fd >= 0) close(child->output_fd);
  CaseResult r;
  r.output = std::move(child->output);
  const bool clean_exit = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  if (child->timed_out) {
    r.outcome = Outcome::kFail;
    r.message = "timed out after " + std::to_string(static_cast<int>(timeout_seconds)) + " s";
  } else if (clean_exit && !child->result_bytes.empty() && child->result_bytes[0] >= '0' &&
             child->result_bytes[0] <= '2') {
    r.outcome = static_cast<Outcome>(child->result_bytes[0] - '0');
    r.message = child->result_bytes.substr(1);
  } else {
    r.outcome = Outcome::kFail;
    r.message = DescribeExit(status);
  }
  return r;
}

}  // namespace

const char* OutcomeName(Outcome outcome) {
  switch (outcome) {
    case Outcome::kPass: return "PASS";
    case Outcome::kFail: return "FAIL";
    case Outcome::kUnsupported: return "UNSUPPORTED";
  }
  return "?";
}

void RunForked(size_t count, const PoolOptions& options, const std::function<CaseResult(size_t)>& run_case,
               const std::function<void(size_t, const CaseResult&)>& on_done) {
  const size_t jobs = options.jobs < 1 ? 1 : static_cast<size_t>(options.jobs);
  std::vector<Child> running;
  size_t next = 0;
  while (next < count || !running.empty()) {
    while (next < count && running.size() < jobs) {
      Child child;
      if (!StartChild(next, options.timeout_seconds, run_case, &child)) {
        on_done(next, {Outcome::kFail, std::string("cannot start a child process: ") + std::strerror(errno), ""});
      } else {
        running.push_back(std::move(child));
      }
      ++next;
    }
    if (running.empty()) continue;

    // Wait for output from any child, or until the earliest deadline.
    std::vector<pollfd> fds;
    Clock::time_point earliest = running[0].deadline;
    for (const Child& c : running) {
      if (c.result_fd >= 0) fds.push_back({c.result_fd, POLLIN, 0});
      if (c.output_fd >= 0) fds.push_back({c.output_fd, POLLIN, 0});
      if (c.deadline < earliest) earliest = c.deadline;
    }
    auto wait_ms = std::chrono::duration_cast<std::chrono::milliseconds>(earliest - Clock::now()).count();
    int timeout_ms = static_cast<int>(wait_ms < 0 ? 0 : wait_ms + 1);
    if (fds.empty()) timeout_ms = 10;  // both pipes closed; the child is exiting
    if (poll(fds.data(), fds.size(), timeout_ms) < 0 && errno != EINTR) continue;

    for (Child& c : running) {
      for (const pollfd& p : fds) {
        if (!(p.revents & (POLLIN | POLLHUP | POLLERR))) continue;
        if (p.fd == c.result_fd && !Drain(c.result_fd, &c.result_bytes, kMaxCapturedOutput)) {
          close(c.result_fd);
          c.result_fd = -1;
        } else if (p.fd == c.output_fd && !Drain(c.output_fd, &c.output, kMaxCapturedOutput)) {
          close(c.output_fd);
          c.output_fd = -1;
        }
      }
      if (!c.timed_out && Clock::now() >= c.deadline && (c.result_fd >= 0 || c.output_fd >= 0)) {
        kill(c.pid, SIGKILL);
        c.timed_out = true;
      }
    }
    for (size_t i = 0; i < running.size();) {
      Child& c = running[i];
      if (c.result_fd < 0 && c.output_fd < 0) {
        size_t index = c.index;
        CaseResult r = Finish(&c, options.timeout_seconds);
        running.erase(running.begin() + static_cast<std::ptrdiff_t>(i));
        on_done(index, r);
      } else if (c.timed_out) {
        // Killed: its pipes close as it dies; stop waiting on them.
        if (c.result_fd >= 0) close(c.result_fd);
        if (c.output_fd >= 0) close(c.output_fd);
        c.result_fd = c.output_fd = -1;
        ++i;
      } else {
        ++i;
      }
    }
  }
}

}  // namespace conformance
}  // namespace loom
