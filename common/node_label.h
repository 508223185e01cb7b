// The one way Loom names a node in messages: "conv1 (Conv)", or
// "node #3 (Conv)" for a node without a name (3 = its execution index).
// Builder, engine and tools all use it; kernels never build it themselves:
// whoever calls a kernel adds the label to the kernel's error.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace loom {

std::string NodeLabel(std::string_view name, std::string_view op, size_t index);

}  // namespace loom
