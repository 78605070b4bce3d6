#pragma once
// The few NVML types and codes flysim uses, as the driver's nvml.h declares them (a
// stable C ABI): gpu_processes.cpp calls the library through them, and the tests' stand-in
// library (tests/support/fake_nvml.cpp) implements them, so both agree on the layout.
namespace flysim::nvml {

using Return = int;
constexpr Return kSuccess = 0;
constexpr Return kInsufficientSize = 7;
constexpr unsigned long long kValueNotAvailable = ~0ull;

// nvmlProcessInfo_t of the _v2/_v3 process calls.
struct ProcessInfo {
  unsigned int pid;
  unsigned long long used_gpu_memory;
  unsigned int gpu_instance_id;
  unsigned int compute_instance_id;
};

// nvmlMemory_t.
struct Memory {
  unsigned long long total, free, used;
};

}  // namespace flysim::nvml
