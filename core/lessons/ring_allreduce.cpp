#include "core/lessons/ring_allreduce.h"

#include <bit>
#include <cmath>
#include <string>

#include "core/cost/kernels/collectives.h"
#include "core/model/errors.h"

namespace core {

namespace {

int wrap_rank(int rank, int rank_count) { return ((rank % rank_count) + rank_count) % rank_count; }

void require_rank_count(int rank_count) {
    if (rank_count < ring_min_ranks || rank_count > ring_max_ranks)
        throw InputError("ring.ranks", must_be_in(ring_min_ranks, ring_max_ranks, rank_count));
}

}  // namespace

const char* ring_phase_name(RingPhase phase) {
    switch (phase) {
        case RingPhase::initial: return "initial";
        case RingPhase::reduce_scatter: return "reduce-scatter";
        case RingPhase::all_gather: return "all-gather";
        case RingPhase::done: return "done";
    }
    return "done";
}

RingSchedule make_ring_schedule(int rank_count, double buffer_bytes) {
    require_rank_count(rank_count);
    require_non_negative("ring.buffer_bytes", buffer_bytes);

    RingSchedule schedule;
    schedule.rank_count = rank_count;
    schedule.buffer_bytes = buffer_bytes;
    schedule.chunk_bytes = buffer_bytes / rank_count;
    const int steps_per_phase = rank_count - 1;
    schedule.steps.reserve(2 * steps_per_phase);
    for (int phase_index = 0; phase_index < 2; ++phase_index) {
        for (int step = 0; step < steps_per_phase; ++step) {
            RingStep ring_step;
            ring_step.phase = phase_index == 0 ? RingPhase::reduce_scatter : RingPhase::all_gather;
            ring_step.step_in_phase = step + 1;
            ring_step.transfers.reserve(rank_count);
            for (int rank = 0; rank < rank_count; ++rank) {
                // Reduce-scatter passes chunk r-s on, so chunk c ends complete on rank c-1; all-gather
                // then forwards the complete chunk each rank received one step earlier.
                const int chunk = phase_index == 0 ? rank - step : rank + 1 - step;
                ring_step.transfers.push_back(
                    {rank, wrap_rank(rank + 1, rank_count), wrap_rank(chunk, rank_count)});
            }
            schedule.steps.push_back(std::move(ring_step));
        }
    }
    return schedule;
}

RingState ring_initial_state(int rank_count) {
    require_rank_count(rank_count);
    RingState state;
    state.rank_count = rank_count;
    state.holdings.resize(static_cast<std::size_t>(rank_count) * rank_count);
    const bool masks_exact = rank_count <= ring_mask_max_ranks;
    for (int rank = 0; rank < rank_count; ++rank) {
        for (int chunk = 0; chunk < rank_count; ++chunk) {
            ChunkHolding& holding = state.at(rank, chunk);
            holding.contributor_mask = masks_exact ? std::uint64_t{1} << rank : 0;
            holding.contributor_count = 1;
            holding.complete = false;
        }
    }
    return state;
}

void apply_ring_step(const RingStep& step, RingState& state) {
    // Every send reads the sender's holding before this step, as all ranks send at once.
    std::vector<ChunkHolding> sent;
    sent.reserve(step.transfers.size());
    for (const RingTransfer& transfer : step.transfers) sent.push_back(state.at(transfer.from_rank, transfer.chunk));

    for (std::size_t index = 0; index < step.transfers.size(); ++index) {
        const RingTransfer& transfer = step.transfers[index];
        ChunkHolding& received = state.at(transfer.to_rank, transfer.chunk);
        if (step.phase == RingPhase::reduce_scatter) {
            received.contributor_mask |= sent[index].contributor_mask;
            received.contributor_count += sent[index].contributor_count;
        } else {
            received = sent[index];
        }
        received.complete = received.contributor_count == state.rank_count;
    }
}

RingState ring_state_after(const RingSchedule& schedule, int steps_done) {
    const int step_count = static_cast<int>(schedule.steps.size());
    if (steps_done < 0 || steps_done > step_count)
        throw InputError("ring.steps_done", must_be_in(0, step_count, steps_done));
    RingState state = ring_initial_state(schedule.rank_count);
    for (int step = 0; step < steps_done; ++step) apply_ring_step(schedule.steps[step], state);
    return state;
}

double ring_animation_seconds(const RingSchedule& schedule, double step_seconds) {
    return static_cast<double>(schedule.steps.size()) * step_seconds;
}

RingFrame ring_frame_at(const RingSchedule& schedule, double t_seconds, double step_seconds) {
    require_non_negative("ring.t_seconds", t_seconds);
    require_positive("ring.step_seconds", step_seconds);

    RingFrame frame;
    frame.step_count = static_cast<int>(schedule.steps.size());
    frame.steps_per_phase = schedule.rank_count - 1;
    const double steps_elapsed = t_seconds / step_seconds;
    if (steps_elapsed >= frame.step_count) {
        frame.steps_done = frame.step_count;
        frame.phase = RingPhase::done;
        frame.step_in_phase = 0;
        frame.transfer_fraction = 0;
        frame.done = true;
        frame.caption = "done";
        return frame;
    }
    frame.steps_done = static_cast<int>(std::floor(steps_elapsed));
    frame.transfer_fraction = steps_elapsed - frame.steps_done;
    const RingStep& current = schedule.steps[frame.steps_done];
    frame.phase = current.phase;
    frame.step_in_phase = current.step_in_phase;
    frame.caption = std::string(ring_phase_name(current.phase)) + ", step " + std::to_string(current.step_in_phase) +
                    " of " + std::to_string(frame.steps_per_phase);
    return frame;
}

// ---- What the panel draws ----

RingView ring_view(const RingSchedule& schedule, int steps_done, int focus_rank, int max_drawn_ranks) {
    const int n = schedule.rank_count;
    if (focus_rank < 0 || focus_rank >= n)
        throw InputError("ring.focus_rank", must_be_in(0, n - 1, focus_rank));
    if (max_drawn_ranks < 3)
        throw InputError("ring.max_drawn_ranks", "must be at least 3, got " + std::to_string(max_drawn_ranks));
    const RingState state = ring_state_after(schedule, steps_done);
    const RingStep* step = steps_done < static_cast<int>(schedule.steps.size()) ? &schedule.steps[steps_done] : nullptr;

    RingView view;
    view.rank_count = n;
    view.focus_rank = focus_rank;
    const bool whole = n <= max_drawn_ranks;
    const int window = whole ? n : max_drawn_ranks - 1;  // the rest of the ring takes the last slot
    const int first = whole ? 0 : wrap_rank(focus_rank - (window - 1) / 2, n);
    view.drawn_ranks = window;
    std::vector<int> ranks;
    for (int i = 0; i < window; ++i) ranks.push_back(wrap_rank(first + i, n));
    // Whole: every chunk in index order. A window: the chunks its ranks own after reduce-scatter, in the ranks' order.
    for (int i = 0; i < window; ++i) view.chunk_order.push_back(whole ? i : wrap_rank(ranks[i] + 1, n));
    std::vector<char> drawn(n, whole ? 1 : 0);
    for (int chunk : view.chunk_order) drawn[chunk] = 1;

    const auto cell = [&](int rank, int chunk) {
        RingViewChunk shown;
        shown.chunk = chunk;
        shown.holding = state.at(rank, chunk);
        shown.contributor_share = static_cast<double>(shown.holding.contributor_count) / n;
        shown.complete = shown.holding.complete;
        return shown;
    };
    // The rank's chunks not drawn one by one, as one cell: their mean share, complete when all are.
    const auto others = [&](int rank) {
        RingViewChunk shown;
        shown.chunk = -1;
        long long contributions = 0;
        int count = 0;
        shown.complete = true;
        for (int chunk = 0; chunk < n; ++chunk) {
            if (drawn[chunk]) continue;
            const ChunkHolding& holding = state.at(rank, chunk);
            if (count == 0) shown.holding = holding;
            contributions += holding.contributor_count;
            shown.complete = shown.complete && holding.complete;
            ++count;
        }
        shown.contributor_share = count > 0 ? static_cast<double>(contributions) / (static_cast<double>(count) * n) : 0.0;
        return shown;
    };
    const auto sent_by = [&](int rank) -> const RingTransfer* { return step ? &step->transfers[rank] : nullptr; };

    for (int rank : ranks) {
        RingViewSlot slot;
        slot.rank = rank;
        const RingTransfer* out = sent_by(rank);
        const RingTransfer* in = sent_by(wrap_rank(rank - 1, n));
        for (int chunk : view.chunk_order) {
            RingViewChunk shown = cell(rank, chunk);
            shown.in_step = (out && out->chunk == chunk) || (in && in->chunk == chunk);
            slot.chunks.push_back(shown);
        }
        if (!whole) {
            RingViewChunk rest = others(rank);
            rest.in_step = (out && !drawn[out->chunk]) || (in && !drawn[in->chunk]);
            slot.chunks.push_back(rest);
        }
        view.slots.push_back(std::move(slot));
    }
    if (!whole) {
        RingViewSlot rest;
        rest.hidden_ranks = n - window;
        view.slots.push_back(std::move(rest));
    }

    // On each drawn link the chunk its sender passes on: a window rank's own send, and into the window the send of the
    // rank just before it (the rest of the ring's last rank).
    const int slot_count = static_cast<int>(view.slots.size());
    for (int i = 0; i < slot_count; ++i) {
        RingViewTransfer transfer;
        const int sender = view.slots[i].rank >= 0 ? view.slots[i].rank : wrap_rank(first - 1, n);
        if (const RingTransfer* sent = sent_by(sender)) {
            transfer.moving = true;
            transfer.chunk = cell(sender, sent->chunk);
            if (!drawn[sent->chunk]) transfer.chunk.chunk = -1;  // one of the chunks drawn together
            transfer.chunk.in_step = true;
        }
        view.transfers.push_back(transfer);
    }

    if (whole) {
        view.caption = "all " + format_grouped(n) + " ranks";
    } else {
        const int last = ranks.back();
        view.caption = "ranks " + format_grouped(first) + " to " + format_grouped(last) + " of " + format_grouped(n) + " (" +
                       std::to_string(window) + " around rank " + format_grouped(focus_rank) + ", each with the " +
                       std::to_string(window) + " chunks they end up owning and its other " + format_grouped(n - window) +
                       " as one cell); the other " + format_grouped(n - window) + " ranks pass their chunks the same way";
    }
    return view;
}

// ---- Costs ----

const char* all_reduce_algorithm_name(AllReduceAlgorithm algorithm) {
    switch (algorithm) {
        case AllReduceAlgorithm::naive: return "naive";
        case AllReduceAlgorithm::ring: return "ring";
        case AllReduceAlgorithm::recursive_doubling: return "recursive doubling";
    }
    return "ring";
}

AllReduceCost all_reduce_cost(AllReduceAlgorithm algorithm, int rank_count, double buffer_bytes, const LinkSpec& link) {
    require_rank_count(rank_count);
    require_non_negative("ring.buffer_bytes", buffer_bytes);
    require_positive("link.bytes_per_s", link.bytes_per_s);
    require_non_negative("link.latency_seconds", link.latency_seconds);

    const double n = rank_count;
    const double size = buffer_bytes;
    AllReduceCost cost;
    cost.algorithm = algorithm;
    cost.rank_count = rank_count;
    cost.buffer_bytes = buffer_bytes;
    switch (algorithm) {
        case AllReduceAlgorithm::naive:
            // The root's link takes n-1 buffers in, then (after the reduce) sends n-1 out: nothing overlaps.
            cost.latency_terms = 2 * (rank_count - 1);
            cost.busiest_link_bytes = 2.0 * (n - 1) * size;
            cost.max_bytes_sent_by_a_rank = (n - 1) * size;
            cost.min_bytes_sent_by_a_rank = size;
            break;
        case AllReduceAlgorithm::ring:
            cost.latency_terms = 2 * (rank_count - 1);
            cost.busiest_link_bytes = ring_bytes_sent_per_rank(Collective::all_reduce, rank_count, size);
            cost.max_bytes_sent_by_a_rank = cost.busiest_link_bytes;
            cost.min_bytes_sent_by_a_rank = cost.busiest_link_bytes;
            break;
        case AllReduceAlgorithm::recursive_doubling: {
            const int lg = std::bit_width(static_cast<unsigned>(rank_count)) - 1;  // floor(lg n)
            const bool power_of_two = std::has_single_bit(static_cast<unsigned>(rank_count));
            cost.latency_terms = power_of_two ? lg : lg + 2;
            cost.busiest_link_bytes = cost.latency_terms * size;
            // A partner of an extra rank also sends it the result: lg + 1 buffers; the extra rank sends only one.
            cost.max_bytes_sent_by_a_rank = (power_of_two ? lg : lg + 1) * size;
            cost.min_bytes_sent_by_a_rank = power_of_two ? lg * size : size;
            break;
        }
    }
    cost.seconds = algorithm == AllReduceAlgorithm::ring
                       ? ring_seconds(Collective::all_reduce, rank_count, size, link)
                       : cost.latency_terms * link.latency_seconds + cost.busiest_link_bytes / link.bytes_per_s;
    const BandwidthFigures bandwidth = nccl_bandwidth(Collective::all_reduce, rank_count, size, cost.seconds);
    cost.algbw_bytes_per_s = bandwidth.algbw_bytes_per_s;
    cost.busbw_bytes_per_s = bandwidth.busbw_bytes_per_s;
    return cost;
}

double ring_bytes_sent_per_rank_large_n(double buffer_bytes) { return 2.0 * buffer_bytes; }

AllReduceCurves all_reduce_curves(int min_ranks, int max_ranks, double buffer_bytes, const LinkSpec& link,
                                  int points_per_doubling) {
    require_rank_count(min_ranks);
    require_rank_count(max_ranks);
    if (max_ranks < min_ranks)
        throw InputError("ring.max_ranks", "must be >= min_ranks " + std::to_string(min_ranks) + ", got " +
                                               std::to_string(max_ranks));
    if (points_per_doubling < 1 || points_per_doubling > 64)
        throw InputError("ring.points_per_doubling", must_be_in(1, 64, points_per_doubling));

    std::vector<int> rank_counts;
    for (int point = 0;; ++point) {
        const double exact = min_ranks * std::exp2(static_cast<double>(point) / points_per_doubling);
        const int rank_count = static_cast<int>(std::lround(exact));
        if (rank_count >= max_ranks) break;
        // Log spacing rounds several points to the same small n.
        if (rank_counts.empty() || rank_count != rank_counts.back()) rank_counts.push_back(rank_count);
    }
    rank_counts.push_back(max_ranks);  // the plot always reaches the end of the range

    AllReduceCurves curves;
    for (int rank_count : rank_counts) {
        const auto cost_of = [&](AllReduceAlgorithm algorithm) {
            return all_reduce_cost(algorithm, rank_count, buffer_bytes, link);
        };
        const AllReduceCost naive = cost_of(AllReduceAlgorithm::naive);
        const AllReduceCost ring = cost_of(AllReduceAlgorithm::ring);
        const AllReduceCost doubling = cost_of(AllReduceAlgorithm::recursive_doubling);
        curves.rank_counts.push_back(rank_count);
        curves.naive_busiest_link_bytes.push_back(naive.busiest_link_bytes);
        curves.ring_busiest_link_bytes.push_back(ring.busiest_link_bytes);
        curves.recursive_doubling_busiest_link_bytes.push_back(doubling.busiest_link_bytes);
        curves.naive_seconds.push_back(naive.seconds);
        curves.ring_seconds.push_back(ring.seconds);
        curves.recursive_doubling_seconds.push_back(doubling.seconds);
    }
    return curves;
}

}  // namespace core
