#include "kernels/common/kernel.h"

namespace loom {

Status KernelSetup::Error(StatusCode code, const std::string& what) const {
  if (code == StatusCode::kUnsupported && what.find("unsupported") == std::string::npos)
    return Status(code, "unsupported " + what);
  return Status(code, what);
}

}  // namespace loom
