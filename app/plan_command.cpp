#include "app/plan_command.h"

#include <cstdio>

namespace app {

int run_plan(const core::Scenario&, int) {
    std::fprintf(stderr, "shardscope: plan: the planner is not built yet\n");
    return 1;
}

}  // namespace app
