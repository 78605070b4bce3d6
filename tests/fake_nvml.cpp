// A stand-in for the NVIDIA driver's libnvidia-ml.so.1, for the tests of the NVML reader
// (model/gpu_processes.hpp) on machines without a GPU: the same C entry points, one GPU
// "Fake GPU" with 80 GiB of which 3 GiB used, and two compute processes: the calling
// process itself (1 GiB) and pid 4242 (2 GiB), plus a graphics process 4243 whose memory
// the driver does not report.
#include <unistd.h>

#include <cstring>

namespace {
struct nvml_process_info {
  unsigned int pid;
  unsigned long long used_gpu_memory;
  unsigned int gpu_instance_id;
  unsigned int compute_instance_id;
};
struct nvml_memory {
  unsigned long long total, free, used;
};
constexpr unsigned long long kGiB = 1ull << 30;
int device_tag = 0;

int list(unsigned int* count, nvml_process_info* infos, const nvml_process_info* have, unsigned int n) {
  if (*count < n) {
    *count = n;
    return 7;  // NVML_ERROR_INSUFFICIENT_SIZE
  }
  for (unsigned int k = 0; k < n; ++k) infos[k] = have[k];
  *count = n;
  return 0;
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
int nvmlDeviceGetMemoryInfo(void*, nvml_memory* memory) {
  *memory = {80 * kGiB, 77 * kGiB, 3 * kGiB};
  return 0;
}
int nvmlSystemGetProcessName(unsigned int pid, char* name, unsigned int length) {
  std::strncpy(name, pid == 4242 ? "neighbour" : "other", length);
  return 0;
}
int nvmlDeviceGetComputeRunningProcesses_v3(void*, unsigned int* count, nvml_process_info* infos) {
  const nvml_process_info have[] = {{static_cast<unsigned int>(::getpid()), 1 * kGiB, 0, 0}, {4242, 2 * kGiB, 0, 0}};
  return list(count, infos, have, 2);
}
int nvmlDeviceGetGraphicsRunningProcesses_v3(void*, unsigned int* count, nvml_process_info* infos) {
  const nvml_process_info have[] = {{4243, ~0ull, 0, 0}};
  return list(count, infos, have, 1);
}
}
