#include "builder/graph_dump.h"

#include <spawn.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "builder/ir/graph_dot.h"

extern char** environ;

namespace loom {
namespace {

// Runs `argv` (looked up on the PATH) and returns its exit status, or -1
// when it cannot start.
int RunProgram(std::vector<std::string> argv) {
  std::vector<char*> args;
  for (std::string& a : argv) args.push_back(a.data());
  args.push_back(nullptr);
  pid_t pid = 0;
  if (posix_spawnp(&pid, args[0], nullptr, nullptr, args.data(), environ) != 0) return -1;
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

bool HaveGraphviz() {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return false;
  std::string dirs = path;
  size_t start = 0;
  while (start <= dirs.size()) {
    const size_t end = std::min(dirs.find(':', start), dirs.size());
    const std::filesystem::path candidate = std::filesystem::path(dirs.substr(start, end - start)) / "dot";
    std::error_code ec;
    if (end > start && std::filesystem::is_regular_file(candidate, ec)) return true;
    start = end + 1;
  }
  return false;
}

}  // namespace

Status GraphDumper::Open(const std::string& dir) {
  dir_ = dir;
  files_.clear();
  if (dir.empty()) return Status::Ok();
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec || !std::filesystem::is_directory(dir))
    return Status::InvalidArgument("--dump-graph: cannot create directory '" + dir + "'" +
                                   (ec ? ": " + ec.message() : ": a file of that name exists"));
  return Status::Ok();
}

Status GraphDumper::Dump(const std::string& stage, const ir::Graph& graph) {
  if (dir_.empty()) return Status::Ok();
  char number[16];
  std::snprintf(number, sizeof(number), "%02zu", files_.size());
  const std::string path = (std::filesystem::path(dir_) / (std::string(number) + "-" + stage + ".dot")).string();
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << ir::GraphToDot(graph,
                        std::string(number) + " " + stage + " (" + std::to_string(graph.live_node_count()) + " nodes)");
  out.close();
  if (!out) return Status::InvalidArgument("--dump-graph: cannot write '" + path + "'");
  files_.push_back(path);
  return Status::Ok();
}

Status GraphDumper::RenderSvg(int* rendered) const {
  *rendered = 0;
  if (files_.empty() || !HaveGraphviz()) return Status::Ok();
  for (const std::string& dot : files_) {
    const std::string svg = dot.substr(0, dot.size() - 4) + ".svg";
    if (RunProgram({"dot", "-Tsvg", dot, "-o", svg}) != 0)
      return Status::Internal("--dump-graph: graphviz could not render '" + dot + "'");
    ++*rendered;
  }
  return Status::Ok();
}

}  // namespace loom
