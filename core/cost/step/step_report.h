#pragma once
// What the step model reports: the step split into what it is spent on, and one layer's operations placed in time on
// their streams. Plain typed data; core/cost/step/step.h fills it, the Report carries it.
#include "core/cost/kernels/comm.h"
#include "core/cost/kernels/kernels.h"

namespace core {

// The step split into what it is spent on, on the busiest GPU; the parts sum to compute.step_seconds.
struct StepBreakdown {
    double gemm_seconds = 0;             // the GEMMs of the layers, the logits, and recompute
    double attention_seconds = 0;        // fused attention, or the unfused scores, softmax, dropout and context
    double elementwise_seconds = 0;      // norms, activations, residual adds, casts, embedding, loss
    double optimizer_seconds = 0;
    double exposed_comm_seconds[kCommAxes] = {0, 0, 0, 0, 0};  // by CommAxis: what compute could not hide, and the SMs overlap took
    double bubble_seconds = 0;           // the pipeline standing idle
    double host_seconds = 0;             // the GPU waiting for the host to launch its kernels (an eager framework's
                                         // Python and dispatch, core/cost/step/step.cpp host_bound_seconds)
    double straggler_seconds = 0;        // the step waiting for its slowest machine (core/cost/step/step.h straggler_wait)
    double exposed_comm_total() const {
        double sum = 0;
        for (double seconds : exposed_comm_seconds) sum += seconds;
        return sum;
    }
    double total() const {
        return gemm_seconds + attention_seconds + elementwise_seconds + optimizer_seconds + exposed_comm_total() + bubble_seconds + host_seconds + straggler_seconds;
    }
};

// Which stream an operation of the layer timeline runs on.
enum class Stream { compute, tp, dp, pp, cp, ep };
const char* stream_name(Stream);

// One operation of one layer's forward and backward on the busiest GPU, placed in time: what the anatomy panel draws.
struct TimelineOp {
    Stream stream = Stream::compute;
    int kernel = -1;                 // index into ComputeReport::kernels (compute stream), -1 for communication
    KernelPass pass = KernelPass::forward;
    double start_seconds = 0;
    double duration_seconds = 0;
    bool exposed = false;            // communication the compute stream waited for
};

}  // namespace core
