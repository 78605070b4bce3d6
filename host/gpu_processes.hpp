#pragma once
// Who else uses the GPU (host/THREADS.md, "A shared GPU"): the processes NVML reports
// on each GPU, with their memory. NVML is loaded at run time (dlopen of
// libnvidia-ml.so.1, the driver's library), so flysim builds and runs without it: a
// machine with no NVIDIA driver gets "NVML not available" and nothing else. Read only:
// flysim queries, it never changes a setting or touches a neighbour.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "model/named_field.hpp"

namespace flysim {

struct GpuProcess {
  uint32_t gpu = 0;        // NVML's device index
  uint32_t pid = 0;
  std::string name;        // the process's name, "" when NVML cannot say
  double used_MiB = -1.0;  // its GPU memory; negative when the driver does not say
};
// Its one field list, with the JSON keys (model/FIELDS.md).
template <same_unqualified<GpuProcess> T, class F>
decltype(auto) fields(T& x, F&& f) {
  return f(named("gpu", x.gpu), named("pid", x.pid), named("name", x.name), named("used_mib", x.used_MiB));
}

struct GpuDevice {
  uint32_t index = 0;
  std::string name;            // e.g. "NVIDIA H200"
  double used_MiB = 0.0, total_MiB = 0.0;
  std::vector<GpuProcess> processes;  // compute and graphics processes, by pid
};

// The library name NVML is loaded from by default.
inline constexpr const char* kNvmlLibrary = "libnvidia-ml.so.1";

class NvmlReader {
 public:
  // Loads `library` and initialises NVML; never throws: problem() says why it is not
  // available ("" when it is).
  explicit NvmlReader(const std::string& library = kNvmlLibrary);
  ~NvmlReader();
  NvmlReader(const NvmlReader&) = delete;
  NvmlReader& operator=(const NvmlReader&) = delete;

  bool available() const { return problem_.empty(); }
  const std::string& problem() const { return problem_; }
  // Every GPU with its processes. Throws std::runtime_error with NVML's message when a
  // query fails.
  std::vector<GpuDevice> devices() const;

 private:
  struct Api;
  void* library_ = nullptr;
  std::unique_ptr<Api> api_;
  std::string problem_;
};

// What status and doctor show: the processes other than `own_pid` on the GPUs that
// `own_pid` uses, or on every GPU when it uses none (the CPU engine, or a process whose
// pid NVML sees under another pid namespace).
struct GpuNeighbours {
  std::string note;                   // what was read, or why nothing could be
  std::vector<GpuProcess> processes;  // the neighbours
};
GpuNeighbours gpu_neighbours(const NvmlReader& nvml, uint32_t own_pid);

}  // namespace flysim
