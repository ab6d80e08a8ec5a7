// DualPipe and DualPipeV (DeepSeek-V3 sec 3.2.1; the DualPipe README's figures and its table "Pipeline Bubbles and
// Memory Usage Comparison"), generated as timelines and checked column by column against that table.
#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "core/cost/kernels/pipeline_schedule.h"
#include "core/model/errors.h"
#include "core/model/scenario_edits.h"
#include "test_scenarios.h"

namespace {

using core::PipelineOp;
using core::PipelineOpKind;
using core::ScheduleKind;
using core::ScheduleParams;
using core::ScheduleTimeline;

constexpr double tolerance_seconds = 1e-9;

// Times for one device's whole L/p share: F forward, B_input the backward's input half, W its weight half.
ScheduleParams params_for(ScheduleKind kind, int devices, int microbatches, double forward = 1, double backward_input = 1,
                          double weight_grad = 1, double forward_backward = 0) {
    ScheduleParams params;
    params.kind = kind;
    params.stages = devices;
    params.microbatches = microbatches;
    params.forward_seconds = forward;
    params.backward_seconds = backward_input + weight_grad;
    params.weight_grad_seconds = weight_grad;
    params.forward_backward_seconds = forward_backward;
    return params;
}

// Idle time of every device: the makespan less the time its ops run (an F&B cell's two halves count once).
std::vector<double> idle_per_device(const ScheduleTimeline& timeline) {
    std::vector<double> busy(timeline.stages, 0.0);
    std::vector<double> covered_until(timeline.stages, -1.0);
    for (const PipelineOp& op : timeline.ops) {
        if (op.start_seconds < covered_until[op.device] - tolerance_seconds) continue;  // the F&B cell's second half
        busy[op.device] += op.duration_seconds;
        covered_until[op.device] = op.end_seconds();
    }
    std::vector<double> idle(timeline.stages);
    for (int d = 0; d < timeline.stages; ++d) idle[d] = timeline.makespan_seconds - busy[d];
    return idle;
}

// The table's bubble in chunk times. For DualPipe a chunk is one L/p share; DualPipeV cuts 2p stages, half a share.
double table_bubble(ScheduleKind kind, int model_stages, double chunk_forward, double chunk_backward, double chunk_weight_grad,
                    double chunk_forward_backward) {
    switch (kind) {
        case ScheduleKind::one_f_one_b: return (model_stages - 1) * (chunk_forward + chunk_backward);
        case ScheduleKind::zb_h1: return (model_stages - 1) * (chunk_forward + chunk_backward - 2 * chunk_weight_grad);
        default: return (model_stages / 2.0 - 1) * (chunk_forward_backward + chunk_backward - 3 * chunk_weight_grad);
    }
}

// Every (stage, micro-batch) has one F and one backward (whole, or B then W); every dependency holds; a device runs
// one op at a time, but for the two halves of an F&B cell, which share their start and duration.
void require_valid_dualpipe(const ScheduleParams& params, const ScheduleTimeline& timeline) {
    INFO(core::schedule_name(params.kind) << " p=" << params.stages << " m=" << params.microbatches << " p2p=" << params.p2p_seconds);
    const core::SchedulePlacement placement = core::schedule_placement(params.kind, params.stages, 1);
    const int p = params.stages;
    const int m = params.microbatches;
    REQUIRE(timeline.ops.size() == core::schedule_op_count(params));
    REQUIRE(timeline.virtual_chunks == 2);
    // Where stage s of micro-batch j must run.
    const auto device_of = [&](int stage, int microbatch) {
        if (params.kind == ScheduleKind::dualpipe) return microbatch < m / 2 ? stage : p - 1 - stage;
        return stage < p ? stage : 2 * p - 1 - stage;
    };
    std::map<std::tuple<int, int, PipelineOpKind>, const PipelineOp*> by_work;
    for (std::size_t i = 0; i < timeline.ops.size(); ++i) {
        const PipelineOp& op = timeline.ops[i];
        REQUIRE(op.stage >= 0);
        REQUIRE(op.stage < placement.model_stages);
        REQUIRE(op.device == device_of(op.stage, op.microbatch));
        REQUIRE(op.microbatch >= 0);
        REQUIRE(op.microbatch < m);
        REQUIRE(op.duration_seconds > 0);
        const auto key = std::make_tuple(op.stage, op.microbatch, op.kind == PipelineOpKind::backward_input ? PipelineOpKind::backward : op.kind);
        REQUIRE(by_work.count(key) == 0);
        by_work[key] = &op;
        if (i == 0 || timeline.ops[i - 1].device != op.device) continue;
        const PipelineOp& previous = timeline.ops[i - 1];
        if (previous.overlapped && op.overlapped && previous.start_seconds == op.start_seconds) {
            // One F&B cell: a forward, then a whole backward of another micro-batch, the same time.
            REQUIRE(previous.kind == PipelineOpKind::forward);
            REQUIRE(op.kind == PipelineOpKind::backward);
            REQUIRE(op.duration_seconds == previous.duration_seconds);
            REQUIRE(op.microbatch != previous.microbatch);
        } else {
            REQUIRE(op.start_seconds >= previous.end_seconds() - tolerance_seconds);
        }
    }
    const auto transfer = [&](int from, int to, int j) { return device_of(from, j) == device_of(to, j) ? 0.0 : params.p2p_seconds; };
    for (int stage = 0; stage < placement.model_stages; ++stage) {
        for (int j = 0; j < m; ++j) {
            const PipelineOp* forward = by_work.at({stage, j, PipelineOpKind::forward});
            const PipelineOp* backward = by_work.at({stage, j, PipelineOpKind::backward});
            REQUIRE(backward->start_seconds >= forward->end_seconds() - tolerance_seconds);
            if (stage > 0) {
                const PipelineOp* upstream = by_work.at({stage - 1, j, PipelineOpKind::forward});
                REQUIRE(forward->start_seconds >= upstream->end_seconds() + transfer(stage - 1, stage, j) - tolerance_seconds);
            }
            if (stage + 1 < placement.model_stages) {
                const PipelineOp* downstream = by_work.at({stage + 1, j, PipelineOpKind::backward});
                REQUIRE(backward->start_seconds >= downstream->end_seconds() + transfer(stage + 1, stage, j) - tolerance_seconds);
            }
            const auto weight = by_work.find({stage, j, PipelineOpKind::weight_grad});
            if (weight != by_work.end()) {
                REQUIRE(backward->kind == PipelineOpKind::backward_input);
                REQUIRE(weight->second->start_seconds >= backward->end_seconds() - tolerance_seconds);
            } else {
                REQUIRE(backward->kind == PipelineOpKind::backward);
            }
        }
    }
}

}  // namespace

TEST_CASE("DualPipe README figure: 8 ranks, 20 micro-batches, one cell per F, B-for-input and W, F&B three cells",
          "[pipeline][dualpipe]") {
    // The figure's rows, read cell by cell: device 0 runs forwards 0..6, one reverse forward, three reverse
    // (B, W, F) triples, then its first F&B cell at 17..20 and waits 3 cells; device 7 mirrors it; the step is 66 cells.
    const ScheduleTimeline timeline = core::generate_schedule(params_for(ScheduleKind::dualpipe, 8, 20));
    REQUIRE(timeline.makespan_seconds == Approx(66));
    std::vector<const PipelineOp*> device0;
    for (const PipelineOp& op : timeline.ops)
        if (op.device == 0) device0.push_back(&op);
    for (int j = 0; j < 7; ++j) {
        REQUIRE(device0[j]->kind == PipelineOpKind::forward);
        REQUIRE(device0[j]->microbatch == j);
        REQUIRE(device0[j]->start_seconds == Approx(j));
    }
    const PipelineOpKind triple[] = {PipelineOpKind::backward_input, PipelineOpKind::weight_grad, PipelineOpKind::forward};
    REQUIRE(device0[7]->kind == PipelineOpKind::forward);
    REQUIRE(device0[7]->microbatch == 10);  // the first micro-batch entering at device 7
    REQUIRE(device0[7]->stage == 7);
    for (int k = 0; k < 9; ++k) {
        REQUIRE(device0[8 + k]->kind == triple[k % 3]);
        REQUIRE(device0[8 + k]->start_seconds == Approx(8 + k));
    }
    REQUIRE(device0[17]->overlapped);
    REQUIRE(device0[17]->kind == PipelineOpKind::forward);
    REQUIRE(device0[17]->microbatch == 7);  // "7" in the figure's F&B cell
    REQUIRE(device0[17]->start_seconds == Approx(17));
    REQUIRE(device0[17]->end_seconds() == Approx(20));
    REQUIRE(device0[19]->start_seconds == Approx(23));  // white cells 20..23
    // The figure's tail on device 0: B and W of micro-batches 6, 7, 8, 9 alternating, ending the step.
    const std::size_t tail = device0.size() - 8;
    for (int k = 0; k < 8; ++k) {
        REQUIRE(device0[tail + k]->kind == (k % 2 == 0 ? PipelineOpKind::backward_input : PipelineOpKind::weight_grad));
        REQUIRE(device0[tail + k]->microbatch == 6 + k / 2);
    }
    REQUIRE(device0.back()->end_seconds() == Approx(66));
    require_valid_dualpipe(params_for(ScheduleKind::dualpipe, 8, 20), timeline);
}

TEST_CASE("DualPipe README table, bubble column: 1F1B (PP-1)(F+B), ZB1P (PP-1)(F+B-2W), DualPipe and DualPipeV "
          "(PP/2-1)(F&B+B-3W)",
          "[pipeline][dualpipe]") {
    // The table's regime, its figures': B's input half as long as F, W at most F. B is the whole backward chunk.
    struct Times {
        double forward, weight_grad, overlap_share;  // F&B = F + B - overlap_share * min(F, B)
    };
    for (Times times : {Times{1, 1, 0}, Times{1, 0.5, 0}, Times{1, 0.25, 0.5}, Times{1, 1, 0.4}, Times{2, 1, 1}}) {
        for (int pp : {2, 4, 6, 8, 16}) {
            for (int microbatches : {2 * pp, 2 * pp + 2, 5 * pp}) {
                INFO("PP=" << pp << " m=" << microbatches << " F=" << times.forward << " W=" << times.weight_grad
                           << " overlap=" << times.overlap_share);
                const double f = times.forward;
                const double b = f + times.weight_grad;
                const double w = times.weight_grad;
                const double fb = f + b - times.overlap_share * std::min(f, b);

                // One-way schedules: PP stages on PP devices, chunk = device share.
                if (times.overlap_share == 0) {
                    const ScheduleTimeline one_f_one_b = core::generate_schedule(params_for(ScheduleKind::one_f_one_b, pp, microbatches, f, f, w));
                    const ScheduleTimeline zb1p = core::generate_schedule(params_for(ScheduleKind::zb_h1, pp, microbatches, f, f, w));
                    for (double idle : idle_per_device(one_f_one_b)) REQUIRE(idle == Approx(table_bubble(ScheduleKind::one_f_one_b, pp, f, b, w, fb)));
                    REQUIRE(core::closed_form_idle_seconds(params_for(ScheduleKind::one_f_one_b, pp, microbatches, f, f, w)) ==
                            Approx(table_bubble(ScheduleKind::one_f_one_b, pp, f, b, w, fb)));
                    for (double idle : idle_per_device(zb1p)) REQUIRE(idle == Approx(table_bubble(ScheduleKind::zb_h1, pp, f, b, w, fb)));
                }

                // DualPipe: PP stages on PP devices. The bubble is the idle time where the two directions meet, the
                // most idle devices; with F&B = F + B every device idles exactly that long.
                const ScheduleParams dual = params_for(ScheduleKind::dualpipe, pp, microbatches, f, f, w, fb);
                const ScheduleTimeline dualpipe = core::generate_schedule(dual);
                const double bubble = table_bubble(ScheduleKind::dualpipe, pp, f, b, w, fb);
                const std::vector<double> idle = idle_per_device(dualpipe);
                REQUIRE(*std::max_element(idle.begin(), idle.end()) == Approx(bubble).margin(1e-9));
                REQUIRE(dualpipe.max_idle_seconds == Approx(bubble).margin(1e-9));
                REQUIRE(idle[pp / 2 - 1] == Approx(bubble).margin(1e-9));
                if (times.overlap_share == 0)
                    for (double device_idle : idle) REQUIRE(device_idle == Approx(bubble).margin(1e-9));
                REQUIRE(core::closed_form_applies(dual));
                REQUIRE(core::closed_form_bubble_overhead(dual) * microbatches * (f + b) == Approx(bubble).margin(1e-9));
                REQUIRE(core::closed_form_idle_seconds(dual) == Approx(bubble).margin(1e-9));
                REQUIRE(core::closed_form_makespan(dual) == Approx(dualpipe.makespan_seconds));

                // DualPipeV: the same PP stages on PP/2 devices, each device's share two chunks of half its layers.
                if (pp / 2 >= 1) {
                    const ScheduleParams v = params_for(ScheduleKind::dualpipe_v, pp / 2, microbatches, 2 * f, 2 * f, 2 * w, 2 * fb);
                    const ScheduleTimeline dualpipe_v = core::generate_schedule(v);
                    REQUIRE(dualpipe_v.max_idle_seconds == Approx(table_bubble(ScheduleKind::dualpipe_v, pp, f, b, w, fb)).margin(1e-9));
                    REQUIRE(core::closed_form_bubble_overhead(v) * microbatches * 2 * (f + b) == Approx(dualpipe_v.max_idle_seconds).margin(1e-9));
                    REQUIRE(core::closed_form_makespan(v) == Approx(dualpipe_v.makespan_seconds));
                }
            }
        }
    }
}

TEST_CASE("DualPipe README table, parameter and #devices columns: 2x per device; DualPipeV on PP/2 devices",
          "[pipeline][dualpipe]") {
    for (int pp : {2, 4, 8, 16}) {
        INFO("PP=" << pp);
        // DualPipe: device d computes stage d for the micro-batches entering at device 0 and stage PP-1-d for those
        // entering at device PP-1: two of the PP stages, twice the parameters of a 1F1B device.
        const ScheduleTimeline dualpipe = core::generate_schedule(params_for(ScheduleKind::dualpipe, pp, 2 * pp));
        std::vector<std::set<int>> stages(pp);
        for (const PipelineOp& op : dualpipe.ops) stages[op.device].insert(op.stage);
        for (int d = 0; d < pp; ++d) {
            REQUIRE(stages[d] == std::set<int>{std::min(d, pp - 1 - d), std::max(d, pp - 1 - d)});
        }
        const core::SchedulePlacement dual = core::schedule_placement(ScheduleKind::dualpipe, pp, 1);
        REQUIRE(dual.model_stages == pp);
        REQUIRE(dual.stages_per_device == 2);
        REQUIRE(dual.parameter_copies() == 2.0);

        // DualPipeV: PP stages on PP/2 devices, device d holds stage d and stage PP-1-d, each L/PP layers: two
        // stages, 2x a 1F1B device of the same PP stages, as many layers as a 1F1B device of the same device count.
        const int devices = pp / 2;
        const ScheduleTimeline dualpipe_v = core::generate_schedule(params_for(ScheduleKind::dualpipe_v, devices, 2 * devices));
        REQUIRE(dualpipe_v.stages == pp / 2);
        std::vector<std::set<int>> v_stages(devices);
        for (const PipelineOp& op : dualpipe_v.ops) v_stages[op.device].insert(op.stage);
        for (int d = 0; d < devices; ++d) REQUIRE(v_stages[d] == std::set<int>{d, pp - 1 - d});
        const core::SchedulePlacement v = core::schedule_placement(ScheduleKind::dualpipe_v, devices, 1);
        REQUIRE(v.model_stages == pp);
        REQUIRE(v.stages_per_device == 2);
        REQUIRE(v.parameter_copies() == 1.0);

        REQUIRE(core::schedule_placement(ScheduleKind::one_f_one_b, pp, 1).parameter_copies() == 1.0);
        REQUIRE(core::schedule_placement(ScheduleKind::interleaved, pp, 4).parameter_copies() == 1.0);
    }
}

TEST_CASE("DualPipe README table, activation column: PP+1 chunks per device (1F1B and ZB1P: PP)", "[pipeline][dualpipe]") {
    for (int pp : {2, 4, 6, 8, 16}) {
        for (int microbatches : {2 * pp, 4 * pp + 2}) {
            INFO("PP=" << pp << " m=" << microbatches);
            const ScheduleParams dual = params_for(ScheduleKind::dualpipe, pp, microbatches);
            const ScheduleTimeline dualpipe = core::generate_schedule(dual);
            for (int d = 0; d < pp; ++d) {
                REQUIRE(dualpipe.peak_inflight_microbatches[d] == pp + 1);
                REQUIRE(dualpipe.peak_inflight_activations[d] == pp + 1.0);  // each chunk one L/pp share
            }
            REQUIRE(core::closed_form_peak_inflight(dual) == pp + 1);
            const ScheduleTimeline one_f_one_b = core::generate_schedule(params_for(ScheduleKind::one_f_one_b, pp, microbatches));
            const ScheduleTimeline zb1p = core::generate_schedule(params_for(ScheduleKind::zb_h1, pp, microbatches));
            REQUIRE(one_f_one_b.peak_inflight_microbatches[0] == pp);
            REQUIRE(zb1p.peak_inflight_microbatches[0] == pp);

            // DualPipeV: PP stages on PP/2 devices; PP+1 chunks of half a device's share.
            const ScheduleParams v = params_for(ScheduleKind::dualpipe_v, pp / 2, microbatches);
            const ScheduleTimeline dualpipe_v = core::generate_schedule(v);
            for (int d = 0; d < pp / 2; ++d) {
                REQUIRE(dualpipe_v.peak_inflight_microbatches[d] == pp + 1);
                REQUIRE(dualpipe_v.peak_inflight_activations[d] == Approx((pp + 1) / 2.0));
            }
            REQUIRE(core::closed_form_peak_inflight(v) == pp + 1);
            // Sampled over time, the in-flight count never passes the peak and is zero at the end.
            for (const PipelineOp& op : dualpipe.ops) {
                const std::vector<int> now = core::inflight_at(dualpipe, op.start_seconds + 1e-6);
                REQUIRE(now[op.device] <= pp + 1);
            }
            REQUIRE(core::inflight_at(dualpipe, dualpipe.makespan_seconds) == std::vector<int>(pp, 0));
        }
    }
}

TEST_CASE("DualPipe and DualPipeV timelines: every op once, every dependency, F&B cells share their time", "[pipeline][dualpipe]") {
    struct Times {
        double forward, backward_input, weight_grad, forward_backward;
    };
    for (ScheduleKind kind : {ScheduleKind::dualpipe, ScheduleKind::dualpipe_v}) {
        for (int p : {1, 2, 3, 4, 6, 8}) {
            if (kind == ScheduleKind::dualpipe && p % 2 != 0) continue;
            for (int extra : {0, 1, 2, 7}) {
                const int m = 2 * p + (kind == ScheduleKind::dualpipe ? 2 * extra : extra);
                for (double p2p : {0.0, 0.3}) {
                    for (Times t : {Times{1, 1, 1, 0}, Times{1, 0.6, 0.2, 1.5}, Times{0.3, 2, 1.5, 3.5}, Times{2, 0.5, 0.4, 2.1}}) {
                        ScheduleParams params = params_for(kind, p, m, t.forward, t.backward_input, t.weight_grad, t.forward_backward);
                        params.p2p_seconds = p2p;
                        params.first_forward_extra_seconds = 0.2;  // the embedding on stage 0
                        params.last_backward_extra_seconds = 0.7;  // logits and loss on the last stage
                        require_valid_dualpipe(params, core::generate_schedule(params));
                    }
                }
            }
        }
    }
}

TEST_CASE("DualPipe's needs: even PP, an even number of micro-batches, at least 2 PP; DualPipeV at least 2 PP",
          "[pipeline][dualpipe]") {
    const auto field_of = [](const ScheduleParams& params) -> std::string {
        try {
            core::generate_schedule(params);
        } catch (const core::InputError& error) {
            return error.field();
        }
        return "(no error)";
    };
    REQUIRE(field_of(params_for(ScheduleKind::dualpipe, 4, 8)) == "(no error)");
    REQUIRE(field_of(params_for(ScheduleKind::dualpipe, 3, 12)) == "parallel.pp");
    REQUIRE(field_of(params_for(ScheduleKind::dualpipe, 4, 6)) == "parallel.microbatches");
    REQUIRE(field_of(params_for(ScheduleKind::dualpipe, 4, 9)) == "parallel.microbatches");
    REQUIRE(field_of(params_for(ScheduleKind::dualpipe_v, 3, 6)) == "(no error)");
    REQUIRE(field_of(params_for(ScheduleKind::dualpipe_v, 3, 7)) == "(no error)");
    REQUIRE(field_of(params_for(ScheduleKind::dualpipe_v, 3, 5)) == "parallel.microbatches");
    REQUIRE(field_of(params_for(ScheduleKind::dualpipe, 4, 8, 1, 1, 1, 1.5)) == "schedule.forward_backward_seconds");  // < B
    REQUIRE(field_of(params_for(ScheduleKind::dualpipe, 4, 8, 1, 1, 1, 3.5)) == "schedule.forward_backward_seconds");  // > F + B
    ScheduleParams no_weight_grad = params_for(ScheduleKind::dualpipe, 4, 8);
    no_weight_grad.weight_grad_seconds = 0;
    REQUIRE(field_of(no_weight_grad) == "schedule.weight_grad_seconds");

    REQUIRE(core::schedule_fit_problem(ScheduleKind::dualpipe, 3, 12, 80)->pipeline_size);
    REQUIRE_FALSE(core::schedule_fit_problem(ScheduleKind::dualpipe, 4, 6, 80)->pipeline_size);
    REQUIRE(core::schedule_fit_problem(ScheduleKind::dualpipe_v, 41, 100, 80)->pipeline_size);  // 82 stages, 80 layers
    REQUIRE_FALSE(core::schedule_fit_problem(ScheduleKind::one_f_one_b, 3, 1, 80).has_value());
}

TEST_CASE("DualPipe and DualPipeV names round-trip", "[pipeline][dualpipe]") {
    REQUIRE(core::parse_schedule_kind("dualpipe") == ScheduleKind::dualpipe);
    REQUIRE(core::parse_schedule_kind("dualpipev") == ScheduleKind::dualpipe_v);
    REQUIRE(std::string(core::schedule_name(ScheduleKind::dualpipe_v)) == "dualpipev");
}

TEST_CASE("DualPipe README table in the step model: GPT-3 175B on PP 8 holds 2x the state and PP+1 stages of activations",
          "[pipeline][dualpipe][activations]") {
    // Korthikanti 2022's GPT-3 setting, 64 micro-batches: 1F1B keeps p = 8 micro-batches of its 12 layers in flight.
    const double per_layer = 2048.0 * 12288 * 34 / 8;
    core::Scenario scenario = core_tests::megatron_a100("gpt3-175b", 8, 8, 64, 64, R"(, "sequence_parallel": true, "recompute": "selective")");
    const core::Report one_f_one_b = core::evaluate(scenario);
    scenario.parallel.schedule = core::ScheduleKind::dualpipe;
    const core::Report dualpipe = core::evaluate(scenario);
    scenario.parallel.schedule = core::ScheduleKind::dualpipe_v;
    const core::Report dualpipe_v = core::evaluate(scenario);

    REQUIRE(one_f_one_b.memory.per_gpu.activations_bytes == Approx(12 * 8 * per_layer));
    // DualPipe: 9 chunks of 12 layers; DualPipeV: 17 chunks of the 16 stages' 6 layers.
    REQUIRE(dualpipe.memory.activations.inflight_microbatches == Approx(9));
    REQUIRE(dualpipe.memory.per_gpu.activations_bytes == Approx(12 * 9 * per_layer));
    REQUIRE(dualpipe_v.memory.activations.inflight_microbatches == Approx(8.5));
    REQUIRE(dualpipe_v.memory.per_gpu.activations_bytes == Approx(6 * 17 * per_layer));
    // Parameters: DualPipe's device 0 holds stage 0 and stage 7, 1F1B's first and last devices together (twice the
    // layers, and both the embedding and the head); DualPipeV's device 0 holds 2 of 16 stages, a 1F1B device's layers.
    const std::vector<core::StageMemory>& stages = one_f_one_b.memory.per_stage;
    REQUIRE(stages.size() == 8);
    REQUIRE(dualpipe.memory.per_stage.at(0).params_per_gpu == Approx(stages.front().params_per_gpu + stages.back().params_per_gpu));
    REQUIRE(dualpipe.memory.per_stage.at(0).state_bytes == Approx(stages.front().state_bytes + stages.back().state_bytes));
    REQUIRE(dualpipe.memory.per_stage.at(3).params_per_gpu == Approx(2 * stages.at(3).params_per_gpu));  // stages 3 and 4
    const double embedding_per_gpu = stages.front().params_per_gpu - stages.at(3).params_per_gpu;
    REQUIRE(dualpipe_v.memory.per_stage.at(0).params_per_gpu == Approx(stages.back().params_per_gpu + embedding_per_gpu));
    // Both step times come from their generated timelines, and the bubble shrinks as the table says.
    for (const core::Report* report : {&dualpipe, &dualpipe_v}) {
        REQUIRE(std::isfinite(report->compute.step_seconds));
        REQUIRE(report->compute.step_seconds > 0);
        REQUIRE(report->pipeline.bubble_fraction < one_f_one_b.pipeline.bubble_fraction);
        REQUIRE(report->pipeline.microbatches == 64);
        // The busiest GPU's breakdown (device 0: both edge stages) still adds up to the step.
        REQUIRE(report->compute.breakdown_seconds.total() == Approx(report->compute.modelled_step_seconds));
        REQUIRE(report->compute.bubble_seconds >= 0);
    }
    REQUIRE(dualpipe.pipeline.schedule == core::ScheduleKind::dualpipe);
}

TEST_CASE("DualPipe's needs in check_layout and the scenario edits: even PP, at least 2 PP micro-batches", "[pipeline][dualpipe]") {
    core::Scenario scenario = core_tests::megatron_a100("gpt3-175b", 8, 8, 64, 64);
    REQUIRE(core::with_schedule(scenario, core::ScheduleKind::dualpipe).ok());
    const core::Choices choices = core::choices_of(scenario);
    REQUIRE(std::count(choices.schedules.begin(), choices.schedules.end(), core::ScheduleKind::dualpipe) == 1);
    REQUIRE(std::count(choices.schedules.begin(), choices.schedules.end(), core::ScheduleKind::dualpipe_v) == 1);

    // 8 micro-batches on PP 8: fewer than 2 PP, so neither is offered and asking is refused, naming the field.
    const core::Scenario few = core_tests::megatron_a100("gpt3-175b", 8, 8, 64, 8);
    const core::Edit refused = core::with_schedule(few, core::ScheduleKind::dualpipe);
    REQUIRE_FALSE(refused.ok());
    REQUIRE(refused.problem->field == "parallel.schedule");
    const core::Choices few_choices = core::choices_of(few);
    REQUIRE(std::count(few_choices.schedules.begin(), few_choices.schedules.end(), core::ScheduleKind::dualpipe) == 0);

    // A scenario file naming DualPipe with an odd PP is refused by the one check.
    core::Scenario odd = core_tests::megatron_a100("gpt3-175b", 8, 3, 24, 64);
    odd.parallel.schedule = core::ScheduleKind::dualpipe;
    const auto problem = core::check_layout(odd, core::layout_of(odd));
    REQUIRE(problem.has_value());
    REQUIRE(problem->field == "parallel.schedule");

    // Moving PP to an odd value under DualPipe settles the schedule to 1F1B and says so.
    scenario.parallel.schedule = core::ScheduleKind::dualpipe;
    const core::Edit moved = core::with_axis(scenario, core::LayoutAxis::pp, 4);
    REQUIRE(moved.ok());
    REQUIRE(moved.scenario.parallel.schedule == core::ScheduleKind::dualpipe);
    scenario.cluster.gpus = 48;
    scenario.parallel.pp = 6;
    scenario.train.global_batch = 60;
    const core::Edit odd_pp = core::with_axis(scenario, core::LayoutAxis::pp, 3);
    REQUIRE(odd_pp.ok());
    REQUIRE(odd_pp.scenario.parallel.schedule == core::ScheduleKind::one_f_one_b);
    REQUIRE_FALSE(odd_pp.notes.empty());
}
