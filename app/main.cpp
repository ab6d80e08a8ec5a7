#include "app/cli.h"

int main(int argc, char** argv) { return app::run_cli(argc, argv); }
