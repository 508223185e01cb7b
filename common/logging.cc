#include "common/logging.h"

#include <atomic>

namespace loom {
namespace {
std::atomic<int> g_level{static_cast<int>(LogLevel::kWarn)};
}
LogLevel GetLogLevel() { return static_cast<LogLevel>(g_level.load(std::memory_order_relaxed)); }
void SetLogLevel(LogLevel level) { g_level.store(static_cast<int>(level), std::memory_order_relaxed); }
}  // namespace loom
