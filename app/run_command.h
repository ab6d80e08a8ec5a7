#pragma once
// `shardscope run SCENARIO.json [--seed N] [--runs K] [--days D] [--failures TABLE.json] [--json|--csv|--table]`: a
// whole training run simulated with its failures, checkpoints and restarts (core/cost/report/run_simulation.h): the
// seed's run, the spread over K seeded runs and the closed form beside them; --csv lists the seed's run as segments.
#include "app/table.h"
#include "core/model/scenario.h"

#include <cstdint>

namespace app {

struct RunCommandOptions {
    int seed = 1;            // --seed as given: the caller puts it into operations.run_seed
    int runs = 100;          // seeded runs in the distribution
    double days = 0;         // --days as given: the caller puts it into operations.window_days
};

int run_run(const core::Scenario& scenario, const RunCommandOptions& options, OutputFormat format);

}  // namespace app
