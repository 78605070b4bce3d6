#pragma once
// engine.kind and engine.cuda-device as the engine they choose.
#include "apps/flysim/options/options.hpp"
#include "kernels/engine_factory.hpp"

namespace flysim::app {

// engine.kind, overridden by FLY_LIF_CUDA=1|0 (any other value is an error).
EngineKind engine_kind(const Options& o);
// engine.cuda-device, checked to be a device number (whether it exists, the CUDA probe
// says: kernels/cuda/cuda_probe.hpp).
int cuda_device(const Options& o);

}  // namespace flysim::app
