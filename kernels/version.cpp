#include "kernels/version.hpp"

#include <fmt/format.h>
#include <xxhash.h>

namespace flysim {

std::string compatibility_string(const LifConstants& c, uint64_t network_hash) {
  // Every derived constant as a hex float (its exact bits), hashed: two parameter sets
  // that differ in one bit of one propagator get different strings.
  std::string bits = fmt::format("{:a} {:a} {:a} {:a} {:a} {:a} {:a} {} {} {}", c.v0, c.v_reset, c.v_threshold, c.kick_mV,
                                 c.mV_per_unit, c.quiet_margin_mV, c.rest_snap_mV, c.ref_steps, c.delay_steps, c.poisson_threshold);
  for (int32_t steps = 1; steps <= c.delay_steps; ++steps)
    bits += fmt::format(" {:a} {:a} {:a}", c.ev_epoch[steps], c.eg_epoch[steps], c.evg_epoch[steps]);
  bits += fmt::format(" {:a}", c.evg_epoch_max);
  return fmt::format("flysim-compat 1; model shiu2024-lif; parameters {:016x}; network {:016x}; "
                     "state v:f64 g:f64 last_spike:i32 pending:(step:i32,neuron:u32)",
                     XXH3_64bits(bits.data(), bits.size()), network_hash);
}

}  // namespace flysim
