// loom_conformance: runs ONNX's backend test cases (libonnx-testdata) through
// Loom, each case in a forked child with a timeout, and checks the results
// against the checked-in list of unsupported cases.
//
//   loom_conformance [--data-root DIR] [--unsupported-list FILE]
//                    [--update-unsupported] [--filter SUBSTR] [--jobs N]
//                    [--timeout SECONDS] [--verbose]
//
// The data root defaults to $LOOM_ONNX_TESTDATA, else the LOOM_ONNX_TESTDATA
// CMake setting (/usr/share/libonnx-testdata/data); without it the run is
// skipped (exit 77).
// Fails (exit 1) if any case fails, if a case is unsupported but not listed,
// or if a listed case now passes. --update-unsupported rewrites the list from
// this run (entries outside --filter are kept).
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "tests/conformance/case_runner.h"
#include "tests/conformance/forked_pool.h"
#include "tests/conformance/unsupported_list.h"
#include "tools/tensor_io/onnx_testdata_root.h"

namespace {

namespace fs = std::filesystem;
using loom::conformance::CaseResult;
using loom::conformance::Outcome;

constexpr const char* kSuites[] = {"node", "pytorch-converted", "pytorch-operator", "simple"};
constexpr int kSkipExitCode = 77;

struct Options {
  std::string data_root;
  std::string list_path;
  std::string filter;
  bool update = false;
  bool verbose = false;
  loom::conformance::PoolOptions pool;
};

int Usage(const std::string& error) {
  std::fprintf(stderr,
               "loom_conformance: error: %s\n"
               "usage: loom_conformance [--data-root DIR] [--unsupported-list FILE] [--update-unsupported]\n"
               "                        [--filter SUBSTR] [--jobs N] [--timeout SECONDS] [--verbose]\n",
               error.c_str());
  return 2;
}

bool ParseOptions(int argc, char** argv, Options* options, std::string* error) {
  options->data_root = loom::OnnxTestDataRoot();
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&](std::string* out) {
      if (i + 1 >= argc) {
        *error = arg + " needs a value";
        return false;
      }
      *out = argv[++i];
      return true;
    };
    std::string text;
    if (arg == "--data-root") {
      if (!value(&options->data_root)) return false;
    } else if (arg == "--unsupported-list") {
      if (!value(&options->list_path)) return false;
    } else if (arg == "--filter") {
      if (!value(&options->filter)) return false;
    } else if (arg == "--update-unsupported") {
      options->update = true;
    } else if (arg == "--verbose") {
      options->verbose = true;
    } else if (arg == "--jobs" || arg == "--timeout") {
      if (!value(&text)) return false;
      char* end = nullptr;
      double v = std::strtod(text.c_str(), &end);
      if (text.empty() || *end != '\0' || v < 1 || v > 100000) {
        *error = arg + " must be a number >= 1, got '" + text + "'";
        return false;
      }
      if (arg == "--jobs") options->pool.jobs = static_cast<int>(v);
      else options->pool.timeout_seconds = v;
    } else {
      *error = "unknown argument '" + arg + "'";
      return false;
    }
  }
  if (options->update && options->list_path.empty()) {
    *error = "--update-unsupported needs --unsupported-list FILE";
    return false;
  }
  return true;
}

// "suite/case" names of every case folder holding a model.onnx, sorted.
std::vector<std::string> FindCases(const std::string& root, const std::string& filter) {
  std::vector<std::string> cases;
  for (const char* suite : kSuites) {
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(fs::path(root) / suite, ec)) {
      if (!fs::exists(entry.path() / "model.onnx")) continue;
      std::string name = std::string(suite) + "/" + entry.path().filename().string();
      if (name.find(filter) != std::string::npos) cases.push_back(name);
    }
  }
  std::sort(cases.begin(), cases.end());
  return cases;
}

std::string OneLine(const std::string& text) {
  std::string line;
  for (char c : text) line += (c == '\n' || c == '\r') ? ' ' : c;
  if (line.size() > 400) line = line.substr(0, 397) + "...";
  return line;
}

// The most telling line of a crashed child's output (a sanitizer summary).
std::string CrashHint(const std::string& output) {
  size_t pos = output.rfind("SUMMARY:");
  if (pos == std::string::npos) return "";
  return loom::conformance::FirstLine(output.substr(pos), 300);
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  std::string error;
  if (!ParseOptions(argc, argv, &options, &error)) return Usage(error);

  struct stat st;
  if (stat(options.data_root.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    std::printf("conformance: SKIPPED: ONNX test data not found at %s (install libonnx-testdata or set "
                "LOOM_ONNX_TESTDATA)\n",
                options.data_root.c_str());
    return kSkipExitCode;
  }
  loom::conformance::UnsupportedList listed;
  if (!options.list_path.empty()) {
    loom::Status s = loom::conformance::ReadUnsupportedList(options.list_path, &listed);
    if (!s.ok() && !(options.update && s.code() == loom::StatusCode::kNotFound)) {
      return Usage(s.ToString());
    }
  }
  const std::vector<std::string> cases = FindCases(options.data_root, options.filter);
  if (cases.empty()) return Usage("no test cases under " + options.data_root + " match '" + options.filter + "'");
  std::printf("conformance: %zu cases from %s, %d jobs, %.0f s timeout\n", cases.size(), options.data_root.c_str(),
              options.pool.jobs, options.pool.timeout_seconds);

  std::vector<CaseResult> results(cases.size());
  loom::conformance::RunForked(
      cases.size(), options.pool,
      [&](size_t i) { return loom::conformance::RunCase((fs::path(options.data_root) / cases[i]).string()); },
      [&](size_t i, const CaseResult& r) {
        results[i] = r;
        if (r.outcome == Outcome::kPass) return;
        std::string message = r.message;
        if (r.outcome == Outcome::kFail) {
          std::string hint = CrashHint(r.output);
          if (!hint.empty()) message += " [" + hint + "]";
        }
        std::printf("%-11s %s: %s\n", loom::conformance::OutcomeName(r.outcome), cases[i].c_str(),
                    OneLine(message).c_str());
        if (options.verbose && r.outcome == Outcome::kFail && !r.output.empty()) {
          std::printf("---- output of %s ----\n%s\n----\n", cases[i].c_str(), r.output.c_str());
        }
        std::fflush(stdout);
      });

  int passed = 0, failed = 0, unsupported = 0, newly_unsupported = 0, stale = 0;
  loom::conformance::UnsupportedList updated = listed;
  for (size_t i = 0; i < cases.size(); ++i) {
    const CaseResult& r = results[i];
    const bool is_listed = listed.count(cases[i]) > 0;
    updated.erase(cases[i]);
    switch (r.outcome) {
      case Outcome::kPass:
        if (is_listed && !options.update) {
          std::printf("STALE       %s: listed as unsupported but passes; remove it from the list\n", cases[i].c_str());
          ++stale;
        } else {
          ++passed;
        }
        break;
      case Outcome::kFail:
        ++failed;
        break;
      case Outcome::kUnsupported:
        ++unsupported;
        updated[cases[i]] = loom::conformance::FirstLine(r.message);
        if (!is_listed && !options.list_path.empty() && !options.update) {
          std::printf("NEW         %s: newly unsupported (not in the list): %s\n", cases[i].c_str(),
                      OneLine(r.message).c_str());
          ++newly_unsupported;
        }
        break;
    }
  }
  // Listed cases that no longer exist (only meaningful for unfiltered runs).
  if (options.filter.empty()) {
    for (const auto& entry : listed) {
      if (std::binary_search(cases.begin(), cases.end(), entry.first)) continue;
      updated.erase(entry.first);
      if (options.update) continue;
      std::printf("STALE       %s: listed as unsupported but there is no such case\n", entry.first.c_str());
      ++stale;
    }
  }

  if (options.update) {
    loom::Status s = loom::conformance::WriteUnsupportedList(options.list_path, updated);
    if (!s.ok()) return Usage(s.ToString());
    std::printf("conformance: wrote %zu entries to %s\n", updated.size(), options.list_path.c_str());
  }
  std::printf("conformance: %d passed, %d failed, %d unsupported", passed, failed, unsupported);
  if (newly_unsupported + stale > 0) {
    std::printf(" (%d newly unsupported, %d stale list entries)", newly_unsupported, stale);
  }
  std::printf("\n%d passed, %d failed\n", passed, failed + newly_unsupported + stale);
  return failed + newly_unsupported + stale == 0 ? 0 : 1;
}
