// The CUDA engine host's sort of a round's spikes, alone: std::sort against
// kernels::radix_sort (and Boost's spreadsort where its headers are installed) on keys packed
// as the engine packs them (cuda::PackedRoundKeys) for the FlyWire-scale network. A round of 28 delay cells of 18 steps, SPIKES per cell and trial
// (dense Poisson at FlyWire scale: about 1,500), appended cell by cell and in no order
// within a cell, as the device's atomics leave them. Prints the fastest of 5 per sort.
//   flysim_round_sort_bench [SPIKES]
#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "kernels/cuda/round_keys.hpp"
#include "kernels/radix_sort.hpp"
#if __has_include(<boost/sort/spreadsort/integer_sort.hpp>)
#include <boost/sort/spreadsort/integer_sort.hpp>
#define FLYSIM_HAVE_SPREADSORT 1
#endif

namespace {

constexpr std::size_t kNeurons = 138'639;  // FlyWire

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  const int per_cell = argc > 1 ? std::atoi(argv[1]) : 1500;
  if (per_cell <= 0) {
    std::fprintf(stderr, "usage: flysim_round_sort_bench [SPIKES per cell and trial, > 0]\n");
    return 2;
  }
  for (const int trials : {1, 30}) {
    const flysim::cuda::PackedRoundKeys packed(kNeurons);
    std::mt19937_64 rng(1);
    std::vector<uint64_t> keys;
    for (int cell = 0; cell < 28; ++cell)
      for (int t = 0; t < trials; ++t)
        for (int k = 0; k < per_cell; ++k)
          keys.push_back(packed.pack(static_cast<uint32_t>(t), static_cast<int32_t>(cell * 18 + rng() % 18),
                                     static_cast<uint32_t>(rng() % kNeurons)));
    double std_ms = 1e9, radix_ms = 1e9, spread_ms = 1e9;
    for (int rep = 0; rep < 5; ++rep) {
      std::vector<uint64_t> a = keys, c = keys, scratch;
      auto t0 = std::chrono::steady_clock::now();
      std::sort(a.begin(), a.end());
      std_ms = std::min(std_ms, ms_since(t0));
      t0 = std::chrono::steady_clock::now();
      flysim::kernels::radix_sort(c, scratch);
      radix_ms = std::min(radix_ms, ms_since(t0));
      if (a != c) {
        std::fprintf(stderr, "radix_sort disagrees with std::sort\n");
        return 1;
      }
#ifdef FLYSIM_HAVE_SPREADSORT
      std::vector<uint64_t> b = keys;
      t0 = std::chrono::steady_clock::now();
      boost::sort::spreadsort::integer_sort(b.begin(), b.end());
      spread_ms = std::min(spread_ms, ms_since(t0));
#endif
    }
    const int bits = std::bit_width(*std::max_element(keys.begin(), keys.end()));
    std::printf("%2d trial(s), %8zu keys of %d bits: std::sort %7.2f ms, radix_sort %7.2f ms", trials, keys.size(), bits,
                std_ms, radix_ms);
#ifdef FLYSIM_HAVE_SPREADSORT
    std::printf(", spreadsort %7.2f ms", spread_ms);
#endif
    std::printf("\n");
  }
}
