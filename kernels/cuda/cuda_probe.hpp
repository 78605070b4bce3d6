#pragma once
// What `flysim doctor` and make_cuda_engine learn about the CUDA device before using it.
// Plain C++: nothing of CUDA leaks out of kernels/cuda.
#include <cstddef>
#include <string>

namespace flysim {

struct CudaProbe {
  int device = 0;  // the device probed (engine.cuda-device): the one the engine uses
  bool device_present = false;
  int device_count = 0;
  std::string device_name;
  int cc_major = 0, cc_minor = 0;
  // As cudaDriverGetVersion / cudaRuntimeGetVersion report them (1000 * major + 10 * minor);
  // driver_version is 0 when no driver could be loaded.
  int driver_version = 0, runtime_version = 0;
  std::string binary_archs;  // GPU code in this binary, e.g. "sm_75 sm_80 sm_86 sm_89 sm_90 compute_90"
  bool binary_runs_on_device = false;  // the engine's kernels have code (real or PTX) for the device
  std::size_t free_memory_bytes = 0;   // of the device, now (sizes run.batch=auto)
  // Empty when the CUDA engine can run; else one sentence: what is wrong and what to do.
  std::string problem;
};

// Probes `device`. Never throws; safe to call on a machine without a GPU or driver.
CudaProbe probe_cuda(int device);

// Why the CUDA engine cannot be built after `probe` found a problem (the input_error's text).
inline std::string cuda_cannot_run(const CudaProbe& probe) { return "the CUDA engine cannot run here: " + probe.problem; }

// "13.0" from 13000. Inline: `flysim doctor` prints versions in builds without CUDA too.
inline std::string cuda_version_string(int version) {
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

}  // namespace flysim
