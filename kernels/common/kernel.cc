#include "kernels/common/kernel.h"

namespace loom {

Status KernelSetup::Error(StatusCode code, const std::string& what) const {
  std::string prefix = node_name.empty() ? op : node_name + " (" + op + ")";
  if (code == StatusCode::kUnsupported && what.find("unsupported") == std::string::npos)
    return Status(code, prefix + ": unsupported " + what);
  return Status(code, prefix + ": " + what);
}

}  // namespace loom
