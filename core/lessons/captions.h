#pragma once
// Lesson captions whose numbers come from the report, so a caption can never disagree with the panel beside it. A
// caption names figures in braces, "{walls.time} the {deadline_days}-day deadline", filled from the scene's scenario.
#include "core/cost/report/report.h"
#include "core/model/scenario.h"

#include <string>
#include <vector>

namespace core {

// One name a caption may use, and what it stands for.
struct CaptionField {
    const char* name;     // "walls.time"
    const char* meaning;  // "the time wall's fraction of its budget, as its bar prints it"
};
const std::vector<CaptionField>& caption_fields();

// Throws InputError(field, ...) naming an unknown {name} or an unclosed brace: a lesson is refused before it plays.
void check_caption(const std::string& text, const std::string& field);

// The caption with each {name} replaced by the figure of this scenario and report ("{{" writes a brace).
std::string fill_caption(const std::string& text, const Scenario& scenario, const Report& report);

}  // namespace core
