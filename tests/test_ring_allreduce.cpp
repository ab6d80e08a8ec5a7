// The ring all-reduce step sequence, its animation frames, and its cost against naive and recursive doubling.
#include <algorithm>
#include <bit>
#include <catch2/catch.hpp>
#include <cstdint>
#include <set>
#include <vector>

#include "core/cost/kernels/collectives.h"
#include "core/model/errors.h"
#include "core/lessons/ring_allreduce.h"

namespace {

// NVLink 4 per direction, as in assets/hardware.json: 450 GB/s, 3 us per message.
core::LinkSpec nvlink4() {
    core::LinkSpec link;
    link.id = "nvlink4";
    link.bytes_per_s = 450e9;
    link.latency_seconds = 3e-6;
    return link;
}

core::LinkSpec bandwidth_only(double bytes_per_s) {
    core::LinkSpec link;
    link.id = "custom";
    link.bytes_per_s = bytes_per_s;
    link.latency_seconds = 0;
    return link;
}

std::uint64_t all_ranks_mask(int rank_count) {
    return rank_count == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << rank_count) - 1;
}

}  // namespace

TEST_CASE("published.md sec 5: ring all-reduce has 2(n-1) steps, n-1 reduce-scatter then n-1 all-gather", "[ring]") {
    for (int n : {2, 3, 5, 8, 64, 1024}) {
        const core::RingSchedule schedule = core::make_ring_schedule(n, 1e9);
        REQUIRE(schedule.steps.size() == static_cast<std::size_t>(2 * (n - 1)));
        for (int step = 0; step < 2 * (n - 1); ++step) {
            const bool first_half = step < n - 1;
            REQUIRE(schedule.steps[step].phase ==
                    (first_half ? core::RingPhase::reduce_scatter : core::RingPhase::all_gather));
            REQUIRE(schedule.steps[step].step_in_phase == (first_half ? step + 1 : step - (n - 1) + 1));
        }
        REQUIRE(schedule.chunk_bytes == Approx(1e9 / n));
    }
}

TEST_CASE("seed 003: before the ring starts every rank holds only its own contribution to every chunk", "[ring]") {
    const core::RingState state = core::ring_initial_state(5);
    for (int rank = 0; rank < 5; ++rank) {
        for (int chunk = 0; chunk < 5; ++chunk) {
            REQUIRE(state.at(rank, chunk).contributor_mask == (std::uint64_t{1} << rank));
            REQUIRE(state.at(rank, chunk).contributor_count == 1);
            REQUIRE_FALSE(state.at(rank, chunk).complete);
        }
    }
}

TEST_CASE("seed 003: after 2(n-1) steps every rank holds the full sum of every chunk, n = 2..64", "[ring]") {
    for (int n = 2; n <= 64; ++n) {
        const core::RingSchedule schedule = core::make_ring_schedule(n, 1.0);
        const core::RingState state = core::ring_state_after(schedule, 2 * (n - 1));
        for (int rank = 0; rank < n; ++rank) {
            for (int chunk = 0; chunk < n; ++chunk) {
                const core::ChunkHolding& holding = state.at(rank, chunk);
                INFO("n = " << n << ", rank " << rank << ", chunk " << chunk);
                REQUIRE(holding.contributor_mask == all_ranks_mask(n));
                REQUIRE(holding.contributor_count == n);
                REQUIRE(holding.complete);
            }
        }
    }
}

TEST_CASE("seed 003: one step short of the end some chunk is still incomplete", "[ring]") {
    for (int n : {2, 3, 8, 16}) {
        const core::RingSchedule schedule = core::make_ring_schedule(n, 1.0);
        const core::RingState state = core::ring_state_after(schedule, 2 * (n - 1) - 1);
        int incomplete = 0;
        for (const core::ChunkHolding& holding : state.holdings) incomplete += holding.complete ? 0 : 1;
        REQUIRE(incomplete == n);  // each rank still misses exactly the chunk arriving in the last step
    }
}

TEST_CASE("seed 003: reduce-scatter leaves rank r with the complete chunk r+1 mod n and nothing else complete",
          "[ring]") {
    for (int n : {2, 4, 7, 64}) {
        const core::RingSchedule schedule = core::make_ring_schedule(n, 1.0);
        const core::RingState state = core::ring_state_after(schedule, n - 1);
        for (int rank = 0; rank < n; ++rank) {
            for (int chunk = 0; chunk < n; ++chunk) {
                REQUIRE(state.at(rank, chunk).complete == (chunk == (rank + 1) % n));
            }
        }
    }
}

TEST_CASE("ring counts match the bitmask, and above 64 ranks the counts alone still reach n", "[ring]") {
    SECTION("n <= 64: count == popcount(mask) after every step, so no contribution is summed twice") {
        for (int n : {3, 9, 33, 64}) {
            const core::RingSchedule schedule = core::make_ring_schedule(n, 1.0);
            core::RingState state = core::ring_initial_state(n);
            for (const core::RingStep& step : schedule.steps) {
                core::apply_ring_step(step, state);
                for (const core::ChunkHolding& holding : state.holdings)
                    REQUIRE(std::popcount(holding.contributor_mask) == holding.contributor_count);
            }
        }
    }
    SECTION("n = 1024: every chunk on every rank complete at the end") {
        const core::RingSchedule schedule = core::make_ring_schedule(1024, 1.0);
        const core::RingState state = core::ring_state_after(schedule, 2 * 1023);
        for (const core::ChunkHolding& holding : state.holdings) {
            REQUIRE(holding.contributor_count == 1024);
            REQUIRE(holding.complete);
            REQUIRE(holding.contributor_mask == 0);  // beyond ring_mask_max_ranks the mask is not kept
        }
    }
}

TEST_CASE("seed 003: each GPU sends and receives exactly once per step, to its right neighbour", "[ring]") {
    for (int n : {2, 3, 8, 17, 64}) {
        const core::RingSchedule schedule = core::make_ring_schedule(n, 1.0);
        for (const core::RingStep& step : schedule.steps) {
            REQUIRE(step.transfers.size() == static_cast<std::size_t>(n));
            std::vector<int> sends(n, 0), receives(n, 0);
            for (const core::RingTransfer& transfer : step.transfers) {
                REQUIRE(transfer.to_rank == (transfer.from_rank + 1) % n);
                REQUIRE(transfer.chunk >= 0);
                REQUIRE(transfer.chunk < n);
                ++sends[transfer.from_rank];
                ++receives[transfer.to_rank];
            }
            for (int rank = 0; rank < n; ++rank) {
                REQUIRE(sends[rank] == 1);
                REQUIRE(receives[rank] == 1);
            }
        }
    }
}

TEST_CASE("seed 003: in reduce-scatter no rank sends the same chunk twice, and every step moves n distinct chunks",
          "[ring]") {
    for (int n : {2, 5, 8, 64}) {
        const core::RingSchedule schedule = core::make_ring_schedule(n, 1.0);
        std::vector<std::set<int>> chunks_sent_by(n);
        for (int step = 0; step < n - 1; ++step) {
            std::set<int> chunks_in_step;
            for (const core::RingTransfer& transfer : schedule.steps[step].transfers) {
                REQUIRE(chunks_sent_by[transfer.from_rank].insert(transfer.chunk).second);
                chunks_in_step.insert(transfer.chunk);
            }
            REQUIRE(chunks_in_step.size() == static_cast<std::size_t>(n));
        }
        // Each rank sends n-1 different chunks and keeps back exactly the one it ends up owning.
        for (int rank = 0; rank < n; ++rank) {
            REQUIRE(chunks_sent_by[rank].size() == static_cast<std::size_t>(n - 1));
            REQUIRE(chunks_sent_by[rank].count((rank + 1) % n) == 0);
        }
    }
}

TEST_CASE("ring schedule refuses rank counts outside 2..1024 and bad buffers, naming the field", "[ring]") {
    REQUIRE_THROWS_AS(core::make_ring_schedule(1, 1.0), core::InputError);
    REQUIRE_THROWS_AS(core::make_ring_schedule(1025, 1.0), core::InputError);
    REQUIRE_THROWS_AS(core::make_ring_schedule(8, -1.0), core::InputError);
    try {
        core::make_ring_schedule(0, 1.0);
        FAIL("no throw");
    } catch (const core::InputError& error) {
        REQUIRE(error.field() == "ring.ranks");
        REQUIRE(std::string(error.what()) == "ring.ranks: must be in 2..1024, got 0");
    }
    const core::RingSchedule schedule = core::make_ring_schedule(4, 1.0);
    REQUIRE_THROWS_AS(core::ring_state_after(schedule, 7), core::InputError);
    REQUIRE_THROWS_AS(core::ring_state_after(schedule, -1), core::InputError);
}

TEST_CASE("ring_frame_at: time is a parameter, two times give two steps and captions, past the end says done",
          "[ring][frame]") {
    const core::RingSchedule schedule = core::make_ring_schedule(8, 1e9);  // 7 steps per phase, 14 in all
    const double step_seconds = 0.5;
    REQUIRE(core::ring_animation_seconds(schedule, step_seconds) == Approx(7.0));

    const core::RingFrame start = core::ring_frame_at(schedule, 0.0, step_seconds);
    REQUIRE(start.steps_done == 0);
    REQUIRE(start.phase == core::RingPhase::reduce_scatter);
    REQUIRE(start.caption == "reduce-scatter, step 1 of 7");
    REQUIRE(start.transfer_fraction == Approx(0.0));

    const core::RingFrame third = core::ring_frame_at(schedule, 1.25, step_seconds);
    REQUIRE(third.steps_done == 2);
    REQUIRE(third.step_in_phase == 3);
    REQUIRE(third.transfer_fraction == Approx(0.5));
    REQUIRE(third.caption == "reduce-scatter, step 3 of 7");

    const core::RingFrame gather = core::ring_frame_at(schedule, 4.5, step_seconds);
    REQUIRE(gather.steps_done == 9);
    REQUIRE(gather.phase == core::RingPhase::all_gather);
    REQUIRE(gather.caption == "all-gather, step 3 of 7");
    REQUIRE(gather.caption != third.caption);

    const core::RingFrame last = core::ring_frame_at(schedule, 6.99, step_seconds);
    REQUIRE(last.caption == "all-gather, step 7 of 7");
    REQUIRE_FALSE(last.done);

    for (double past_end : {7.0, 8.0, 1e6}) {
        const core::RingFrame end = core::ring_frame_at(schedule, past_end, step_seconds);
        REQUIRE(end.done);
        REQUIRE(end.phase == core::RingPhase::done);
        REQUIRE(end.steps_done == 14);
        REQUIRE(end.caption == "done");
    }

    REQUIRE_THROWS_AS(core::ring_frame_at(schedule, -0.1, step_seconds), core::InputError);
    REQUIRE_THROWS_AS(core::ring_frame_at(schedule, 1.0, 0.0), core::InputError);
}

TEST_CASE("published.md sec 5 / seed 003: each ring rank sends 2(n-1)/n*S bytes, every link alike", "[ring][cost]") {
    const double size = 1e9;
    for (int n : {2, 8, 64, 1024}) {
        const core::AllReduceCost ring = core::all_reduce_cost(core::AllReduceAlgorithm::ring, n, size, nvlink4());
        const double expected = 2.0 * (n - 1) / n * size;
        REQUIRE(ring.max_bytes_sent_by_a_rank == Approx(expected));
        REQUIRE(ring.min_bytes_sent_by_a_rank == Approx(expected));
        REQUIRE(ring.busiest_link_bytes == Approx(expected));
        REQUIRE(ring.latency_terms == 2 * (n - 1));
    }
    // The schedule agrees: 2(n-1) steps, each rank sends one chunk of S/n per step.
    const core::RingSchedule schedule = core::make_ring_schedule(8, size);
    REQUIRE(schedule.steps.size() * schedule.chunk_bytes == Approx(1.75e9));
}

TEST_CASE("seed 003: per GPU 2(N-1)*M/N is approx 2M for large N; exactly 1.998046875 M at N = 1024", "[ring][cost]") {
    const double model_bytes = 1e9;
    const core::AllReduceCost ring =
        core::all_reduce_cost(core::AllReduceAlgorithm::ring, 1024, model_bytes, bandwidth_only(50e9));
    REQUIRE(ring.max_bytes_sent_by_a_rank == Approx(1.998046875e9).epsilon(1e-12));
    REQUIRE(ring.max_bytes_sent_by_a_rank / (2 * model_bytes) == Approx(1.0).epsilon(1e-3));
    REQUIRE(ring.max_bytes_sent_by_a_rank < core::ring_bytes_sent_per_rank_large_n(model_bytes));
    REQUIRE(core::ring_bytes_sent_per_rank_large_n(model_bytes) == Approx(2e9));
    // "The total time is 2(N-1)M/(N x bandwidth) approx 2M/bandwidth": 39.96 ms on 50 GB/s instead of 40 ms.
    REQUIRE(ring.seconds == Approx(0.0399609375).epsilon(1e-12));
    // "Doubling the GPUs doesn't double the communication cost": 512 -> 1024 adds about 0.1 %.
    const core::AllReduceCost half =
        core::all_reduce_cost(core::AllReduceAlgorithm::ring, 512, model_bytes, bandwidth_only(50e9));
    REQUIRE(ring.seconds / half.seconds == Approx(1.000978).epsilon(1e-5));
}

TEST_CASE("published.md sec 5 / seed 003: naive all-reduce puts 2(n-1)*S through the root link", "[ring][cost]") {
    const double size = 1e9;
    for (int n : {2, 8, 1024}) {
        const core::AllReduceCost naive =
            core::all_reduce_cost(core::AllReduceAlgorithm::naive, n, size, nvlink4());
        REQUIRE(naive.busiest_link_bytes == Approx(2.0 * (n - 1) * size));
        REQUIRE(naive.max_bytes_sent_by_a_rank == Approx((n - 1) * size));  // the root's broadcast
        REQUIRE(naive.min_bytes_sent_by_a_rank == Approx(size));            // everyone else sends its buffer once
    }
    const core::AllReduceCost naive = core::all_reduce_cost(core::AllReduceAlgorithm::naive, 8, size, nvlink4());
    REQUIRE(naive.busiest_link_bytes == Approx(14e9));
    // 14 messages of alpha + 1 GB at 450 GB/s: 14 * (3 us + 2.2222 ms) = 31.153 ms.
    REQUIRE(naive.seconds == Approx(31.153111e-3).epsilon(1e-6));
    // Doubling the GPUs doubles the naive root's load.
    const core::AllReduceCost twice = core::all_reduce_cost(core::AllReduceAlgorithm::naive, 16, size, nvlink4());
    REQUIRE(twice.busiest_link_bytes / naive.busiest_link_bytes == Approx(30.0 / 14.0));
}

TEST_CASE("published.md sec 5: ring time = 2(n-1)*alpha + 2*((n-1)/n)*S/B on NVLink 4", "[ring][cost]") {
    // n = 8, S = 1 GB: 14 * 3 us + 1.75 GB / 450 GB/s = 42 us + 3.888889 ms.
    const core::AllReduceCost ring = core::all_reduce_cost(core::AllReduceAlgorithm::ring, 8, 1e9, nvlink4());
    REQUIRE(ring.seconds == Approx(3.930889e-3).epsilon(1e-6));
    SECTION("alpha dominates small buffers: 8 KB takes about the 42 us of latency") {
        const core::AllReduceCost small = core::all_reduce_cost(core::AllReduceAlgorithm::ring, 8, 8e3, nvlink4());
        REQUIRE(small.seconds == Approx(42e-6 + 14e3 / 450e9).epsilon(1e-9));
        REQUIRE(small.seconds == Approx(42.0311e-6).epsilon(1e-5));
    }
}

TEST_CASE("nccl-tests PERFORMANCE.md: algbw = S/t and busbw = algbw * 2(n-1)/n for all-reduce", "[ring][cost]") {
    const core::AllReduceCost ring = core::all_reduce_cost(core::AllReduceAlgorithm::ring, 8, 1e9, nvlink4());
    REQUIRE(ring.algbw_bytes_per_s == Approx(1e9 / 3.930889e-3).epsilon(1e-6));
    REQUIRE(ring.algbw_bytes_per_s == Approx(254.3954e9).epsilon(1e-6));
    REQUIRE(ring.busbw_bytes_per_s == Approx(445.1920e9).epsilon(1e-6));
    REQUIRE(ring.busbw_bytes_per_s / ring.algbw_bytes_per_s == Approx(1.75));  // 2(n-1)/n at n = 8
    SECTION("with alpha = 0 the ring's busbw is exactly the link bandwidth, whatever n") {
        for (int n : {2, 3, 8, 100, 1024}) {
            const core::AllReduceCost ideal =
                core::all_reduce_cost(core::AllReduceAlgorithm::ring, n, 1e9, bandwidth_only(50e9));
            REQUIRE(ideal.busbw_bytes_per_s == Approx(50e9));
        }
    }
    SECTION("busbw factors: all-reduce 2(n-1)/n; reduce-scatter, all-gather, all-to-all (n-1)/n; bcast, reduce 1") {
        REQUIRE(core::busbw_factor(core::Collective::all_reduce, 8) == Approx(1.75));
        REQUIRE(core::busbw_factor(core::Collective::all_reduce, 2) == Approx(1.0));
        REQUIRE(core::busbw_factor(core::Collective::reduce_scatter, 8) == Approx(0.875));
        REQUIRE(core::busbw_factor(core::Collective::all_gather, 4) == Approx(0.75));
        REQUIRE(core::busbw_factor(core::Collective::all_to_all, 16) == Approx(0.9375));
        REQUIRE(core::busbw_factor(core::Collective::broadcast, 8) == Approx(1.0));
        REQUIRE(core::busbw_factor(core::Collective::reduce, 1024) == Approx(1.0));
    }
}

TEST_CASE("published.md sec 5: recursive doubling lg n*alpha + S*lg n*beta; non powers of two add 2 rounds",
          "[ring][cost]") {
    const double size = 1e9;
    const core::AllReduceCost eight =
        core::all_reduce_cost(core::AllReduceAlgorithm::recursive_doubling, 8, size, nvlink4());
    REQUIRE(eight.latency_terms == 3);
    REQUIRE(eight.busiest_link_bytes == Approx(3e9));
    REQUIRE(eight.max_bytes_sent_by_a_rank == Approx(3e9));
    REQUIRE(eight.seconds == Approx(3 * (3e-6 + 1e9 / 450e9)));
    REQUIRE(eight.seconds == Approx(6.675667e-3).epsilon(1e-6));
    const core::AllReduceCost big =
        core::all_reduce_cost(core::AllReduceAlgorithm::recursive_doubling, 1024, size, nvlink4());
    REQUIRE(big.latency_terms == 10);
    // Thakur et al. 2005: 6 = 4 + 2 extra ranks fold into partners first, 2 rounds of recursive doubling, unfold.
    const core::AllReduceCost six =
        core::all_reduce_cost(core::AllReduceAlgorithm::recursive_doubling, 6, size, nvlink4());
    REQUIRE(six.latency_terms == 4);
    REQUIRE(six.busiest_link_bytes == Approx(4e9));
    REQUIRE(six.max_bytes_sent_by_a_rank == Approx(3e9));
    REQUIRE(six.min_bytes_sent_by_a_rank == Approx(1e9));
    SECTION("the three variants rank as the seed says: latency favours doubling at small S, bandwidth the ring") {
        const auto seconds = [](core::AllReduceAlgorithm algorithm, double bytes) {
            return core::all_reduce_cost(algorithm, 64, bytes, nvlink4()).seconds;
        };
        REQUIRE(seconds(core::AllReduceAlgorithm::recursive_doubling, 1e3) <
                seconds(core::AllReduceAlgorithm::ring, 1e3));
        REQUIRE(seconds(core::AllReduceAlgorithm::ring, 1e9) <
                seconds(core::AllReduceAlgorithm::recursive_doubling, 1e9));
        REQUIRE(seconds(core::AllReduceAlgorithm::recursive_doubling, 1e9) <
                seconds(core::AllReduceAlgorithm::naive, 1e9));
    }
}

TEST_CASE("all-reduce costs refuse bad input naming the field", "[ring][cost]") {
    core::LinkSpec broken = nvlink4();
    broken.bytes_per_s = 0;
    try {
        core::all_reduce_cost(core::AllReduceAlgorithm::ring, 8, 1e9, broken);
        FAIL("no throw");
    } catch (const core::InputError& error) {
        REQUIRE(error.field() == "link.bytes_per_s");
    }
    core::LinkSpec negative_latency = nvlink4();
    negative_latency.latency_seconds = -1;
    REQUIRE_THROWS_AS(core::all_reduce_cost(core::AllReduceAlgorithm::ring, 8, 1e9, negative_latency),
                      core::InputError);
    REQUIRE_THROWS_AS(core::all_reduce_cost(core::AllReduceAlgorithm::naive, 1, 1e9, nvlink4()), core::InputError);
    REQUIRE_THROWS_AS(core::all_reduce_curves(16, 8, 1e9, nvlink4()), core::InputError);
    REQUIRE_THROWS_AS(core::all_reduce_curves(2, 2048, 1e9, nvlink4()), core::InputError);
    REQUIRE(core::all_reduce_cost(core::AllReduceAlgorithm::ring, 8, 0, nvlink4()).busbw_bytes_per_s == 0);
}

TEST_CASE("comparison curves for the ring panel: powers of two 2..1024, each point the cost of that n",
          "[ring][cost]") {
    const core::AllReduceCurves curves = core::all_reduce_curves(2, 1024, 1e9, nvlink4());
    REQUIRE(curves.rank_counts == std::vector<double>{2, 4, 8, 16, 32, 64, 128, 256, 512, 1024});
    REQUIRE(curves.ring_seconds.size() == 10);
    REQUIRE(curves.naive_busiest_link_bytes.size() == 10);
    REQUIRE(curves.recursive_doubling_seconds.size() == 10);
    REQUIRE(curves.ring_seconds[2] == Approx(3.930889e-3).epsilon(1e-6));  // n = 8, as above
    REQUIRE(curves.naive_busiest_link_bytes[2] == Approx(14e9));
    REQUIRE(curves.recursive_doubling_busiest_link_bytes[9] == Approx(10e9));
    REQUIRE(curves.ring_busiest_link_bytes[9] == Approx(1.998046875e9));
    SECTION("log-spaced, two points per doubling, ending exactly at the range's end") {
        const core::AllReduceCurves dense = core::all_reduce_curves(2, 1000, 1e9, nvlink4(), 2);
        REQUIRE(dense.rank_counts.front() == 2);
        REQUIRE(dense.rank_counts[1] == 3);   // 2 * sqrt 2 = 2.83
        REQUIRE(dense.rank_counts[2] == 4);
        REQUIRE(dense.rank_counts.back() == 1000);
        for (std::size_t index = 1; index < dense.rank_counts.size(); ++index)
            REQUIRE(dense.rank_counts[index] > dense.rank_counts[index - 1]);
    }
}

TEST_CASE("seed 003 at the default scenario's 64 ranks: the panel's window of 7 ranks around rank 0 is the ring's own state",
          "[ring][view]") {
    const core::RingSchedule schedule = core::make_ring_schedule(64, 141e9);
    for (int steps_done : {0, 1, 30, 63, 64, 100, 126}) {
        INFO("after " << steps_done << " steps");
        const core::RingState state = core::ring_state_after(schedule, steps_done);
        const core::RingView view = core::ring_view(schedule, steps_done, 0, 8);
        REQUIRE(view.rank_count == 64);
        REQUIRE(view.drawn_ranks == 7);
        // Ranks 61, 62, 63, 0, 1, 2, 3 clockwise, then one slot for the other 57.
        REQUIRE(view.slots.size() == 8);
        const std::vector<int> ranks = {61, 62, 63, 0, 1, 2, 3};
        for (std::size_t i = 0; i < ranks.size(); ++i) REQUIRE(view.slots[i].rank == ranks[i]);
        REQUIRE(view.slots[7].rank == -1);
        REQUIRE(view.slots[7].hidden_ranks == 57);
        // Each drawn rank shows the chunks these ranks own once reduce-scatter is over (rank r: chunk r + 1), then its others.
        REQUIRE(view.chunk_order == std::vector<int>{62, 63, 0, 1, 2, 3, 4});
        for (std::size_t i = 0; i < ranks.size(); ++i) {
            const core::RingViewSlot& slot = view.slots[i];
            REQUIRE(slot.chunks.size() == 8);
            long long others = 0;
            bool others_complete = true;
            for (int chunk = 0; chunk < 64; ++chunk) {
                const core::ChunkHolding& holding = state.at(slot.rank, chunk);
                const auto drawn = std::find(view.chunk_order.begin(), view.chunk_order.end(), chunk);
                if (drawn != view.chunk_order.end()) {
                    const core::RingViewChunk& cell = slot.chunks[drawn - view.chunk_order.begin()];
                    REQUIRE(cell.chunk == chunk);
                    REQUIRE(cell.holding.contributor_count == holding.contributor_count);
                    REQUIRE(cell.contributor_share == Approx(holding.contributor_count / 64.0));
                    REQUIRE(cell.complete == holding.complete);
                } else {
                    others += holding.contributor_count;
                    others_complete = others_complete && holding.complete;
                }
            }
            REQUIRE(slot.chunks.back().chunk == -1);
            REQUIRE(slot.chunks.back().contributor_share == Approx(others / (57.0 * 64.0)));
            REQUIRE(slot.chunks.back().complete == others_complete);
        }
        // In flight: each drawn rank's send to its right neighbour, and into the window rank 60's send to rank 61.
        REQUIRE(view.transfers.size() == 8);
        for (std::size_t i = 0; i < view.transfers.size(); ++i) {
            const core::RingViewTransfer& transfer = view.transfers[i];
            REQUIRE(transfer.moving == (steps_done < 126));
            if (!transfer.moving) continue;
            const int sender = i < ranks.size() ? ranks[i] : 60;
            const int chunk = schedule.steps[steps_done].transfers[sender].chunk;
            const bool drawn = std::find(view.chunk_order.begin(), view.chunk_order.end(), chunk) != view.chunk_order.end();
            REQUIRE(transfer.chunk.chunk == (drawn ? chunk : -1));
            REQUIRE(transfer.chunk.holding.contributor_count == state.at(sender, chunk).contributor_count);
        }
    }
    // After reduce-scatter each drawn rank r holds its own chunk r + 1 whole: the window's diagonal is complete.
    const core::RingView scattered = core::ring_view(schedule, 63, 0, 8);
    for (std::size_t i = 0; i + 1 < scattered.slots.size(); ++i) {
        REQUIRE(scattered.slots[i].chunks[i].complete);
        REQUIRE(scattered.slots[i].chunks[i].chunk == (scattered.slots[i].rank + 1) % 64);
    }
    const core::RingView end = core::ring_view(schedule, 126, 0, 8);
    for (const core::RingViewSlot& slot : end.slots)
        for (const core::RingViewChunk& chunk : slot.chunks) REQUIRE(chunk.complete);
    CHECK(end.caption.find("ranks 61 to 3 of 64") == 0);
    CHECK(end.caption.find("the other 57 ranks") != std::string::npos);
}

TEST_CASE("ring view: up to the drawn limit every rank and chunk in order; a window wraps around the ring at any focus",
          "[ring][view]") {
    const core::RingSchedule eight = core::make_ring_schedule(8, 1e9);
    const core::RingView whole = core::ring_view(eight, 5, 3, 16);
    REQUIRE(whole.slots.size() == 8);
    REQUIRE(whole.drawn_ranks == 8);
    const core::RingState state = core::ring_state_after(eight, 5);
    for (int rank = 0; rank < 8; ++rank) {
        REQUIRE(whole.slots[rank].rank == rank);
        REQUIRE(whole.slots[rank].chunks.size() == 8);  // no cell for "the others"
        for (int chunk = 0; chunk < 8; ++chunk)
            REQUIRE(whole.slots[rank].chunks[chunk].holding.contributor_count == state.at(rank, chunk).contributor_count);
    }
    CHECK(whole.caption == "all 8 ranks");

    const core::RingSchedule large = core::make_ring_schedule(1024, 1e9);
    const core::RingView around_last = core::ring_view(large, 1500, 1023, 8);
    REQUIRE(around_last.slots.front().rank == 1020);
    REQUIRE(around_last.slots[6].rank == 2);
    REQUIRE(around_last.slots.back().hidden_ranks == 1017);

    REQUIRE_THROWS_AS(core::ring_view(eight, 0, 8, 16), core::InputError);
    REQUIRE_THROWS_AS(core::ring_view(eight, 0, 0, 2), core::InputError);
    REQUIRE_THROWS_AS(core::ring_view(eight, 15, 0, 16), core::InputError);  // steps_done past 2(n-1)
}
