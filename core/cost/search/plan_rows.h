#pragma once
// The planner's ranking as a reader wants it: layouts that differ only in the interleaved schedule's number of virtual
// stages (v10, v9, ... v3 of one layout, a few milliseconds apart) are one choice, shown once with the best v.
#include "core/cost/search/planner.h"

#include <vector>

namespace core {

struct PlanRow {
    PlanEntry entry;                          // the best-ranked of its group
    std::vector<int> folded_virtual_stages;   // the group's other v, ascending; empty when nothing was folded
};

// True when a and b are the same layout but for virtual_stages (both interleaved).
bool differs_only_in_virtual_stages(const Layout& a, const Layout& b);

// Keeps the ranking's order; each group is folded into its first (fastest) entry.
std::vector<PlanRow> fold_virtual_stages(const std::vector<PlanEntry>& ranking);

}  // namespace core
