// Runs test cases in forked child processes, a few at a time, so a crash or a
// hang in one case becomes that case's failure instead of ending the run.
// Each child runs the case function and sends its CaseResult back through a
// pipe; the parent enforces a per-case timeout (SIGKILL) and turns a death by
// signal or a non-zero exit into a FAIL naming the signal. What a child prints
// is captured; the tail of it is attached to failures.
//
// The parent must be single-threaded when calling RunForked (fork safety).
#pragma once

#include <cstddef>
#include <functional>
#include <string>

namespace loom {
namespace conformance {

enum class Outcome { kPass = 0, kFail = 1, kUnsupported = 2 };

const char* OutcomeName(Outcome outcome);

struct CaseResult {
  Outcome outcome = Outcome::kFail;
  std::string message;  // why it failed or is unsupported
  std::string output;   // what the child printed (for failures)
};

struct PoolOptions {
  int jobs = 2;
  double timeout_seconds = 60;
};

// Runs run_case(i) for i in [0, count) in children, at most options.jobs at a
// time, and calls on_done(i, result) in the parent as each case finishes (in
// completion order).
void RunForked(size_t count, const PoolOptions& options, const std::function<CaseResult(size_t)>& run_case,
               const std::function<void(size_t, const CaseResult&)>& on_done);

}  // namespace conformance
}  // namespace loom
