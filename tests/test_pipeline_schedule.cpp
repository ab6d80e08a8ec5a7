// Pipeline schedules as timelines: bubbles and in-flight micro-batches measured from the ops, against the papers.
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "core/model/errors.h"
#include "core/cost/kernels/pipeline_schedule.h"

namespace {

using core::PipelineOp;
using core::PipelineOpKind;
using core::ScheduleKind;
using core::ScheduleParams;
using core::ScheduleTimeline;

constexpr double tolerance_seconds = 1e-9;

ScheduleParams params_for(ScheduleKind kind, int stages, int microbatches, int chunks = 1) {
    ScheduleParams params;
    params.kind = kind;
    params.stages = stages;
    params.microbatches = microbatches;
    params.virtual_chunks = chunks;
    params.forward_seconds = 1;
    params.backward_seconds = 2;  // T_B = 2 T_F, the papers' usual ratio
    params.weight_grad_seconds = 1;
    return params;
}

// Idle time of one device: the makespan minus the time its ops run.
double idle_seconds(const ScheduleTimeline& timeline, int device) {
    double busy = 0;
    for (const PipelineOp& op : timeline.ops)
        if (op.device == device) busy += op.duration_seconds;
    return timeline.makespan_seconds - busy;
}

// The ops of one timeline looked up by what they compute.
class OpIndex {
public:
    explicit OpIndex(const ScheduleTimeline& timeline)
        : stages_(timeline.stages),
          microbatches_(timeline.microbatches),
          virtual_stages_(timeline.stages * timeline.virtual_chunks),
          slots_(3 * static_cast<std::size_t>(virtual_stages_) * microbatches_, nullptr),
          counts_(slots_.size(), 0) {
        for (const PipelineOp& op : timeline.ops) {
            const std::size_t slot = index(kind_slot(op.kind), op.chunk * stages_ + op.device, op.microbatch);
            slots_[slot] = &op;
            ++counts_[slot];
        }
    }
    const PipelineOp* forward(int stage, int microbatch) const { return slots_[index(0, stage, microbatch)]; }
    const PipelineOp* backward(int stage, int microbatch) const { return slots_[index(1, stage, microbatch)]; }
    const PipelineOp* weight_grad(int stage, int microbatch) const { return slots_[index(2, stage, microbatch)]; }
    int count(int kind_slot, int stage, int microbatch) const { return counts_[index(kind_slot, stage, microbatch)]; }

private:
    static int kind_slot(PipelineOpKind kind) {
        return kind == PipelineOpKind::forward ? 0 : kind == PipelineOpKind::weight_grad ? 2 : 1;
    }
    std::size_t index(int kind_slot, int stage, int microbatch) const {
        return (static_cast<std::size_t>(kind_slot) * virtual_stages_ + stage) * microbatches_ + microbatch;
    }
    int stages_, microbatches_, virtual_stages_;
    std::vector<const PipelineOp*> slots_;
    std::vector<int> counts_;
};

// Every op once, in range, sorted; no two ops overlap on a device; every data dependency holds.
void require_valid_timeline(const ScheduleParams& params, const ScheduleTimeline& timeline) {
    INFO("schedule " << core::schedule_name(params.kind) << " p=" << params.stages << " m=" << params.microbatches
                     << " v=" << params.virtual_chunks << " p2p=" << params.p2p_seconds);
    const bool naive = params.kind == ScheduleKind::naive;
    const bool split = params.kind == ScheduleKind::zb_h1;
    const int p = params.stages;
    const int m = naive ? 1 : params.microbatches;
    const int v = params.virtual_chunks;
    const int virtual_stages = p * v;
    REQUIRE(timeline.ops.size() == core::schedule_op_count(params));

    double last_end = 0;
    for (std::size_t i = 0; i < timeline.ops.size(); ++i) {
        const PipelineOp& op = timeline.ops[i];
        REQUIRE(op.device >= 0);
        REQUIRE(op.device < p);
        REQUIRE(op.chunk >= 0);
        REQUIRE(op.chunk < v);
        REQUIRE(op.microbatch >= 0);
        REQUIRE(op.microbatch < m);
        REQUIRE(op.duration_seconds > 0);
        REQUIRE(op.start_seconds >= 0);
        if (op.kind != PipelineOpKind::forward)
            REQUIRE((op.kind == PipelineOpKind::backward_input || op.kind == PipelineOpKind::weight_grad) == split);
        last_end = std::max(last_end, op.end_seconds());
        if (i == 0) continue;
        const PipelineOp& previous = timeline.ops[i - 1];
        REQUIRE(previous.device <= op.device);
        if (previous.device == op.device) REQUIRE(op.start_seconds >= previous.end_seconds() - tolerance_seconds);
    }
    REQUIRE(timeline.makespan_seconds == Approx(last_end));

    const OpIndex index(timeline);
    const auto transfer = [&](int from, int to) { return from % p == to % p ? 0.0 : params.p2p_seconds; };
    for (int stage = 0; stage < virtual_stages; ++stage) {
        for (int j = 0; j < m; ++j) {
            REQUIRE(index.count(0, stage, j) == 1);
            REQUIRE(index.count(1, stage, j) == 1);
            REQUIRE(index.count(2, stage, j) == (split ? 1 : 0));
            const PipelineOp& forward = *index.forward(stage, j);
            const PipelineOp& backward = *index.backward(stage, j);
            REQUIRE(backward.start_seconds >= forward.end_seconds() - tolerance_seconds);
            if (stage > 0) {
                const PipelineOp& upstream = *index.forward(stage - 1, j);
                REQUIRE(forward.start_seconds >=
                        upstream.end_seconds() + transfer(stage - 1, stage) - tolerance_seconds);
            }
            if (stage < virtual_stages - 1) {
                const PipelineOp& downstream = *index.backward(stage + 1, j);
                REQUIRE(backward.start_seconds >=
                        downstream.end_seconds() + transfer(stage + 1, stage) - tolerance_seconds);
            }
            if (split) REQUIRE(index.weight_grad(stage, j)->start_seconds >= backward.end_seconds() - tolerance_seconds);
        }
    }
}

}  // namespace

TEST_CASE("Huang 2019 / Narayanan 2021 sec 2.2: GPipe and 1F1B bubble (p-1)/(m+p-1), overhead (p-1)/m",
          "[pipeline]") {
    for (int p = 1; p <= 16; ++p) {
        for (int m = 1; m <= 64; ++m) {
            INFO("p=" << p << " m=" << m);
            const ScheduleTimeline gpipe = core::generate_schedule(params_for(ScheduleKind::gpipe, p, m));
            const ScheduleTimeline one_f_one_b = core::generate_schedule(params_for(ScheduleKind::one_f_one_b, p, m));
            const double expected_fraction = (p - 1.0) / (m + p - 1.0);
            REQUIRE(gpipe.makespan_seconds == Approx(one_f_one_b.makespan_seconds));
            REQUIRE(gpipe.makespan_seconds == Approx((m + p - 1) * 3.0));  // (m+p-1)(T_F+T_B)
            REQUIRE(gpipe.bubble_fraction == Approx(expected_fraction).margin(1e-12));
            REQUIRE(one_f_one_b.bubble_fraction == Approx(expected_fraction).margin(1e-12));
            REQUIRE(gpipe.bubble_overhead == Approx((p - 1.0) / m).margin(1e-12));
            REQUIRE(one_f_one_b.bubble_overhead == Approx((p - 1.0) / m).margin(1e-12));
            REQUIRE(core::closed_form_bubble_fraction(params_for(ScheduleKind::gpipe, p, m)) ==
                    Approx(expected_fraction).margin(1e-12));
        }
    }
}

TEST_CASE("Narayanan 2021 sec 2.2.1: first stage holds m micro-batches under GPipe, min(p, m) under 1F1B",
          "[pipeline]") {
    for (int p = 1; p <= 16; ++p) {
        for (int m = 1; m <= 64; ++m) {
            INFO("p=" << p << " m=" << m);
            const ScheduleTimeline gpipe = core::generate_schedule(params_for(ScheduleKind::gpipe, p, m));
            const ScheduleTimeline one_f_one_b = core::generate_schedule(params_for(ScheduleKind::one_f_one_b, p, m));
            REQUIRE(gpipe.peak_inflight_microbatches[0] == m);
            REQUIRE(one_f_one_b.peak_inflight_microbatches[0] == std::min(p, m));
            REQUIRE(core::closed_form_peak_inflight(params_for(ScheduleKind::gpipe, p, m)) == m);
            REQUIRE(core::closed_form_peak_inflight(params_for(ScheduleKind::one_f_one_b, p, m)) == std::min(p, m));
            // PipeDream-Flush: device d holds one fewer than device d-1.
            for (int d = 0; d < p; ++d) REQUIRE(one_f_one_b.peak_inflight_microbatches[d] == std::min(p - d, m));
        }
    }
}

TEST_CASE("Narayanan 2021 sec 2.2: the 1F1B bubble (p-1)(T_F+T_B) does not depend on the F:B ratio", "[pipeline]") {
    for (double backward : {0.5, 1.0, 3.0}) {
        for (int p : {2, 4, 8}) {
            for (int m : {1, 3, 8, 32}) {
                ScheduleParams params = params_for(ScheduleKind::one_f_one_b, p, m);
                params.backward_seconds = backward;
                const ScheduleTimeline timeline = core::generate_schedule(params);
                REQUIRE(timeline.makespan_seconds == Approx((m + p - 1) * (1.0 + backward)));
                REQUIRE(timeline.bubble_fraction == Approx((p - 1.0) / (m + p - 1.0)).margin(1e-12));
            }
        }
    }
}

TEST_CASE("Narayanan 2021 sec 2.2.2: interleaved bubble (p-1)/(v*m+p-1), overhead (p-1)/(v*m)", "[pipeline]") {
    for (int p : {2, 3, 4, 8, 16}) {
        for (int v : {2, 3, 4}) {
            for (int m = p; m <= 64; m += p) {
                INFO("p=" << p << " v=" << v << " m=" << m);
                const ScheduleParams params = params_for(ScheduleKind::interleaved, p, m, v);
                const ScheduleTimeline timeline = core::generate_schedule(params);
                const double expected_fraction = (p - 1.0) / (v * m + p - 1.0);
                REQUIRE(timeline.bubble_fraction == Approx(expected_fraction).epsilon(0.01));
                REQUIRE(timeline.bubble_overhead == Approx((p - 1.0) / (v * m)).epsilon(0.01));
                REQUIRE(core::closed_form_bubble_fraction(params) == Approx(expected_fraction));
            }
        }
    }
}

TEST_CASE("Narayanan 2021 sec 2.2.2: interleaving with v chunks cuts the 1F1B bubble v-fold", "[pipeline]") {
    // p = 8, m = 32: 1F1B overhead 7/32; v = 2 gives 7/64, v = 4 gives 7/128.
    const double one_f_one_b = core::generate_schedule(params_for(ScheduleKind::one_f_one_b, 8, 32)).bubble_overhead;
    const double two_chunks = core::generate_schedule(params_for(ScheduleKind::interleaved, 8, 32, 2)).bubble_overhead;
    const double four_chunks = core::generate_schedule(params_for(ScheduleKind::interleaved, 8, 32, 4)).bubble_overhead;
    REQUIRE(one_f_one_b == Approx(7.0 / 32));
    REQUIRE(two_chunks == Approx(7.0 / 64).epsilon(0.01));
    REQUIRE(four_chunks == Approx(7.0 / 128).epsilon(0.01));
}

TEST_CASE("Korthikanti 2022 eq. 5: interleaved first stage holds p(1 + (p-1)/(p*v)) micro-batches' activations",
          "[pipeline]") {
    // Megatron's warm-up on device 0 is 2(p-1) + (v-1)p chunk-forwards, plus the first steady-state one.
    for (int p : {2, 4, 8}) {
        for (int v : {2, 4}) {
            const int m = 4 * p;
            INFO("p=" << p << " v=" << v);
            const ScheduleParams params = params_for(ScheduleKind::interleaved, p, m, v);
            const ScheduleTimeline timeline = core::generate_schedule(params);
            REQUIRE(timeline.peak_inflight_microbatches[0] == 2 * (p - 1) + (v - 1) * p + 1);
            REQUIRE(timeline.peak_inflight_microbatches[0] == core::closed_form_peak_inflight(params));
            REQUIRE(timeline.peak_inflight_activations[0] == Approx(p * (1.0 + (p - 1.0) / (p * v))));
        }
    }
}

TEST_CASE("Qi 2024 sec 2.1: ZB-H1 idle time per device (p-1)(T_F+T_B-T_W) at T_F = T_B = T_W", "[pipeline]") {
    for (int p = 1; p <= 16; ++p) {
        for (int m = p; m <= 64; m += (m < 2 * p ? 1 : p)) {
            INFO("p=" << p << " m=" << m);
            ScheduleParams params = params_for(ScheduleKind::zb_h1, p, m);
            params.backward_seconds = 2;  // B + W with B = W = T_F = 1
            params.weight_grad_seconds = 1;
            const ScheduleTimeline timeline = core::generate_schedule(params);
            for (int d = 0; d < p; ++d) REQUIRE(idle_seconds(timeline, d) == Approx(p - 1.0).margin(1e-9));
            REQUIRE(timeline.bubble_overhead == Approx((p - 1.0) / (3.0 * m)).margin(1e-12));
            REQUIRE(core::closed_form_bubble_overhead(params) == Approx(timeline.bubble_overhead).margin(1e-12));
        }
    }
}

TEST_CASE("Qi 2024 sec 2.1: ZB-H1 cuts the 1F1B bubble to a third with the same p micro-batches in flight",
          "[pipeline]") {
    // Fig. 3 (top) setting: p = 4, T_F = T_B = T_W. 1F1B idles (p-1)(T_F+T_B+T_W) = 9, ZB-H1 (p-1)T_F = 3.
    ScheduleParams zb = params_for(ScheduleKind::zb_h1, 4, 8);
    ScheduleParams one_f_one_b = params_for(ScheduleKind::one_f_one_b, 4, 8);
    const ScheduleTimeline zb_timeline = core::generate_schedule(zb);
    const ScheduleTimeline one_f_one_b_timeline = core::generate_schedule(one_f_one_b);
    REQUIRE(idle_seconds(one_f_one_b_timeline, 0) == Approx(9.0));
    REQUIRE(idle_seconds(zb_timeline, 0) == Approx(3.0));
    // Every worker keeps p micro-batches in flight (some only awaiting W): peak memory p*M_B, as 1F1B's first stage.
    for (int d = 0; d < 4; ++d) REQUIRE(zb_timeline.peak_inflight_microbatches[d] == 4);
    REQUIRE(core::closed_form_peak_inflight(zb) == 4);
}

TEST_CASE("Qi 2024 sec 2.1: ZB-H1 bubble (p-1)(T_F+T_B-T_W) for unequal times with T_W <= T_F, T_B", "[pipeline]") {
    struct Times {
        double forward, backward_input, weight_grad;
    };
    for (Times times : {Times{1.0, 1.5, 0.5}, Times{2.0, 1.0, 0.1}, Times{1.0, 2.0, 1.0}, Times{0.5, 1.0, 0.5}}) {
        for (int p : {2, 4, 8}) {
            for (int m : {p, 2 * p, 5 * p}) {
                ScheduleParams params = params_for(ScheduleKind::zb_h1, p, m);
                params.forward_seconds = times.forward;
                params.backward_seconds = times.backward_input + times.weight_grad;
                params.weight_grad_seconds = times.weight_grad;
                const ScheduleTimeline timeline = core::generate_schedule(params);
                const double expected_idle = (p - 1) * (times.forward + times.backward_input - times.weight_grad);
                for (int d = 0; d < p; ++d) REQUIRE(idle_seconds(timeline, d) == Approx(expected_idle).margin(1e-9));
                REQUIRE(core::closed_form_bubble_overhead(params) == Approx(timeline.bubble_overhead).margin(1e-12));
            }
        }
    }
}

TEST_CASE("seed 003: naive pipelining leaves (p-1)/p of every device idle", "[pipeline]") {
    for (int p : {1, 2, 4, 16}) {
        for (int m : {1, 8}) {
            const ScheduleParams params = params_for(ScheduleKind::naive, p, m);
            const ScheduleTimeline timeline = core::generate_schedule(params);
            REQUIRE(timeline.bubble_fraction == Approx((p - 1.0) / p).margin(1e-12));
            REQUIRE(timeline.makespan_seconds == Approx(p * m * 3.0));
            REQUIRE(timeline.ops.size() == static_cast<std::size_t>(2 * p));
            REQUIRE(timeline.peak_inflight_microbatches[0] == m);  // the whole batch's activations
            REQUIRE(core::closed_form_bubble_fraction(params) == Approx((p - 1.0) / p));
        }
    }
}

TEST_CASE("seed 003 worked numbers: P=4 M=8 27.3 %, P=4 M=32 8.6 %, P=16 M=8 65.2 %, P=16 M=64 19.0 %",
          "[pipeline]") {
    struct Row {
        int p, m;
        double percent;
    };
    for (Row row : {Row{4, 8, 27.3}, Row{4, 32, 8.6}, Row{16, 8, 65.2}, Row{16, 64, 19.0}}) {
        for (ScheduleKind kind : {ScheduleKind::gpipe, ScheduleKind::one_f_one_b}) {
            const ScheduleTimeline timeline = core::generate_schedule(params_for(kind, row.p, row.m));
            REQUIRE(std::round(timeline.bubble_fraction * 1000) / 10 == Approx(row.percent));
        }
    }
}

TEST_CASE("every schedule: one op per (stage, micro-batch, pass), no overlap on a device, every dependency holds",
          "[pipeline]") {
    struct Ratio {
        double forward, backward, weight_grad;
    };
    for (ScheduleKind kind : {ScheduleKind::naive, ScheduleKind::gpipe, ScheduleKind::one_f_one_b,
                              ScheduleKind::interleaved, ScheduleKind::zb_h1}) {
        for (int p : {1, 2, 3, 4, 7}) {
            for (int m : {1, 2, 3, 5, 8, 14}) {
                for (int v : {1, 2, 3}) {
                    if (v > 1 && kind != ScheduleKind::interleaved) continue;
                    if (kind == ScheduleKind::interleaved && v > 1 && m % p != 0) continue;
                    for (double p2p : {0.0, 0.3}) {
                        for (Ratio ratio : {Ratio{1, 2, 1}, Ratio{1, 1, 0.2}, Ratio{0.3, 3, 2.5}}) {
                            ScheduleParams params = params_for(kind, p, m, v);
                            params.forward_seconds = ratio.forward;
                            params.backward_seconds = ratio.backward;
                            params.weight_grad_seconds = ratio.weight_grad;
                            params.p2p_seconds = p2p;
                            require_valid_timeline(params, core::generate_schedule(params));
                        }
                    }
                }
            }
        }
    }
}

TEST_CASE("one stage never idles: the bubble is exactly zero, not a rounding residue", "[pipeline]") {
    for (ScheduleKind kind : {ScheduleKind::naive, ScheduleKind::gpipe, ScheduleKind::one_f_one_b,
                              ScheduleKind::interleaved, ScheduleKind::zb_h1}) {
        for (int m : {1, 7, 64}) {
            ScheduleParams params = params_for(kind, 1, m, kind == ScheduleKind::interleaved ? 3 : 1);
            params.forward_seconds = 0.1;  // not exact in binary: sums of op times drift from m*(T_F+T_B)
            params.backward_seconds = 0.2;
            params.weight_grad_seconds = 0.1;
            const ScheduleTimeline timeline = core::generate_schedule(params);
            REQUIRE(timeline.bubble_fraction == 0.0);
            REQUIRE(timeline.bubble_overhead == 0.0);
        }
    }
}

TEST_CASE("GPipe with p2p latency: fill and drain each cross p-1 links, makespan +2(p-1) t_p2p", "[pipeline]") {
    for (int p : {2, 4, 8}) {
        ScheduleParams params = params_for(ScheduleKind::gpipe, p, 8);
        params.p2p_seconds = 0.25;
        const ScheduleTimeline timeline = core::generate_schedule(params);
        REQUIRE(timeline.makespan_seconds == Approx((8 + p - 1) * 3.0 + 2 * (p - 1) * 0.25));
        REQUIRE(timeline.bubble_fraction > core::closed_form_bubble_fraction(params));
        REQUIRE_FALSE(core::closed_form_applies(params));
    }
}

TEST_CASE("interleaved with one chunk per device is 1F1B", "[pipeline]") {
    const ScheduleTimeline interleaved = core::generate_schedule(params_for(ScheduleKind::interleaved, 4, 6, 1));
    const ScheduleTimeline one_f_one_b = core::generate_schedule(params_for(ScheduleKind::one_f_one_b, 4, 6));
    REQUIRE(interleaved.ops.size() == one_f_one_b.ops.size());
    for (std::size_t i = 0; i < interleaved.ops.size(); ++i) {
        REQUIRE(interleaved.ops[i].start_seconds == one_f_one_b.ops[i].start_seconds);
        REQUIRE(interleaved.ops[i].microbatch == one_f_one_b.ops[i].microbatch);
        REQUIRE(interleaved.ops[i].kind == one_f_one_b.ops[i].kind);
    }
}

TEST_CASE("schedule names round-trip through parse_schedule_kind", "[pipeline]") {
    for (ScheduleKind kind : {ScheduleKind::naive, ScheduleKind::gpipe, ScheduleKind::one_f_one_b,
                              ScheduleKind::interleaved, ScheduleKind::zb_h1}) {
        REQUIRE(core::parse_schedule_kind(core::schedule_name(kind)) == kind);
    }
    REQUIRE(std::string(core::schedule_name(ScheduleKind::one_f_one_b)) == "1f1b");
    REQUIRE(std::string(core::schedule_name(ScheduleKind::zb_h1)) == "zb-h1");
    try {
        core::parse_schedule_kind("1F1B-flush", "scenario.parallel.schedule");
        FAIL("expected InputError");
    } catch (const core::InputError& error) {
        REQUIRE(error.field() == "scenario.parallel.schedule");
    }
}

TEST_CASE("op_progress: 0 before the op starts, 1 after it ends, linear in between", "[pipeline]") {
    PipelineOp op;
    op.start_seconds = 2;
    op.duration_seconds = 4;
    REQUIRE(core::op_progress(op, 0) == 0);
    REQUIRE(core::op_progress(op, 2) == 0);
    REQUIRE(core::op_progress(op, 3) == Approx(0.25));
    REQUIRE(core::op_progress(op, 5) == Approx(0.75));
    REQUIRE(core::op_progress(op, 6) == 1);
    REQUIRE(core::op_progress(op, 100) == 1);
}

TEST_CASE("Narayanan 2021 sec 2.2.1: in flight over time, GPipe's first stage climbs to m, 1F1B's stops at p",
          "[pipeline]") {
    const int p = 4;
    const int m = 8;
    const ScheduleTimeline gpipe = core::generate_schedule(params_for(ScheduleKind::gpipe, p, m));
    const ScheduleTimeline one_f_one_b = core::generate_schedule(params_for(ScheduleKind::one_f_one_b, p, m));
    REQUIRE(core::inflight_at(gpipe, 0)[0] == 0);
    REQUIRE(core::inflight_at(gpipe, 0.5)[0] == 1);    // the first forward has started
    REQUIRE(core::inflight_at(gpipe, m * 1.0)[0] == m);  // all m forwards done, no backward yet
    for (const ScheduleTimeline* timeline : {&gpipe, &one_f_one_b}) {
        // Sampled at every op boundary, the most in flight is the measured peak; at the end nothing is.
        std::vector<int> most(p, 0);
        for (const PipelineOp& op : timeline->ops) {
            for (double t : {op.start_seconds + 1e-6, op.end_seconds()}) {
                const std::vector<int> now = core::inflight_at(*timeline, t);
                for (int d = 0; d < p; ++d) most[d] = std::max(most[d], now[d]);
            }
        }
        REQUIRE(most == timeline->peak_inflight_microbatches);
        REQUIRE(core::inflight_at(*timeline, timeline->makespan_seconds) == std::vector<int>(p, 0));
    }
    REQUIRE(one_f_one_b.peak_inflight_microbatches[0] == p);

    // Interleaved counts (micro-batch, chunk) pairs; in activations each pair is 1/v of the GPU's share.
    const ScheduleTimeline interleaved = core::generate_schedule(params_for(ScheduleKind::interleaved, p, m, 2));
    const double t = interleaved.makespan_seconds / 3;
    const std::vector<int> pairs = core::inflight_at(interleaved, t);
    const std::vector<double> activations = core::inflight_activations_at(interleaved, t);
    REQUIRE(pairs[0] > 0);
    for (int d = 0; d < p; ++d) REQUIRE(activations[d] == Approx(pairs[d] / 2.0));
}

TEST_CASE("invalid schedule parameters throw InputError naming the field", "[pipeline]") {
    const auto field_of = [](const ScheduleParams& params) -> std::string {
        try {
            core::generate_schedule(params);
        } catch (const core::InputError& error) {
            return error.field();
        }
        return "(no error)";
    };
    const ScheduleParams valid = params_for(ScheduleKind::one_f_one_b, 4, 8);
    REQUIRE(field_of(valid) == "(no error)");

    ScheduleParams params = valid;
    params.stages = 0;
    REQUIRE(field_of(params) == "parallel.pp");
    params.stages = 1025;
    REQUIRE(field_of(params) == "parallel.pp");

    params = valid;
    params.microbatches = 0;
    REQUIRE(field_of(params) == "parallel.microbatches");
    params.microbatches = 100001;
    REQUIRE(field_of(params) == "parallel.microbatches");

    params = valid;
    params.virtual_chunks = 0;
    REQUIRE(field_of(params) == "parallel.virtual_stages");
    params.virtual_chunks = 2;  // v > 1 needs the interleaved schedule
    REQUIRE(field_of(params) == "parallel.virtual_stages");

    params = params_for(ScheduleKind::interleaved, 4, 6, 2);  // m not a multiple of p
    REQUIRE(field_of(params) == "parallel.microbatches");

    params = valid;
    params.forward_seconds = 0;
    REQUIRE(field_of(params) == "schedule.forward_seconds");
    params.forward_seconds = std::nan("");
    REQUIRE(field_of(params) == "schedule.forward_seconds");

    params = valid;
    params.backward_seconds = -1;
    REQUIRE(field_of(params) == "schedule.backward_seconds");
    params.backward_seconds = INFINITY;
    REQUIRE(field_of(params) == "schedule.backward_seconds");

    params = params_for(ScheduleKind::zb_h1, 4, 8);
    params.weight_grad_seconds = 2;  // W must be a strict part of B + W
    REQUIRE(field_of(params) == "schedule.weight_grad_seconds");
    params.weight_grad_seconds = 0;
    REQUIRE(field_of(params) == "schedule.weight_grad_seconds");

    params = valid;
    params.p2p_seconds = -0.1;
    REQUIRE(field_of(params) == "schedule.p2p_seconds");

    params = params_for(ScheduleKind::interleaved, 1024, 1024, 4);  // 8.4 M ops: too many to lay out
    REQUIRE(field_of(params) == "parallel.microbatches");
}

TEST_CASE("schedule_figures gives generate_schedule's figures without the op list; both agree with the ops measured "
          "afresh (idle per device, most in flight)",
          "[pipeline]") {
    for (ScheduleKind kind : {ScheduleKind::naive, ScheduleKind::gpipe, ScheduleKind::one_f_one_b, ScheduleKind::interleaved,
                              ScheduleKind::zb_h1, ScheduleKind::dualpipe, ScheduleKind::dualpipe_v}) {
        const bool two_way = kind == ScheduleKind::dualpipe || kind == ScheduleKind::dualpipe_v;
        for (int p : {2, 4, 6}) {
            for (int m : {4, 12, 24}) {
                const int v = kind == ScheduleKind::interleaved ? 2 : 1;
                ScheduleParams params = params_for(kind, p, m, v);
                if (two_way) params.backward_seconds = 1.8;  // W within B + W, as DualPipe's validity asks
                params.p2p_seconds = 0.05;
                params.first_forward_extra_seconds = 0.2;  // an embedding on the first stage, a loss on the last
                params.last_backward_extra_seconds = 0.4;
                INFO(core::schedule_name(kind) << " p " << p << " m " << m);
                ScheduleTimeline timeline;
                try {
                    timeline = core::generate_schedule(params);
                } catch (const core::InputError&) {
                    continue;  // a pipeline this kind cannot take (DualPipe: m >= 2p)
                }
                const ScheduleTimeline figures = core::schedule_figures(params);
                REQUIRE(figures.ops.empty());
                REQUIRE(figures.makespan_seconds == timeline.makespan_seconds);
                REQUIRE(figures.bubble_fraction == timeline.bubble_fraction);
                REQUIRE(figures.bubble_overhead == timeline.bubble_overhead);
                REQUIRE(figures.max_idle_seconds == timeline.max_idle_seconds);
                REQUIRE(figures.peak_inflight_microbatches == timeline.peak_inflight_microbatches);
                REQUIRE(figures.peak_inflight_activations == timeline.peak_inflight_activations);
                // Measured afresh from the ops: a device idles for the makespan less its busy time (an F&B cell's two
                // halves count once); in flight rises at each forward and falls at each op that frees.
                double idle_sum = 0, most_idle = 0;
                for (int d = 0; d < p; ++d) {
                    double busy = 0, previous_start = -1;
                    int inflight = 0, peak = 0;
                    for (const PipelineOp& op : timeline.ops) {
                        if (op.device != d) continue;
                        if (op.start_seconds != previous_start) busy += op.duration_seconds;
                        previous_start = op.start_seconds;
                        if (op.kind == PipelineOpKind::forward) ++inflight;
                        if (op.kind == PipelineOpKind::backward || op.kind == PipelineOpKind::weight_grad) --inflight;
                        peak = std::max(peak, inflight);
                    }
                    const double idle = timeline.makespan_seconds - busy;
                    idle_sum += idle;
                    most_idle = std::max(most_idle, idle);
                    if (kind != ScheduleKind::naive) REQUIRE(timeline.peak_inflight_microbatches[d] == peak);
                }
                REQUIRE(timeline.max_idle_seconds == Approx(most_idle).margin(tolerance_seconds));
                REQUIRE(timeline.bubble_fraction == Approx(idle_sum / p / timeline.makespan_seconds).margin(1e-12));
            }
        }
    }
}

TEST_CASE("Narayanan 2021 sec 2.2.2: a schedule's graph reused for new op times gives the timeline a fresh one does", "[pipeline]") {
    // The interleaved schedule with uneven edge stages and p2p: every input kind (forward, gradient, crossing devices).
    ScheduleParams params = params_for(ScheduleKind::interleaved, 4, 8, 2);
    params.p2p_seconds = 0.05;
    params.first_forward_extra_seconds = 0.3;
    params.last_backward_extra_seconds = 0.7;
    const ScheduleTimeline before = core::generate_schedule(params);  // builds the graph for (interleaved, 4, 8, 2)
    params.forward_seconds = 1.9;
    params.backward_seconds = 2.4;
    params.p2p_seconds = 0.2;
    const ScheduleTimeline reused = core::generate_schedule(params);  // the same graph, new times
    // Other shapes push the graph out of the thread's recent ones (at most 8), so the next is built afresh.
    for (int microbatches = 9; microbatches <= 20; ++microbatches) core::schedule_figures(params_for(ScheduleKind::one_f_one_b, 4, microbatches));
    const ScheduleTimeline fresh = core::generate_schedule(params);
    REQUIRE(reused.makespan_seconds != before.makespan_seconds);
    REQUIRE(reused.ops.size() == fresh.ops.size());
    for (std::size_t i = 0; i < fresh.ops.size(); ++i) {
        REQUIRE(reused.ops[i].start_seconds == fresh.ops[i].start_seconds);
        REQUIRE(reused.ops[i].duration_seconds == fresh.ops[i].duration_seconds);
    }
    REQUIRE(reused.makespan_seconds == fresh.makespan_seconds);
    REQUIRE(reused.bubble_fraction == fresh.bubble_fraction);
    // The makespan is the last op's end, measured from the ops.
    double last_end = 0;
    for (const PipelineOp& op : fresh.ops) last_end = std::max(last_end, op.end_seconds());
    REQUIRE(fresh.makespan_seconds == last_end);
}
