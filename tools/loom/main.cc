// The `loom` command line: build (desktop builds only), run, inspect, bench.
#include <cstdio>
#include <exception>
#include <string>

#include "tools/loom/cli_util.h"
#include "tools/loom/commands.h"

int main(int argc, char** argv) {
  CLI::App app{"Loom: build ONNX models into plans and run them"};
  app.name("loom");
  app.require_subcommand(1);
  int exit_code = 0;
#ifdef LOOM_HAVE_BUILDER
  loom::cli::AddBuildCommand(app, &exit_code);
#endif
  loom::cli::AddRunCommand(app, &exit_code);
  loom::cli::AddInspectCommand(app, &exit_code);
  loom::cli::AddBenchCommand(app, &exit_code);
  // A first word that is no subcommand is a usage error of its own.
  if (argc > 1 && argv[1][0] != '-') {
    bool known = false;
    std::string names;
    for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
      known = known || sub->check_name(argv[1]);
      names += (names.empty() ? "" : ", ") + sub->get_name();
    }
    if (!known) {
      return loom::cli::ReportError(std::string("unknown subcommand '") + argv[1] + "' (expected one of: " + names +
                                    "); see loom --help");
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code;
  } catch (const std::exception& e) {
    return loom::cli::ReportError(e.what());
  }
  return exit_code;
}
