#pragma once
// The CUDA stream engine behind a plain C++ header (no CUDA or CAF types): the factory
// and an actor include this; only the .cu files beside it see the CUDA runtime.
#include <memory>

#include "kernels/cuda/cuda_probe.hpp"
#include "kernels/engine.hpp"

namespace flysim {

// Builds the CUDA engine on device setup.cuda_device (engine.cuda-device), holding
// the resting state of trial 0. Throws input_error saying what is missing (no device, a
// driver older than the runtime, no code for the device's compute capability) and what
// to do; it never falls back to the CPU on its own. A CUDA call that fails later, in the
// constructor or in any Engine call, throws engine_failure with the runtime's error.
std::unique_ptr<Engine> make_cuda_engine(EngineSetup setup);

}  // namespace flysim
