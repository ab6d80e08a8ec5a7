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

// A scene that compares with a baseline may also name {baseline.NAME}, any figure above as the baseline has it, and
// {change.NAME}, the change of a headline figure from the baseline to the scene's scenario, as the panels write it.
const std::vector<CaptionField>& change_caption_fields();

// Throws InputError(field, ...) naming an unknown {name} or an unclosed brace, or a {baseline.*} or {change.*} in a scene
// without a baseline: a lesson is refused before it plays.
void check_caption(const std::string& text, const std::string& field, bool has_baseline = false);

// The caption with each {name} replaced by the figure of this scenario and report ("{{" writes a brace); {baseline.*}
// and {change.*} from the baseline, which a caption that names them must be given.
std::string fill_caption(const std::string& text, const Scenario& scenario, const Report& report, const Scenario* baseline = nullptr,
                         const Report* baseline_report = nullptr);

// The numbers a caption may write in its prose rather than take from the report: textbook formulas' constants and names
// with digits, each with its source in captions.cpp. Any other digit in a caption's prose would go stale.
const std::vector<std::string>& caption_constants();

}  // namespace core
