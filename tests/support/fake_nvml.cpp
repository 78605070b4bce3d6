// A stand-in for the NVIDIA driver's libnvidia-ml.so.1, for the tests of the NVML reader
// (host/gpu_processes.hpp) on machines without a GPU: the same C entry points, one GPU
// "Fake GPU" with 80 GiB of which 3 GiB used, and two compute processes: the calling
// process itself (1 GiB) and pid 4242 (2 GiB), plus a graphics process 4243 whose memory
// the driver does not report.
#include <unistd.h>

#include <cstring>

#include "host/nvml_abi.hpp"

namespace {
using flysim::nvml::ProcessInfo;
constexpr unsigned long long kGiB = 1ull << 30;
int device_tag = 0;

int list(unsigned int* count, ProcessInfo* infos, const ProcessInfo* have, unsigned int n) {
  if (*count < n) {
    *count = n;
    return flysim::nvml::kInsufficientSize;
  }
  for (unsigned int k = 0; k < n; ++k) infos[k] = have[k];
  *count = n;
  return flysim::nvml::kSuccess;
}
}  // namespace

extern "C" {
int nvmlInit_v2() { return 0; }
int nvmlShutdown() { return 0; }
const char* nvmlErrorString(int) { return "fake NVML error"; }
int nvmlDeviceGetCount_v2(unsigned int* count) {
  *count = 1;
  return 0;
}
int nvmlDeviceGetHandleByIndex_v2(unsigned int, void** device) {
  *device = &device_tag;
  return 0;
}
int nvmlDeviceGetName(void*, char* name, unsigned int length) {
  std::strncpy(name, "Fake GPU", length);
  return 0;
}
int nvmlDeviceGetMemoryInfo(void*, flysim::nvml::Memory* memory) {
  *memory = {80 * kGiB, 77 * kGiB, 3 * kGiB};
  return 0;
}
int nvmlSystemGetProcessName(unsigned int pid, char* name, unsigned int length) {
  std::strncpy(name, pid == 4242 ? "neighbour" : "other", length);
  return 0;
}
int nvmlDeviceGetComputeRunningProcesses_v3(void*, unsigned int* count, ProcessInfo* infos) {
  const ProcessInfo have[] = {{static_cast<unsigned int>(::getpid()), 1 * kGiB, 0, 0}, {4242, 2 * kGiB, 0, 0}};
  return list(count, infos, have, 2);
}
int nvmlDeviceGetGraphicsRunningProcesses_v3(void*, unsigned int* count, ProcessInfo* infos) {
  const ProcessInfo have[] = {{4243, flysim::nvml::kValueNotAvailable, 0, 0}};
  return list(count, infos, have, 1);
}
}
