#include "host/gpu_processes.hpp"

#include "host/nvml_abi.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace flysim {

namespace {
using nvml_return = nvml::Return;
using nvml_device = struct nvml_device_st*;
using nvml_process_info = nvml::ProcessInfo;
using nvml_memory = nvml::Memory;
constexpr nvml_return kNvmlSuccess = nvml::kSuccess;
constexpr nvml_return kNvmlInsufficientSize = nvml::kInsufficientSize;
constexpr unsigned long long kNvmlValueNotAvailable = nvml::kValueNotAvailable;
using processes_fn = nvml_return (*)(nvml_device, unsigned int*, nvml_process_info*);

template <class F>
F symbol(void* library, const char* name) {
  return reinterpret_cast<F>(dlsym(library, name));
}

constexpr double kMiB = 1024.0 * 1024.0;
}  // namespace

struct NvmlReader::Api {
  nvml_return (*init)() = nullptr;
  nvml_return (*shutdown)() = nullptr;
  const char* (*error_string)(nvml_return) = nullptr;
  nvml_return (*device_count)(unsigned int*) = nullptr;
  nvml_return (*device_by_index)(unsigned int, nvml_device*) = nullptr;
  nvml_return (*device_name)(nvml_device, char*, unsigned int) = nullptr;
  nvml_return (*memory_info)(nvml_device, nvml_memory*) = nullptr;
  nvml_return (*process_name)(unsigned int, char*, unsigned int) = nullptr;
  processes_fn compute = nullptr, graphics = nullptr;

  std::string why(nvml_return code) const { return error_string ? error_string(code) : fmt::format("NVML error {}", code); }
  void check(nvml_return code, const char* call) const {
    if (code != kNvmlSuccess) throw std::runtime_error(fmt::format("NVML {}: {}", call, why(code)));
  }
};

NvmlReader::NvmlReader(const std::string& library) {
  library_ = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library_) {
    const char* err = dlerror();
    problem_ = fmt::format("NVML not available ({}: {})", library, err ? err : "cannot be loaded");
    return;
  }
  api_ = std::make_unique<Api>();
  Api& a = *api_;
  a.init = symbol<decltype(a.init)>(library_, "nvmlInit_v2");
  a.shutdown = symbol<decltype(a.shutdown)>(library_, "nvmlShutdown");
  a.error_string = symbol<decltype(a.error_string)>(library_, "nvmlErrorString");
  a.device_count = symbol<decltype(a.device_count)>(library_, "nvmlDeviceGetCount_v2");
  a.device_by_index = symbol<decltype(a.device_by_index)>(library_, "nvmlDeviceGetHandleByIndex_v2");
  a.device_name = symbol<decltype(a.device_name)>(library_, "nvmlDeviceGetName");
  a.memory_info = symbol<decltype(a.memory_info)>(library_, "nvmlDeviceGetMemoryInfo");
  a.process_name = symbol<decltype(a.process_name)>(library_, "nvmlSystemGetProcessName");
  a.compute = symbol<processes_fn>(library_, "nvmlDeviceGetComputeRunningProcesses_v3");
  if (!a.compute) a.compute = symbol<processes_fn>(library_, "nvmlDeviceGetComputeRunningProcesses_v2");
  a.graphics = symbol<processes_fn>(library_, "nvmlDeviceGetGraphicsRunningProcesses_v3");
  if (!a.graphics) a.graphics = symbol<processes_fn>(library_, "nvmlDeviceGetGraphicsRunningProcesses_v2");
  if (!a.init || !a.shutdown || !a.device_count || !a.device_by_index || !a.device_name || !a.memory_info || !a.compute) {
    problem_ = fmt::format("NVML not available ({} lacks the calls flysim needs: a driver older than R450?)", library);
    return;
  }
  if (const nvml_return code = a.init(); code != kNvmlSuccess) {
    problem_ = fmt::format("NVML not available (nvmlInit: {})", a.why(code));
    a.init = nullptr;  // nothing to shut down
  }
}

NvmlReader::~NvmlReader() {
  if (api_ && api_->init && problem_.empty()) api_->shutdown();
  if (library_) dlclose(library_);
}

std::vector<GpuDevice> NvmlReader::devices() const {
  std::vector<GpuDevice> found;
  if (!available()) return found;
  const Api& a = *api_;
  unsigned int count = 0;
  a.check(a.device_count(&count), "nvmlDeviceGetCount");
  for (unsigned int index = 0; index < count; ++index) {
    nvml_device device = nullptr;
    a.check(a.device_by_index(index, &device), "nvmlDeviceGetHandleByIndex");
    GpuDevice d;
    d.index = index;
    char name[96] = {};
    a.check(a.device_name(device, name, sizeof(name)), "nvmlDeviceGetName");
    d.name = name;
    nvml_memory memory{};
    a.check(a.memory_info(device, &memory), "nvmlDeviceGetMemoryInfo");
    d.used_MiB = static_cast<double>(memory.used) / kMiB;
    d.total_MiB = static_cast<double>(memory.total) / kMiB;
    for (processes_fn list : {a.compute, a.graphics}) {
      if (!list) continue;
      std::vector<nvml_process_info> infos(16);
      unsigned int n = static_cast<unsigned int>(infos.size());
      nvml_return code = list(device, &n, infos.data());
      for (int attempt = 0; code == kNvmlInsufficientSize && attempt < 4; ++attempt) {
        infos.resize(n + 16);
        n = static_cast<unsigned int>(infos.size());
        code = list(device, &n, infos.data());
      }
      a.check(code, "nvmlDeviceGet...RunningProcesses");
      for (unsigned int k = 0; k < n; ++k) {
        const nvml_process_info& info = infos[k];
        if (std::any_of(d.processes.begin(), d.processes.end(), [&](const GpuProcess& p) { return p.pid == info.pid; })) continue;
        GpuProcess p;
        p.gpu = index;
        p.pid = info.pid;
        p.used_MiB = info.used_gpu_memory == kNvmlValueNotAvailable ? -1.0 : static_cast<double>(info.used_gpu_memory) / kMiB;
        char process[256] = {};
        if (a.process_name && a.process_name(info.pid, process, sizeof(process)) == kNvmlSuccess) p.name = process;
        d.processes.push_back(std::move(p));
      }
    }
    std::sort(d.processes.begin(), d.processes.end(), [](const GpuProcess& x, const GpuProcess& y) { return x.pid < y.pid; });
    found.push_back(std::move(d));
  }
  return found;
}

GpuNeighbours gpu_neighbours(const NvmlReader& nvml, uint32_t own_pid) {
  GpuNeighbours n;
  if (!nvml.available()) {
    n.note = nvml.problem();
    return n;
  }
  std::vector<GpuDevice> devices;
  try {
    devices = nvml.devices();
  } catch (const std::exception& e) {
    n.note = e.what();
    return n;
  }
  if (devices.empty()) {
    n.note = "NVML sees no GPU";
    return n;
  }
  const auto holds_self = [&](const GpuDevice& d) {
    return std::any_of(d.processes.begin(), d.processes.end(), [&](const GpuProcess& p) { return p.pid == own_pid; });
  };
  const bool uses_one = std::any_of(devices.begin(), devices.end(), holds_self);
  std::vector<std::string> shown;
  for (const GpuDevice& d : devices) {
    if (uses_one && !holds_self(d)) continue;
    shown.push_back(fmt::format("GPU {} ({}, {:.0f} of {:.0f} MiB used)", d.index, d.name, d.used_MiB, d.total_MiB));
    for (const GpuProcess& p : d.processes)
      if (p.pid != own_pid) n.processes.push_back(p);
  }
  n.note = fmt::format("{}: {}", uses_one ? "on the GPU flysim uses" : "flysim uses no GPU now; on every GPU",
                       fmt::join(shown, "; "));
  return n;
}

}  // namespace flysim
