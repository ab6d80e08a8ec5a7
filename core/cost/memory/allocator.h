#pragma once
// PyTorch's CUDA caching allocator, as c10/cuda/CUDACachingAllocator.cpp behaves by default: sizes rounded up to 512 B;
// requests up to 1 MiB served from 2 MiB segments of a small pool, larger ones from a large pool whose segments are 20 MiB
// for requests under 10 MiB and the request rounded up to 2 MiB above; the smallest cached free block that fits is taken
// (best fit) and split when what remains is worth keeping (512 B in the small pool, over 1 MiB in the large); a freed
// block merges with free neighbours of its segment; segments are never returned (no empty_cache). Reserved memory is the
// segments' total: what the GPU has given the process, and what runs out.
#include <cstdint>
#include <map>
#include <set>
#include <unordered_map>
#include <vector>

namespace core {

class CachingAllocator {
public:
    // Allocates `bytes` for the caller's id (a new id: a tensor is allocated once before it is freed).
    void allocate(long long id, double bytes);
    void release(long long id);

    double allocated_bytes() const { return allocated_; }
    double reserved_bytes() const { return reserved_; }
    double peak_allocated_bytes() const { return peak_allocated_; }
    double peak_reserved_bytes() const { return peak_reserved_; }
    int segments() const { return segment_count_; }

    static double rounded_size(double bytes);   // what a request takes from a block (512 B steps)
    static double segment_size(double rounded); // what a new segment for it asks cudaMalloc for

private:
    struct Block {
        std::int64_t size = 0;
        int segment = 0;
        bool small = false;
        bool free = true;
    };
    using Address = std::int64_t;
    std::map<Address, Block> blocks_;                        // every block of every segment, by address
    std::set<std::pair<std::int64_t, Address>> free_small_;  // free blocks by (size, address): best fit
    std::set<std::pair<std::int64_t, Address>> free_large_;
    std::unordered_map<long long, Address> live_;            // id -> its block
    Address next_address_ = 0;
    int segment_count_ = 0;
    double allocated_ = 0, reserved_ = 0, peak_allocated_ = 0, peak_reserved_ = 0;

    std::set<std::pair<std::int64_t, Address>>& pool(bool small) { return small ? free_small_ : free_large_; }
};

}  // namespace core
