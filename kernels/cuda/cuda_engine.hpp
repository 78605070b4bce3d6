#pragma once
// The CUDA stream engine behind a plain C++ header (no CUDA or CAF types): the factory
// and an actor include this; only the .cu files beside it see the CUDA runtime.
#include <memory>
#include <stdexcept>

#include "kernels/cuda/cuda_probe.hpp"
#include "kernels/engine.hpp"

namespace flysim {

// A CUDA call failed after the engine was built (device lost, out of memory, a fault).
// The engine's state is then undefined: resume from the last exported state, on the
// CPU pool (ARCHITECTURE.md, "Swapping the engine").
class cuda_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Builds the CUDA engine on device 0 (choose another with CUDA_VISIBLE_DEVICES), holding
// the resting state of trial 0. Throws input_error saying what is missing (no device, a
// driver older than the runtime, no code for the device's compute capability) and what
// to do; it never falls back to the CPU on its own.
std::unique_ptr<Engine> make_cuda_engine(EngineSetup setup);

}  // namespace flysim
