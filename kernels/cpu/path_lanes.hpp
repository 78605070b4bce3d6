#pragma once
// choose_path for a block of lanes (kernels/cpu/path_pass_avx512.cpp, path_pass_avx2.cpp):
// the one text of the lane decision, instantiated by each file for its own vector types
// (so each instantiation is compiled for its instruction set and shared with no other file).
#include "kernels/lif.hpp"

namespace flysim::kernels {

// Which lanes are unchanged and which quiet (bit k for lane k); every other lane is stepwise.
template <class Mask>
struct LanePaths {
  Mask unchanged;
  Mask quiet;
};

// `no_input`: the lanes without input or Poisson drive; `mask_of(lanes)`: a comparison's
// lanes as bits. A lane is unchanged when at rest or refractory throughout; quiet when
// past its refractory period and provably below threshold (choose_path).
template <class Mask, class Real, class Int, class MaskOf>
inline LanePaths<Mask> lane_paths(const LifConstants& c, EpochSpan span, Real v, Real g, Int last_spike, Mask no_input,
                                  MaskOf&& mask_of) {
  const Mask unchanged =
      no_input & (mask_of(at_rest(c, v, g)) | mask_of(refractory_throughout(span, last_spike, c.ref_steps)));
  const Mask quiet = no_input & static_cast<Mask>(~unchanged) &
                     mask_of(refractory_over(span, last_spike, c.ref_steps)) & mask_of(provably_below_threshold(c, v, g));
  return {unchanged, quiet};
}

}  // namespace flysim::kernels
