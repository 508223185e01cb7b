// Subcommands of the `loom` CLI. Each Add*Command adds its subcommand to the
// app; when the subcommand runs, its callback stores the process exit code in
// *exit_code (0 on success). Errors are printed as one line:
//   loom: error: <message>
#pragma once

#include <CLI/CLI.hpp>

namespace loom {
namespace cli {

void AddBuildCommand(CLI::App& app, int* exit_code);    // builder side only
void AddRunCommand(CLI::App& app, int* exit_code);
void AddInspectCommand(CLI::App& app, int* exit_code);
void AddBenchCommand(CLI::App& app, int* exit_code);

}  // namespace cli
}  // namespace loom
