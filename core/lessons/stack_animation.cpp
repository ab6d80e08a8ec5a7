#include "core/lessons/stack_animation.h"

#include "core/model/format.h"

#include <algorithm>
#include <cctype>
#include <cmath>

namespace core {

std::vector<GpuCeiling> gpu_ceilings(const HardwareCatalog& catalog, const GpuSpec& selected) {
    // The ceilings a stack is held against: the selected GPU and every NVLink-class GPU at least as large (what one
    // would scale up to); the catalog's PCIe cards (L4, RTX 4090, ...) are ceilings only when selected.
    std::vector<GpuSpec> gpus;
    for (const GpuSpec& gpu : catalog.gpus) {
        const bool pcie = gpu.scale_up_link.rfind("pcie", 0) == 0;
        if (gpu.id == selected.id || (!pcie && gpu.hbm_bytes >= selected.hbm_bytes * (1.0 - ceiling_merge_share))) gpus.push_back(gpu);
    }
    const bool in_catalog = std::any_of(gpus.begin(), gpus.end(), [&](const GpuSpec& gpu) {
        return gpu.id == selected.id && gpu.hbm_bytes == selected.hbm_bytes;
    });
    if (!in_catalog) gpus.push_back(selected);  // a custom GPU still gets its line
    std::stable_sort(gpus.begin(), gpus.end(), [](const GpuSpec& a, const GpuSpec& b) { return a.hbm_bytes < b.hbm_bytes; });
    std::vector<GpuCeiling> ceilings;
    double group_lowest_bytes = 0;  // the lowest capacity on the line being built
    for (const GpuSpec& gpu : gpus) {
        const bool is_selected = gpu.id == selected.id && gpu.hbm_bytes == selected.hbm_bytes;
        // The name up to its first word with a digit: "H100", "A100", "RTX 4090" (not "RTX"), "MI300X".
        std::size_t end = 0;
        while (end < gpu.name.size()) {
            const std::size_t space = gpu.name.find(' ', end);
            const std::size_t word_end = space == std::string::npos ? gpu.name.size() : space;
            const bool has_digit = std::any_of(gpu.name.begin() + static_cast<long>(end), gpu.name.begin() + static_cast<long>(word_end),
                                               [](unsigned char c) { return std::isdigit(c) != 0; });
            end = word_end;
            if (has_digit || space == std::string::npos) break;
            ++end;
        }
        const std::string short_name = gpu.name.substr(0, end);
        if (!ceilings.empty() && gpu.hbm_bytes <= group_lowest_bytes * (1.0 + ceiling_merge_share)) {
            ceilings.back().gpu_names += " / " + gpu.name;
            ceilings.back().short_names += " / " + short_name;
            if (is_selected) ceilings.back().hbm_bytes = gpu.hbm_bytes;  // the shared line is drawn at the selected GPU's bytes
            ceilings.back().selected = ceilings.back().selected || is_selected;
            continue;
        }
        group_lowest_bytes = gpu.hbm_bytes;
        ceilings.push_back({gpu.hbm_bytes, gpu.name, short_name, is_selected});
    }
    return ceilings;
}

double per_gpu_state_bytes(const PerGpuMemory& per_gpu) {
    return per_gpu.weights_bytes + per_gpu.grads_bytes + per_gpu.master_bytes + per_gpu.optimizer_bytes;
}

std::vector<std::string> above_whole_model_text(const PerGpuMemory& per_gpu, double whole_model_bytes) {
    const double above_bytes = per_gpu.peak_bytes - whole_model_bytes;
    if (!(above_bytes > 0) || !(whole_model_bytes > 0)) return {};
    std::string what = per_gpu.comm_buffers_bytes > 0 ? format_bytes(per_gpu.comm_buffers_bytes) + " of NCCL buckets" : std::string();
    if (per_gpu.gathered_weights_bytes > 0) what += (what.empty() ? "" : " and ") + format_bytes(per_gpu.gathered_weights_bytes) + " of gathered weights";
    if (what.empty()) return {"above the whole model by " + format_bytes(above_bytes)};
    return {"above the whole model: " + what + " one GPU alone would not need", "+" + what};
}

Overshoot overshoot(double bytes, const GpuSpec& gpu) {
    Overshoot result;
    result.bytes = bytes;
    result.hbm_bytes = gpu.hbm_bytes;
    result.gpus_worth = gpu.hbm_bytes > 0 ? bytes / gpu.hbm_bytes : 0.0;
    result.over = bytes > gpu.hbm_bytes;
    result.over_bytes = result.over ? bytes - gpu.hbm_bytes : 0.0;
    result.caption = result.over ? format_number(result.gpus_worth) + "x " + with_article(gpu.name)
                                 : "fits: " + format_percent(result.gpus_worth) + " of " + with_article(gpu.name);
    return result;
}

namespace {

double smoothstep(double x) {
    x = std::clamp(x, 0.0, 1.0);
    return x * x * (3.0 - 2.0 * x);
}

bool is_state(const MemoryBlock& block) { return is_training_state(block.kind); }

double state_bytes_per_param(const MemoryReport& memory) {
    double bytes = 0;
    for (const MemoryBlock& block : memory.blocks) if (is_state(block)) bytes += block.bytes_per_param;
    return bytes;
}

std::string ceiling_list(const std::vector<GpuCeiling>& ceilings) {
    std::string text;
    for (const GpuCeiling& ceiling : ceilings) {
        text += (text.empty() ? "" : ", ") + ceiling.short_names + " (" + format_bytes(ceiling.hbm_bytes) + ")";
    }
    return text;
}

// Activations grow with layers x hidden, which at a fixed aspect ratio (h = 128 l, as synthesize_shape) is N^(2/3).
double activations_at(double final_bytes, double params, double final_params) {
    if (!(final_params > 0) || params >= final_params) return final_bytes;
    return final_bytes * std::pow(params / final_params, 2.0 / 3.0);
}

std::string layer_formula(const MemoryBlock& block, const std::string& label, const std::string& whole_formula, double params,
                          double final_params, double bytes) {
    if (params >= final_params) return whole_formula;  // the Report's own words at the scenario's size
    if (!is_state(block)) {
        return label + ", one micro-batch: " + format_bytes(block.whole_bytes) + " x (" + format_sci(params) + " / " +
               format_sci(final_params) + ")^(2/3) = " + format_bytes(bytes) + "  (layers x hidden grow as N^(2/3))";
    }
    return label + ": " + format_plain(block.bytes_per_param) + " B x " + format_sci(params) + " = " + format_bytes(bytes);
}

}  // namespace

StackTimeline stack_timeline(const MemoryReport& memory, const std::vector<GpuCeiling>& ceilings, const StackTiming& timing) {
    StackTimeline timeline;
    timeline.final_params = memory.params;
    for (const MemoryBlock& block : memory.blocks) timeline.final_total_bytes += block.whole_bytes;
    const double bytes_per_param = state_bytes_per_param(memory);
    timeline.start_params = memory.params;
    if (!ceilings.empty() && bytes_per_param > 0) {
        const double fits_lowest = timing.start_fill * ceilings.front().hbm_bytes / bytes_per_param;
        timeline.start_params = std::min(memory.params, fits_lowest);
    }
    const double layer_count = static_cast<double>(memory.blocks.size());
    timeline.step_seconds = timing.seconds_per_category;
    // The first category stands at t = 0; each further one takes a slot, and one more slot lets the last be read.
    timeline.build_seconds = layer_count * timing.seconds_per_category;
    if (timeline.final_params > timeline.start_params * 1.0001) {
        const double decades = std::log10(timeline.final_params / timeline.start_params);
        timeline.grow_seconds = std::max(timing.min_grow_seconds, decades * timing.seconds_per_decade);
    }
    timeline.duration_seconds = timeline.build_seconds + timeline.grow_seconds + timing.hold_seconds;
    return timeline;
}

StackFrame stack_frame(const MemoryReport& memory, const ReportText& text, const std::vector<GpuCeiling>& ceilings, double t_seconds,
                       const StackTiming& timing) {
    const StackTimeline timeline = stack_timeline(memory, ceilings, timing);
    const double t = std::isfinite(t_seconds) ? std::clamp(t_seconds, 0.0, timeline.duration_seconds) : 0.0;
    const double slot = timing.seconds_per_category;
    const int layer_count = static_cast<int>(memory.blocks.size());

    StackFrame frame;
    frame.t_seconds = t;
    if (layer_count == 0) return frame;  // evaluate() always reports activations; nothing to stack otherwise
    if (t < timeline.build_seconds) {
        frame.phase = StackPhase::build;
        frame.params = timeline.start_params;
        frame.appearing = std::clamp(static_cast<int>(std::ceil(t / slot - 1e-9)), 0, layer_count - 1);
    } else if (t < timeline.build_seconds + timeline.grow_seconds) {
        frame.phase = StackPhase::grow;
        const double progress = smoothstep((t - timeline.build_seconds) / timeline.grow_seconds);
        frame.params = timeline.start_params * std::pow(timeline.final_params / timeline.start_params, progress);
    } else {
        frame.phase = StackPhase::hold;
        frame.params = timeline.final_params;
    }

    std::vector<int> seen_of_kind;
    std::vector<MemoryKind> kinds;
    for (int i = 0; i < layer_count; ++i) {
        const MemoryBlock& block = memory.blocks[i];
        const std::string label = i < static_cast<int>(text.block_labels.size()) ? text.block_labels[i] : std::string(memory_kind_name(block.kind));
        const std::string whole = i < static_cast<int>(text.block_whole.size()) ? text.block_whole[i].formula : std::string();
        StackLayer layer;
        layer.label = label;
        layer.kind = block.kind;
        const auto kind = std::find(kinds.begin(), kinds.end(), block.kind);
        if (kind == kinds.end()) {
            kinds.push_back(block.kind);
            seen_of_kind.push_back(1);
        } else {
            layer.index_within_kind = seen_of_kind[kind - kinds.begin()]++;
        }
        layer.bytes_per_param = block.bytes_per_param;
        layer.final_bytes = block.whole_bytes;
        layer.shown = i == 0 ? 1.0 : smoothstep((t - (i - 1) * slot) / slot);
        const double full = is_state(block) ? block.bytes_per_param * frame.params
                                            : activations_at(block.whole_bytes, frame.params, timeline.final_params);
        const double exact_end = frame.params >= timeline.final_params ? block.whole_bytes : full;
        layer.bytes = exact_end * layer.shown;
        layer.formula = layer_formula(block, label, whole, frame.params, timeline.final_params, exact_end);
        if (is_state(block)) frame.state_bytes += layer.bytes;
        frame.total_bytes += layer.bytes;
        frame.layers.push_back(layer);
    }
    for (const GpuCeiling& ceiling : ceilings) {
        if (frame.total_bytes > ceiling.hbm_bytes) frame.crossed.push_back(ceiling);
    }

    const double bytes_per_param = state_bytes_per_param(memory);
    const std::string crossed = frame.crossed.empty() ? std::string("under every ceiling") : "past " + ceiling_list(frame.crossed);
    switch (frame.phase) {
        case StackPhase::build: {
            const StackLayer& layer = frame.layers.at(frame.appearing);
            frame.caption = std::string(frame.appearing == 0 ? "" : "+ ") + layer.formula + "; the stack: " + format_bytes(frame.total_bytes);
            break;
        }
        case StackPhase::grow:
            frame.caption = "Growing to " + format_sci(timeline.final_params) + " parameters: " + format_sci(frame.params) + " x " +
                            format_plain(bytes_per_param) + " B + activations = " + format_bytes(frame.total_bytes) + ", " + crossed;
            break;
        case StackPhase::hold:
            frame.caption = format_sci(frame.params) + " parameters x " + format_plain(bytes_per_param) + " B = " +
                            format_bytes(frame.state_bytes) + " of training state; with activations " +
                            format_bytes(frame.total_bytes) + ", " + crossed;
            break;
    }
    return frame;
}

}  // namespace core
