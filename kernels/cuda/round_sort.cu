#include "kernels/cuda/round_sort.cuh"

#include <algorithm>
#include <bit>
#include <cub/device/device_radix_sort.cuh>

namespace flysim::cuda {
namespace {

constexpr unsigned kPackBlock = 256;
constexpr unsigned kMostPackBlocks = 4096;

__global__ void __launch_bounds__(kPackBlock)
    pack_round_keys_kernel(const CellSpike* spikes, uint32_t count, int32_t round_first, PackedRoundKeys packed,
                           uint64_t* keys) {
  for (uint32_t k = blockIdx.x * blockDim.x + threadIdx.x; k < count; k += gridDim.x * blockDim.x) {
    const CellSpike x = spikes[k];
    keys[k] = packed.pack(x.slot, x.step - round_first, x.neuron);
  }
}

}  // namespace

RoundSort::RoundSort(std::size_t neurons, bool nap)
    : packed_(neurons),
      copied_(nap),
      small_(kHostSortKeys, "allocating mapped host memory for a small round's keys") {
  small_copy_.reserve(kHostSortKeys);
}

void RoundSort::reserve(std::size_t count) {
  if (count <= keys_.size()) return;
  // All three or none: a failed allocation leaves the buffers as they were.
  const std::size_t room = std::bit_ceil(count);
  DeviceBuffer<uint64_t> keys(room, "allocating the round sort's keys");
  DeviceBuffer<uint64_t> other(room, "allocating the round sort's keys");
  MappedHostBuffer<uint64_t> host(room, "allocating pinned host memory for the sorted keys");
  keys_ = std::move(keys);
  other_ = std::move(other);
  host_ = std::move(host);
}

void RoundSort::queue(cudaStream_t stream, const CellSpike* spikes, uint32_t count, int32_t round_first,
                      int32_t round_steps, uint32_t batch) {
  count_ = count;
  on_host_ = count <= kHostSortKeys;
  if (on_host_) {
    // Copied before the next round, which writes them anew, is launched.
    small_copy_.assign(small_.host(), small_.host() + count);
    return;
  }
  reserve(count);
  const unsigned blocks = std::min((count + kPackBlock - 1) / kPackBlock, kMostPackBlocks);
  pack_round_keys_kernel<<<blocks, kPackBlock, 0, stream>>>(spikes, count, round_first, packed_, keys_.get());
  check(cudaGetLastError(), "packing the round's keys");
  const int bits = packed_.bits(batch, round_steps);
  cub::DoubleBuffer<uint64_t> buffers(keys_.get(), other_.get());
  // CUB's room for exactly this sort (asked on the host, no launch), grown when short.
  std::size_t bytes = 0;
  check(cub::DeviceRadixSort::SortKeys(nullptr, bytes, buffers, count, 0, bits, stream), "sizing the round sort");
  if (bytes > temp_.size()) temp_ = DeviceBuffer<unsigned char>(bytes, "allocating the round sort's room");
  check(cub::DeviceRadixSort::SortKeys(temp_.get(), bytes, buffers, count, 0, bits, stream), "sorting the round's keys");
  check(cudaMemcpyAsync(host_.host(), buffers.Current(), std::size_t{count} * sizeof(uint64_t), cudaMemcpyDeviceToHost,
                        stream),
        "copying the round's keys");
  copied_.record(stream, "copying the round's keys");
}

std::span<const uint64_t> RoundSort::wait() {
  if (on_host_) {
    std::sort(small_copy_.begin(), small_copy_.end());
    return small_copy_;
  }
  copied_.wait("copying the round's keys");
  return {host_.host(), count_};
}

}  // namespace flysim::cuda
