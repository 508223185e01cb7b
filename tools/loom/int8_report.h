// `loom build --int8`'s report: the console table (per-layer SNR, per-output
// cosine and top-1 agreement) and the --report FILE.json document.
#pragma once

#include <cstdio>
#include <string>

#include "builder/builder.h"
#include "common/status.h"

namespace loom {
namespace cli {

void PrintInt8Table(const Int8Report& report, std::FILE* out);

// The JSON document: method, samples, "layers" [{node, op, tensor,
// precision, snr_db, reason}], "outputs" [{name, cosine, min_cosine,
// top1_agreement}] (non-finite SNRs are null).
std::string Int8ReportJson(const Int8Report& report, const std::string& model);

Status WriteInt8Report(const std::string& path, const Int8Report& report, const std::string& model);

}  // namespace cli
}  // namespace loom
