#pragma once
// engine.cuda-devices and engine.per-device: the CUDA devices a screen spreads its
// experiments over (apps/flysim/screen/screen_engines.hpp) and a run its batches
// (kernels/engine_group.hpp), and how many engines each runs.
// Several engines on one device overlap one engine's host work and launches with
// another's kernels (docs/BENCHMARKS.md, "Screens").
#include <string>
#include <vector>

#include "apps/flysim/options/options.hpp"

namespace flysim::app {

inline constexpr const char* kCudaDevicesKey = "engine.cuda-devices";
inline constexpr const char* kPerDeviceKey = "engine.per-device";
// engine.per-device's bounds, and a screen's default: enough engines to overlap one's
// host work with another's kernels.
inline constexpr int kMaxEnginesPerDevice = 64;
inline constexpr int kScreenEnginesPerDevice = 4;

// The options' specs: engine.cuda-devices ("" (engine.cuda-device), "all", or "0,1,...")
// and engine.per-device, `per_device` by default (a screen's "4", a run's "1").
std::vector<OptionSpec> cuda_devices_specs(const std::string& per_device);

// One device number per engine: each device engine.per-device times, in the order
// given (engine.cuda-device when engine.cuda-devices is empty, every device CUDA finds
// for "all"; a device listed twice holds twice as many). With engine.kind=cpu, one
// engine; either option given then is an input_error naming it, as is a number out of
// range, a device CUDA does not find or an empty item.
std::vector<int> cuda_devices(const Options& o);

}  // namespace flysim::app
