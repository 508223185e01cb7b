// The builder's logger: spdlog logger "loom.build" (stderr). Quiet by default
// (warnings only) so the library does not chat inside other programs; `loom
// build -v` raises its level. Whoever registers "loom.build" first owns it.
#pragma once

#include <spdlog/spdlog.h>

namespace loom {

constexpr const char* kBuildLoggerName = "loom.build";

spdlog::logger& BuildLog();

}  // namespace loom
