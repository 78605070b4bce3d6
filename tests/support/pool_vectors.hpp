#pragma once
// A CPU pool's arrays as vectors, for the tests of the passes that take kernels::PoolArrays
// (tests/unit/path_pass_test.cpp, step_lanes_test.cpp), and doubles compared as bits.
#include <bit>
#include <cstdint>
#include <vector>

#include "kernels/cpu/path_pass.hpp"

namespace flysim::test {

struct PoolVectors {
  std::vector<double> v, g;
  std::vector<int32_t> last_spike;
  std::vector<uint8_t> poisson;
  std::vector<uint32_t> synaptic_slots, kick_steps;

  kernels::PoolArrays arrays() {
    return {v.data(), g.data(), last_spike.data(), poisson.data(), synaptic_slots.data(), kick_steps.data()};
  }
  void push_back(double v_e, double g_e, int32_t last_e, uint8_t poisson_e, uint32_t slots_e, uint32_t kicks_e) {
    v.push_back(v_e);
    g.push_back(g_e);
    last_spike.push_back(last_e);
    poisson.push_back(poisson_e);
    synaptic_slots.push_back(slots_e);
    kick_steps.push_back(kicks_e);
  }
};

// The bits of each value: what "the same result" means for v and g.
inline std::vector<uint64_t> bits_of(const std::vector<double>& values) {
  std::vector<uint64_t> bits;
  for (double x : values) bits.push_back(std::bit_cast<uint64_t>(x));
  return bits;
}

}  // namespace flysim::test
