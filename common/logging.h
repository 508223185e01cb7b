// The engine's log macro. The engine cannot depend on spdlog; it writes one
// line to stderr when the level is enabled, and compiles to nothing when
// LOOM_ENGINE_LOGGING is 0.
#pragma once

#include <cstdio>

namespace loom {
enum class LogLevel { kError = 0, kWarn = 1, kInfo = 2, kDebug = 3 };
// Process-wide threshold for LOOM_LOG (default kWarn).
LogLevel GetLogLevel();
void SetLogLevel(LogLevel level);
}  // namespace loom

#ifndef LOOM_ENGINE_LOGGING
#define LOOM_ENGINE_LOGGING 1
#endif

#if LOOM_ENGINE_LOGGING
#define LOOM_LOG(level, ...)                                                  \
  do {                                                                        \
    if (static_cast<int>(::loom::LogLevel::level) <=                          \
        static_cast<int>(::loom::GetLogLevel())) {                            \
      std::fprintf(stderr, "loom: " __VA_ARGS__);                             \
      std::fputc('\n', stderr);                                               \
    }                                                                         \
  } while (0)
#else
#define LOOM_LOG(level, ...) \
  do {                       \
  } while (0)
#endif
