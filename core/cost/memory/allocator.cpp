#include "core/cost/memory/allocator.h"

#include <algorithm>
#include <cmath>

namespace core {

namespace {

// c10/cuda/CUDACachingAllocator.cpp's constants.
constexpr std::int64_t kMinBlockSize = 512;
constexpr std::int64_t kSmallSize = 1 << 20;
constexpr std::int64_t kSmallBuffer = 2 << 20;
constexpr std::int64_t kLargeBuffer = 20 << 20;
constexpr std::int64_t kMinLargeAlloc = 10 << 20;
constexpr std::int64_t kRoundLarge = 2 << 20;

std::int64_t round_up(std::int64_t value, std::int64_t step) { return (value + step - 1) / step * step; }

}  // namespace

double CachingAllocator::rounded_size(double bytes) {
    const std::int64_t size = std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(bytes)));
    return static_cast<double>(round_up(size, kMinBlockSize));
}

double CachingAllocator::segment_size(double rounded) {
    const auto size = static_cast<std::int64_t>(rounded);
    if (size <= kSmallSize) return static_cast<double>(kSmallBuffer);
    if (size < kMinLargeAlloc) return static_cast<double>(kLargeBuffer);
    return static_cast<double>(round_up(size, kRoundLarge));
}

void CachingAllocator::allocate(long long id, double bytes) {
    if (bytes <= 0 || live_.count(id)) return;
    const auto size = static_cast<std::int64_t>(rounded_size(bytes));
    const bool small = size <= kSmallSize;
    auto& free_blocks = pool(small);
    Address address = 0;
    auto fit = free_blocks.lower_bound({size, 0});
    if (fit != free_blocks.end()) {
        address = fit->second;
        free_blocks.erase(fit);
    } else {
        // No cached block fits: a new segment from cudaMalloc, one block spanning it.
        const auto segment = static_cast<std::int64_t>(segment_size(static_cast<double>(size)));
        address = next_address_;
        next_address_ += segment + kSmallBuffer;  // a gap: blocks of two segments never merge
        blocks_[address] = Block{segment, segment_count_++, small, true};
        reserved_ += static_cast<double>(segment);
        peak_reserved_ = std::max(peak_reserved_, reserved_);
    }
    Block& block = blocks_[address];
    const std::int64_t remaining = block.size - size;
    const bool split = small ? remaining >= kMinBlockSize : remaining > kSmallSize;
    if (split) {
        blocks_[address + size] = Block{remaining, block.segment, small, true};
        pool(small).insert({remaining, address + size});
        block.size = size;
    }
    block.free = false;
    live_[id] = address;
    allocated_ += static_cast<double>(block.size);
    peak_allocated_ = std::max(peak_allocated_, allocated_);
}

void CachingAllocator::release(long long id) {
    const auto found = live_.find(id);
    if (found == live_.end()) return;
    const Address address = found->second;
    live_.erase(found);
    auto it = blocks_.find(address);
    Block block = it->second;
    allocated_ -= static_cast<double>(block.size);
    Address start = address;
    std::int64_t size = block.size;
    // Merge with the free neighbours of the same segment.
    auto next = std::next(it);
    if (next != blocks_.end() && next->second.free && next->second.segment == block.segment && next->first == address + block.size) {
        pool(block.small).erase({next->second.size, next->first});
        size += next->second.size;
        blocks_.erase(next);
    }
    if (it != blocks_.begin()) {
        auto prev = std::prev(it);
        if (prev->second.free && prev->second.segment == block.segment && prev->first + prev->second.size == address) {
            pool(block.small).erase({prev->second.size, prev->first});
            start = prev->first;
            size += prev->second.size;
            blocks_.erase(it);
            it = prev;
        }
    }
    it->second.size = size;
    it->second.free = true;
    pool(block.small).insert({size, start});
}

}  // namespace core
