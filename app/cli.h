#pragma once
// The command line: the window, eval, export and plan are one program.

namespace app {

int run_cli(int argc, char** argv);

}  // namespace app
