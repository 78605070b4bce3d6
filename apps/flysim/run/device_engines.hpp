#pragma once
// Engines on CUDA devices as engine.cuda-devices and engine.per-device list them (one
// entry per engine): the batch each may hold beside the others on its device, and the
// engines built side by side. flysim screen runs experiments on them; flysim run spreads
// its batches over them (kernels/engine_group.hpp).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "apps/flysim/options/options.hpp"
#include "apps/flysim/run/engine_builder.hpp"

namespace flysim::app {

// run.batch=auto for CUDA engines: on each listed device, what fits in its memory divided
// among the engines on it (at most `batch`); a batch given by number, or a CPU engine's,
// stays as it is.
int32_t batch_beside_engines(const Options& o, EngineKind kind, const std::vector<int>& devices, int32_t batch,
                             std::size_t neurons, int32_t delay_steps);

// One engine per entry of `devices`, each holding `builder`'s batch and `stimulus` at
// `rate_Hz`, built side by side (a CUDA engine's buffers and warm-up take a while each);
// the first fails as `first_fault` says. A CUDA device listed k times must hold k batches:
// otherwise an input_error names engine.per-device (engine.cuda-devices for one) and what
// the batches need.
std::vector<std::unique_ptr<Engine>> engines_on_devices(const Options& o, const std::vector<int>& devices, EngineKind kind,
                                                        const EngineBuilder& builder, int32_t batch, std::size_t neurons,
                                                        int32_t delay_steps, std::shared_ptr<const StimulusPlan> stimulus,
                                                        double rate_Hz, EngineFault first_fault = {});

}  // namespace flysim::app
