#include "core/lessons/captions.h"

#include "core/cost/kernels/pipeline_schedule.h"
#include "core/cost/report/diff_report.h"
#include "core/cost/report/figure_text.h"
#include "core/cost/report/run_simulation.h"
#include "core/cost/report/scaling.h"
#include "core/cost/report/timeline_figure.h"
#include "core/lessons/stack_animation.h"
#include "core/lessons/regime.h"
#include "core/lessons/walls.h"
#include "core/cost/serving/serving_text.h"
#include "core/model/errors.h"
#include "core/model/format.h"

#include <cctype>
#include <functional>
#include <optional>
#include <string_view>

namespace core {
namespace {

// What a field is filled from: the scenario, its report, and (computed once per caption, when asked) its walls, its
// figures and its regime cube.
constexpr const char* kNoGpuCount = "no GPU count";  // a count field's words where there is none

struct CaptionInputs {
    const Scenario& scenario;
    const Report& report;
    std::optional<WallsReport> walls;
    std::optional<FigureTexts> figure_words;
    std::optional<RegimeCube> cube;
    std::optional<ScalingCurve> scaling_curve_of;
    std::optional<RunView> run_of;

    const WallsReport& walls_report() {
        if (!walls) walls = walls_of(scenario, report);
        return *walls;
    }
    // The figures' words as every panel prints them (core/cost/report/figure_text.h).
    const FigureTexts& figures() {
        if (!figure_words) figure_words = figure_texts(scenario, report);
        return *figure_words;
    }
    const RegimeCube& regime() {
        if (!cube) cube = regime_cube(scenario);
        return *cube;
    }
    // The scaling panel's strong-scaling curve, as it draws it.
    const ScalingCurve& scaling() {
        if (!scaling_curve_of) scaling_curve_of = scaling_curve(scenario, ScalingMode::strong);
        return *scaling_curve_of;
    }
    // The run panel's simulated run, as it draws it (seed 1).
    const RunView& run() {
        if (!run_of) run_of = run_view(scenario, report);
        return *run_of;
    }
    // The builtin presets whose binding wall is `kind` and over its budget (the cube's dots of that colour outside the box).
    std::string bound_by(WallKind kind) {
        int count = 0;
        for (const RegimePoint& point : regime().points) count += !point.is_current && point.binding_wall == kind && point.binding_fraction > 1.0;
        return format_whole(count);
    }
    std::string within_every_budget() {
        int count = 0;
        for (const RegimePoint& point : regime().points) count += !point.is_current && !(point.binding_fraction > 1.0);
        return format_whole(count);
    }
    const ServingAnswer& serving() const { return report.serving.answer; }
};

struct FieldDef {
    CaptionField field;
    std::function<std::string(CaptionInputs&)> value;
};

// "bf16 weight 2 + bf16 grad 2 + fp32 master 4 + Adam m 4 + Adam v 4 = 16 B": the recipe as the stack builds it.
std::string recipe_sum(const PrecisionRecipe& recipe) {
    std::string text;
    for (const StateComponent& component : recipe.components) {
        text += (text.empty() ? "" : " + ") + component.label + " " + format_plain(component.bytes_per_param);
    }
    return text + " = " + format_plain(recipe.bytes_per_param()) + " B";
}

const std::vector<FieldDef>& field_defs() {
    static const std::vector<FieldDef> defs = {
        {{"model", "the model's name"}, [](CaptionInputs& in) { return in.scenario.model.name; }},
        {{"gpu", "the GPU's name"}, [](CaptionInputs& in) { return in.scenario.cluster.gpu.name; }},
        {{"gpus", "the GPU count, with thousands separators"}, [](CaptionInputs& in) { return format_grouped(in.report.layout.gpus); }},
        {{"tp", "tensor-parallel degree"}, [](CaptionInputs& in) { return format_whole(in.report.layout.tp); }},
        {{"pp", "pipeline stages"}, [](CaptionInputs& in) { return format_whole(in.report.layout.pp); }},
        {{"cp", "context-parallel degree"}, [](CaptionInputs& in) { return format_whole(in.report.layout.cp); }},
        {{"dp", "data-parallel degree"}, [](CaptionInputs& in) { return format_grouped(in.report.layout.dp); }},
        {{"zero", "the ZeRO stage"}, [](CaptionInputs& in) { return format_whole(in.report.layout.zero); }},
        {{"virtual_stages", "model chunks per device in an interleaved schedule (v)"},
         [](CaptionInputs& in) { return format_whole(in.report.pipeline.virtual_stages); }},
        {{"microbatches", "micro-batches per step"}, [](CaptionInputs& in) { return format_grouped(in.report.pipeline.microbatches); }},
        {{"params", "the parameter count (\"70.6 B\")"}, [](CaptionInputs& in) { return format_count(in.report.memory.params); }},
        {{"recipe", "the recipe's bytes per parameter, component by component"},
         [](CaptionInputs& in) { return recipe_sum(in.scenario.precision); }},
        {{"bytes_per_param", "bytes per parameter of the recipe"}, [](CaptionInputs& in) { return format_plain(in.report.memory.bytes_per_param); }},
        {{"state", "the whole training state"}, [](CaptionInputs& in) { return format_bytes(in.report.memory.state_bytes); }},
        {{"state_vs_hbm", "the state against one GPU's HBM, as the stack prints it (\"15.9x an H100 SXM\")"},
         [](CaptionInputs& in) { return overshoot(in.report.memory.state_bytes, in.scenario.cluster.gpu).caption; }},
        {{"per_gpu", "one GPU's memory: state and activations"}, [](CaptionInputs& in) { return format_bytes(in.report.memory.per_gpu.total_bytes); }},
        {{"per_gpu_state", "one GPU's training state without activations"},
         [](CaptionInputs& in) { return format_bytes(per_gpu_state_bytes(in.report.memory.per_gpu)); }},
        {{"hbm", "one GPU's HBM"}, [](CaptionInputs& in) { return format_bytes(in.report.memory.hbm_bytes); }},
        {{"finetune.method", "how the fine-tune trains (\"LoRA rank 16\", \"QLoRA rank 16 (NF4 base)\"; \"a full fine-tune\")"},
         [](CaptionInputs& in) {
             const std::string adapters = adapter_phrase(in.scenario.finetune);
             return adapters.empty() ? std::string("a full fine-tune") : adapters;
         }},
        {{"finetune.trainable", "the parameters that train: every one, or the adapters'"},
         [](CaptionInputs& in) { return format_count(in.report.memory.trainable_params); }},
        {{"finetune.frozen", "the frozen base's bytes, in its format (0 B for a full fine-tune)"},
         [](CaptionInputs& in) { return format_bytes(in.report.memory.frozen_bytes); }},
        {{"fits", "\"fits\" or \"does not fit\""}, [](CaptionInputs& in) { return std::string(in.report.memory.fits ? "fits" : "does not fit"); }},
        {{"walls.memory", "the memory wall's fraction of its budget, as its bar prints it"},
         [](CaptionInputs& in) { return in.walls_report().walls[static_cast<int>(WallKind::memory)].fraction_text; }},
        {{"walls.time", "the time wall's fraction of its budget, as its bar prints it"},
         [](CaptionInputs& in) { return in.walls_report().walls[static_cast<int>(WallKind::time)].fraction_text; }},
        {{"walls.serving", "the serving wall's fraction of its budget, as its bar prints it"},
         [](CaptionInputs& in) { return in.walls_report().walls[static_cast<int>(WallKind::serving)].fraction_text; }},
        {{"walls.binding", "the binding wall's name in lower case (\"memory\")"},
         [](CaptionInputs& in) {
             std::string title = in.walls_report().walls[in.walls_report().binding].title;
             for (char& c : title) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
             return title;
         }},
        {{"scaling.sentence", "the scaling panel's sentence: where an overhead outgrows the compute as the GPUs double"},
         [](CaptionInputs& in) { return in.scaling().sentence; }},
        {{"scaling.wall", "what takes over from the compute on the strong-scaling curve (\"exposed DP communication\"), or \"none\""},
         [](CaptionInputs& in) { return std::string(scaling_wall_name(in.scaling().wall)); }},
        {{"scaling.wall_gpus", "the GPU count where it takes over (\"768 GPUs\"), or the words for none when no overhead takes over"},
         [](CaptionInputs& in) {
             const ScalingCurve& curve = in.scaling();
             return curve.wall_point >= 0 ? format_counted(curve.points[curve.wall_point].gpus, "GPU", "GPUs") : std::string(kNoGpuCount);
         }},
        {{"run.sentence", "the run panel's sentence: the simulated run's interruptions and goodput, and their spread over 100 seeded runs"},
         [](CaptionInputs& in) { return in.run().sentence; }},
        {{"run.interruptions", "the simulated run's interruptions (\"482\")"},
         [](CaptionInputs& in) { return format_grouped(in.run().run.interruptions); }},
        {{"run.goodput", "the simulated run's goodput, useful training over wall time"},
         [](CaptionInputs& in) { return format_percent(in.run().run.goodput); }},
        {{"tokens", "the training token budget (\"15.0 T\")"}, [](CaptionInputs& in) { return format_count(in.scenario.train.tokens); }},
        {{"serving.budget", "the GPUs the service may use (\"64 GPUs\")"},
         [](CaptionInputs& in) { return format_counted(in.report.serving.gpu_budget, "GPU", "GPUs"); }},
        {{"serving.load", "the service asked for: rate, prompt and output tokens, TTFT and TPOT targets"},
         [](CaptionInputs& in) { return serving_text(in.scenario, in.report.serving).load; }},
        {{"serving.answer", "the fewest GPUs that serve it, as the serving panel states it"},
         [](CaptionInputs& in) { return serving_text(in.scenario, in.report.serving).answer; }},
        {{"serving.gpus", "GPUs the service needs (\"8 GPUs\"), or \"no GPU count\" where no replica meets it"},
         [](CaptionInputs& in) {
             return in.serving().verdict == ServingVerdict::meets ? format_counted(in.serving().gpus, "GPU", "GPUs") : std::string(kNoGpuCount);
         }},
        {{"serving.replicas", "replicas x TP (\"2 x TP 4\")"},
         [](CaptionInputs& in) { return format_whole(in.serving().replicas) + " x " + replica_shape_label(in.serving().shape); }},
        {{"serving.batch", "the batch each replica runs at the target rate"},
         [](CaptionInputs& in) { return format_whole(in.serving().point.batch); }},
        {{"serving.max_batch", "the batch its KV cache holds"}, [](CaptionInputs& in) { return format_whole(in.serving().max_batch); }},
        {{"serving.ttft", "the time to first token at that batch"}, [](CaptionInputs& in) { return format_seconds(in.serving().point.ttft_seconds); }},
        {{"serving.tpot", "the time per output token at that batch"}, [](CaptionInputs& in) { return format_seconds(in.serving().point.tpot_seconds); }},
        {{"serving.tokens_per_gpu", "output tokens/s per GPU at that batch"},
         [](CaptionInputs& in) { return format_number(in.serving().point.tokens_per_s_per_gpu); }},
        {{"serving.dollars_per_million", "dollars per million output tokens"},
         [](CaptionInputs& in) { return format_dollars(in.serving().dollars_per_million_tokens); }},
        {{"cube.memory", "how many presets the memory wall binds in the regime cube (over its budget)"},
         [](CaptionInputs& in) { return in.bound_by(WallKind::memory); }},
        {{"cube.time", "how many presets the time wall binds"}, [](CaptionInputs& in) { return in.bound_by(WallKind::time); }},
        {{"cube.serving", "how many presets the serving wall binds"}, [](CaptionInputs& in) { return in.bound_by(WallKind::serving); }},
        {{"cube.within", "how many presets sit inside every budget"}, [](CaptionInputs& in) { return in.within_every_budget(); }},
        {{"deadline_days", "the time wall's deadline in days"}, [](CaptionInputs& in) { return format_plain(in.scenario.train.deadline_days); }},
        {{"bubble", "the closed-form bubble share of the scenario's schedule, as the pipeline panel prints it"},
         [](CaptionInputs& in) {
             ScheduleParams params;
             params.kind = in.report.pipeline.schedule;
             params.stages = in.report.pipeline.stages;
             params.microbatches = in.report.pipeline.microbatches;
             params.virtual_chunks = in.report.pipeline.virtual_stages;
             return format_percent(closed_form_bubble_fraction(params));
         }},
        {{"ridge", "the roofline's ridge point in FLOP per byte"}, [](CaptionInputs& in) { return format_number(in.report.roofline.ridge_flops_per_byte); }},
        {{"timeline.peak_allocated", "the step's allocated peak on the heaviest stage, as the timeline panel marks it"},
         [](CaptionInputs& in) { return format_bytes(in.report.memory.timeline.peak_allocated_bytes); }},
        {{"timeline.peak_reserved", "the caching allocator's reserved peak on that stage"},
         [](CaptionInputs& in) { return format_bytes(in.report.memory.timeline.peak_reserved_bytes); }},
        {{"timeline.peak_at", "where in the step the allocated peak falls (\"at layer 16's backward\", \"inside the loss\")"},
         [](CaptionInputs& in) { return timeline_peak_where(in.report.memory.timeline); }},
        {{"timeline.activations", "the most the layers keep for the backward at any point of the step"},
         [](CaptionInputs& in) { return format_bytes(timeline_most_activations_bytes(in.report.memory.timeline)); }},
        {{"step_time", "the step time"}, [](CaptionInputs& in) { return in.figures().step_time.value; }},
        {{"mfu", "the model FLOPs utilisation"}, [](CaptionInputs& in) { return in.figures().mfu.value; }},
        {{"peak", "one GPU's memory at the step's peak"}, [](CaptionInputs& in) { return format_bytes(in.report.memory.per_gpu.peak_bytes); }},
        {{"activations", "one GPU's stored activations"}, [](CaptionInputs& in) { return format_bytes(in.report.memory.per_gpu.activations_bytes); }},
    };
    return defs;
}

const FieldDef* find_field(const std::string& name) {
    for (const FieldDef& def : field_defs()) {
        if (name == def.field.name) return &def;
    }
    return nullptr;
}

// The changes a comparing caption may name: the headline figures of core/cost/report/diff_report.h's Comparison.
struct ChangeDef {
    CaptionField field;
    FigureComparison Comparison::*figure;
};

const std::vector<ChangeDef>& change_defs() {
    static const std::vector<ChangeDef> defs = {
        {{"change.peak", "one GPU's peak memory, changed (\"-18.2 GB, -23.1 %\")"}, &Comparison::peak_memory},
        {{"change.activations", "one GPU's stored activations, changed"}, &Comparison::activations},
        {{"change.step_time", "the step time, changed (\"+0.410 s, +3.1 %\")"}, &Comparison::step_time},
        {{"change.compute", "the busiest GPU's compute time, changed"}, &Comparison::compute_time},
        {{"change.mfu", "MFU, changed in percentage points"}, &Comparison::mfu},
        {{"change.time_to_train", "the time to train, changed"}, &Comparison::time_to_train},
        {{"change.cost", "the cost of training, changed"}, &Comparison::training_cost},
    };
    return defs;
}

const ChangeDef* find_change(const std::string& name) {
    for (const ChangeDef& def : change_defs()) {
        if (name == def.field.name) return &def;
    }
    return nullptr;
}

constexpr std::string_view kBaselinePrefix = "baseline.";

// What a {name} is: a figure of the scene, of its baseline, or a change between them; unknown otherwise.
enum class FieldKind { figure, baseline_figure, change, unknown };

FieldKind field_kind(const std::string& name) {
    if (find_field(name)) return FieldKind::figure;
    if (name.rfind(kBaselinePrefix, 0) == 0 && find_field(name.substr(kBaselinePrefix.size()))) return FieldKind::baseline_figure;
    if (find_change(name)) return FieldKind::change;
    return FieldKind::unknown;
}

// Walks the text, calling on_field(name) for each {name} and on_text for everything else.
template <typename OnText, typename OnField>
void walk(const std::string& text, const std::string& field, bool has_baseline, OnText on_text, OnField on_field) {
    for (std::size_t at = 0; at < text.size();) {
        const std::size_t open = text.find('{', at);
        if (open == std::string::npos) {
            on_text(text.substr(at));
            return;
        }
        on_text(text.substr(at, open - at));
        if (open + 1 < text.size() && text[open + 1] == '{') {
            on_text("{");
            at = open + 2;
            continue;
        }
        const std::size_t close = text.find('}', open);
        if (close == std::string::npos) throw InputError(field, "a '{' at character " + std::to_string(open + 1) + " is never closed");
        const std::string name = text.substr(open + 1, close - open - 1);
        const FieldKind kind = field_kind(name);
        if (kind == FieldKind::unknown) throw InputError(field, "unknown figure {" + name + "} (see core/lessons/captions.cpp for the names)");
        if (kind != FieldKind::figure && !has_baseline) throw InputError(field, "{" + name + "} compares with a baseline: give the scene one");
        on_field(name, kind);
        at = close + 1;
    }
}

}  // namespace

const std::vector<CaptionField>& caption_fields() {
    static const std::vector<CaptionField> fields = [] {
        std::vector<CaptionField> list;
        for (const FieldDef& def : field_defs()) list.push_back(def.field);
        return list;
    }();
    return fields;
}

const std::vector<CaptionField>& change_caption_fields() {
    static const std::vector<CaptionField> fields = [] {
        std::vector<CaptionField> list;
        for (const ChangeDef& def : change_defs()) list.push_back(def.field);
        return list;
    }();
    return fields;
}

void check_caption(const std::string& text, const std::string& field, bool has_baseline) {
    walk(text, field, has_baseline, [](const std::string&) {}, [](const std::string&, FieldKind) {});
}

std::string fill_caption(const std::string& text, const Scenario& scenario, const Report& report, const Scenario* baseline,
                         const Report* baseline_report) {
    const bool has_baseline = baseline && baseline_report;
    CaptionInputs inputs{scenario, report, std::nullopt, std::nullopt, std::nullopt, std::nullopt};
    std::optional<CaptionInputs> baseline_inputs;
    if (has_baseline) baseline_inputs.emplace(CaptionInputs{*baseline, *baseline_report, std::nullopt, std::nullopt, std::nullopt, std::nullopt});
    std::optional<Comparison> comparison;
    std::string filled;
    walk(text, "caption", has_baseline, [&](const std::string& piece) { filled += piece; },
         [&](const std::string& name, FieldKind kind) {
             switch (kind) {
                 case FieldKind::figure: filled += find_field(name)->value(inputs); break;
                 case FieldKind::baseline_figure: filled += find_field(name.substr(kBaselinePrefix.size()))->value(*baseline_inputs); break;
                 case FieldKind::change:
                     if (!comparison) comparison = compare_scenarios(*baseline, *baseline_report, scenario, report);
                     filled += ((*comparison).*(find_change(name)->figure)).change;
                     break;
                 case FieldKind::unknown: break;
             }
         });
    return filled;
}

const std::vector<std::string>& caption_constants() {
    static const std::vector<std::string> constants = {
        "2(n-1)/n",         // a ring all-reduce's bytes sent per GPU (Patarasuk & Yuan 2009)
        "1.5 times",        // ZeRO-3's traffic over DP's all-reduce: 3 psi against 2 psi (Rajbhandari et al. 2020, sec 7.2.2)
        "8 b s h (t-1)/t",  // TP's all-reduced elements per layer per micro-batch: 4 all-reduces of b s h (Korthikanti 2022)
        "(p-1)/(m+p-1)",    // GPipe's bubble (Huang et al. 2019; Narayanan et al. 2021 sec 2.2.1)
        "(p-1)/(v m+p-1)",  // interleaved 1F1B's bubble (Narayanan et al. 2021 sec 2.2.2)
        "1F1B", "ZeRO-3",   // names
        "batch 1",          // decode one sequence at a time: the roofline's lowest point
    };
    return constants;
}

}  // namespace core
