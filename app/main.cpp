#include "app/cli.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

int main(int argc, char** argv) {
    const int status = app::run_cli(argc, argv);
    // Output lost to a full disk or a closed pipe is a failure, not a success with nothing said.
    if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
        std::fprintf(stderr, "shardscope: cannot write standard output: %s\n", std::strerror(errno));
        return status != 0 ? status : 1;
    }
    return status;
}
