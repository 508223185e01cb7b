#include "builder/build_log.h"

#include <spdlog/sinks/stdout_color_sinks.h>

#include <mutex>

namespace loom {

spdlog::logger& BuildLog() {
  static std::mutex mu;
  std::lock_guard<std::mutex> lock(mu);
  std::shared_ptr<spdlog::logger> logger = spdlog::get(kBuildLoggerName);
  if (!logger) {
    logger = spdlog::stderr_color_mt(kBuildLoggerName);
    logger->set_pattern("loom: %l: %v");
    logger->set_level(spdlog::level::warn);
  }
  return *logger;
}

}  // namespace loom
