#pragma once
// The ring all-reduce as a step sequence (reduce-scatter, then all-gather) and its state at any time t.
#include <cstdint>
#include <string>
#include <vector>

#include "core/model/hardware.h"

namespace core {

inline constexpr int ring_min_ranks = 2;
inline constexpr int ring_max_ranks = 1024;
inline constexpr int ring_mask_max_ranks = 64;  // contributor_mask is exact up to here; counts work to ring_max_ranks

enum class RingPhase { initial, reduce_scatter, all_gather, done };

// "reduce-scatter", "all-gather", "initial", "done".
const char* ring_phase_name(RingPhase phase);

// One rank sends one chunk to its right neighbour (to_rank == (from_rank + 1) mod n).
struct RingTransfer {
    int from_rank = 0;
    int to_rank = 0;
    int chunk = 0;
};

struct RingStep {
    RingPhase phase = RingPhase::reduce_scatter;
    int step_in_phase = 1;                 // 1-based, 1..n-1
    std::vector<RingTransfer> transfers;   // exactly one per rank, indexed by from_rank
};

// What one rank holds of one chunk: whose contributions that chunk already sums.
struct ChunkHolding {
    std::uint64_t contributor_mask = 0;  // bit k = rank k's contribution; 0 when n > ring_mask_max_ranks
    int contributor_count = 0;
    bool complete = false;               // sums all n contributions
};

struct RingState {
    int rank_count = 0;
    std::vector<ChunkHolding> holdings;  // rank-major: holdings[rank * rank_count + chunk]

    const ChunkHolding& at(int rank, int chunk) const { return holdings[rank * rank_count + chunk]; }
    ChunkHolding& at(int rank, int chunk) { return holdings[rank * rank_count + chunk]; }
};

struct RingSchedule {
    int rank_count = 0;
    double buffer_bytes = 0;          // S, the whole buffer every rank contributes
    double chunk_bytes = 0;           // S / n, what one transfer carries
    std::vector<RingStep> steps;      // 2(n-1): n-1 reduce-scatter then n-1 all-gather
};

// Throws InputError("ring.ranks", ...) outside 2..1024 and InputError("ring.buffer_bytes", ...) if negative or not finite.
RingSchedule make_ring_schedule(int rank_count, double buffer_bytes);

// Step 0: every rank holds only its own contribution to every chunk.
RingState ring_initial_state(int rank_count);

// Receivers add the sent chunk in reduce-scatter and overwrite with it in all-gather.
void apply_ring_step(const RingStep& step, RingState& state);

// The state after the first steps_done steps (0..2(n-1)); throws InputError("ring.steps_done", ...) outside that.
RingState ring_state_after(const RingSchedule& schedule, int steps_done);

// What the widget draws at time t: the settled state is ring_state_after(steps_done), the transfer in flight is
// schedule.steps[steps_done] at transfer_fraction of the way to its receiver (none when done).
struct RingFrame {
    int steps_done = 0;              // completed steps, 0..2(n-1)
    int step_count = 0;              // 2(n-1)
    RingPhase phase = RingPhase::reduce_scatter;
    int step_in_phase = 1;           // 1-based within the phase; 0 when done
    int steps_per_phase = 1;         // n-1
    double transfer_fraction = 0;    // 0..1 of the current transfer; 0 when done
    bool done = false;
    std::string caption;             // "reduce-scatter, step 3 of 7", "all-gather, step 2 of 7", "done"
};

// Each step takes step_seconds of animation; past the end the final state holds (no wrap).
// Throws InputError("ring.t_seconds", ...) for negative or non-finite t and ("ring.step_seconds", ...) unless > 0.
RingFrame ring_frame_at(const RingSchedule& schedule, double t_seconds, double step_seconds);

// Animation length: 2(n-1) * step_seconds.
double ring_animation_seconds(const RingSchedule& schedule, double step_seconds);

// ---- What the panel draws: every rank, or a window of the ring ----

// One chunk cell of a drawn rank. chunk -1 stands for the rank's other chunks together (those the window does not
// draw one by one): its share is their mean.
struct RingViewChunk {
    int chunk = 0;                 // 0..n-1, or -1: the rank's other chunks
    ChunkHolding holding;          // the chunk's own holding (for -1: the first of the others, its mask unused)
    double contributor_share = 0;  // contributions summed / n, 0..1 (for -1: the mean over the other chunks)
    bool complete = false;         // sums all n (for -1: every other chunk does)
    bool in_step = false;          // leaves this rank or lands on it in the step in flight
};

// A place on the drawn ring: a rank with its chunks, or the rest of the ring (the ranks not drawn, as one slot).
struct RingViewSlot {
    int rank = -1;                 // -1: the rest of the ring
    int hidden_ranks = 0;          // the rest of the ring: how many ranks it stands for
    std::vector<RingViewChunk> chunks;  // a rank's chunks in the order drawn; none for the rest of the ring
};

// The chunk on the link from slots[i] to slots[i + 1] (mod the slot count) in the step in flight.
struct RingViewTransfer {
    bool moving = false;           // false when done (or the link carries nothing drawn)
    RingViewChunk chunk;           // what it carries: the sender's holding before the step
};

struct RingView {
    int rank_count = 0;            // n, the whole ring
    int drawn_ranks = 0;           // the ranks drawn one by one: n, or the window's k
    int focus_rank = 0;            // the window is centred on it
    std::vector<int> chunk_order;  // the chunks drawn one by one, as each rank lists them (then -1 when others exist)
    std::vector<RingViewSlot> slots;          // in ring order, clockwise
    std::vector<RingViewTransfer> transfers;  // transfers[i]: on the link slots[i] -> slots[i + 1]
    std::string caption;           // which ranks are shown and how the whole ring maps to them
};

// The ring at steps_done completed steps (0..2(n-1)), as the panel draws it. n <= max_drawn_ranks: every rank, every
// chunk. Larger: a window of max_drawn_ranks - 1 consecutive ranks centred on focus_rank, each showing the chunks the
// window's ranks own after reduce-scatter (rank r ends with chunk r + 1 complete) and its other chunks as one cell, and
// one slot for the other ranks, which pass their chunks the same way in the same step. Every holding comes from
// ring_state_after, the one step rule. Throws InputError("ring.focus_rank", ...) outside 0..n-1, ("ring.max_drawn_ranks",
// ...) below 3, and what ring_state_after throws.
RingView ring_view(const RingSchedule& schedule, int steps_done, int focus_rank, int max_drawn_ranks);

// ---- Costs of the all-reduce variants in the alpha-beta model (published.md sec 5) ----
// The ring's time and bytes and nccl-tests' busbw come from core/collectives.h; naive and recursive doubling live here.

enum class AllReduceAlgorithm {
    naive,               // gather to rank 0, reduce there, broadcast back: n-1 messages of S in, n-1 out
    ring,                // reduce-scatter then all-gather around the ring: 2(n-1) messages of S/n per link
    recursive_doubling,  // lg n pairwise exchanges of the whole buffer (MPICH, Thakur et al. 2005)
};

const char* all_reduce_algorithm_name(AllReduceAlgorithm algorithm);  // "naive", "ring", "recursive doubling"

struct AllReduceCost {
    AllReduceAlgorithm algorithm = AllReduceAlgorithm::ring;
    int rank_count = 0;
    double buffer_bytes = 0;             // S
    int latency_terms = 0;               // messages in sequence on the critical path: how many alphas
    double busiest_link_bytes = 0;       // bytes that cross the busiest link one after another (bandwidth term * B)
    double max_bytes_sent_by_a_rank = 0; // naive: the root's broadcast; ring: every rank alike
    double min_bytes_sent_by_a_rank = 0;
    double seconds = 0;                  // latency_terms * alpha + busiest_link_bytes / B
    double algbw_bytes_per_s = 0;        // S / seconds
    double busbw_bytes_per_s = 0;        // algbw * busbw_factor(all_reduce, n) = 2(n-1)/n
};

// Recursive doubling on n not a power of two: the n - 2^floor(lg n) extra ranks first hand their buffer to a
// partner and get the result back at the end, so floor(lg n) + 2 rounds of S (Thakur et al. 2005 sec 4).
// Throws InputError for rank_count outside 2..1024 ("ring.ranks"), negative buffer ("ring.buffer_bytes"),
// link bytes_per_s <= 0 ("link.bytes_per_s") or negative latency ("link.latency_seconds").
AllReduceCost all_reduce_cost(AllReduceAlgorithm algorithm, int rank_count, double buffer_bytes, const LinkSpec& link);

// Seed 003's "per GPU approx 2M for large N": the limit of 2(n-1)/n * S, i.e. 2S.
double ring_bytes_sent_per_rank_large_n(double buffer_bytes);

// The panel's comparison plot: x = rank counts from min to max, points_per_doubling per factor of 2 (1 = powers
// of two from min), each algorithm's busiest-link bytes and seconds at those x.
struct AllReduceCurves {
    std::vector<double> rank_counts;
    std::vector<double> naive_busiest_link_bytes, ring_busiest_link_bytes, recursive_doubling_busiest_link_bytes;
    std::vector<double> naive_seconds, ring_seconds, recursive_doubling_seconds;
};
AllReduceCurves all_reduce_curves(int min_ranks, int max_ranks, double buffer_bytes, const LinkSpec& link,
                                  int points_per_doubling = 1);

}  // namespace core
