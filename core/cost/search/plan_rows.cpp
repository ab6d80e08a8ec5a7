#include "core/cost/search/plan_rows.h"

#include <algorithm>

namespace core {

bool differs_only_in_virtual_stages(const Layout& a, const Layout& b) {
    if (a.schedule != ScheduleKind::interleaved || b.schedule != ScheduleKind::interleaved) return false;
    Layout same_v = b;
    same_v.virtual_stages = a.virtual_stages;
    return a == same_v;
}

std::vector<PlanRow> fold_virtual_stages(const std::vector<PlanEntry>& ranking) {
    std::vector<PlanRow> rows;
    for (const PlanEntry& entry : ranking) {
        const auto group = std::find_if(rows.begin(), rows.end(), [&](const PlanRow& row) { return differs_only_in_virtual_stages(row.entry.layout, entry.layout); });
        if (group == rows.end()) {
            rows.push_back({entry, {}});
            continue;
        }
        std::vector<int>& folded = group->folded_virtual_stages;
        folded.insert(std::upper_bound(folded.begin(), folded.end(), entry.layout.virtual_stages), entry.layout.virtual_stages);
    }
    return rows;
}

}  // namespace core
