#include <cuda_runtime.h>

#include "kernels/cuda/cuda_probe.hpp"
#include "kernels/cuda/epoch_kernels.cuh"

namespace flysim {

CudaProbe probe_cuda(int device) {
  CudaProbe p;
  p.device = device;
  p.binary_archs = FLYSIM_CUDA_ARCHS;
  // With cudart linked statically the runtime version is the toolkit's; the driver
  // version is 0 when libcuda.so cannot be loaded at all.
  cudaRuntimeGetVersion(&p.runtime_version);
  if (cudaDriverGetVersion(&p.driver_version) != cudaSuccess) p.driver_version = 0;
  const std::string runtime = cuda_version_string(p.runtime_version);

  int count = 0;
  const cudaError_t counted = cudaGetDeviceCount(&count);
  cudaGetLastError();
  if (counted != cudaSuccess || count == 0) {
    if (p.driver_version == 0)
      p.problem = "no NVIDIA driver could be loaded (libcuda.so): install an NVIDIA driver for CUDA " + runtime +
                  " or newer, or use the CPU engine";
    else if (counted == cudaErrorInsufficientDriver || p.driver_version < p.runtime_version)
      p.problem = "the NVIDIA driver supports CUDA " + cuda_version_string(p.driver_version) +
                  " but this flysim was built with CUDA runtime " + runtime +
                  ": upgrade the driver (it must be >= the runtime), or rebuild flysim with CUDA " +
                  cuda_version_string(p.driver_version) + " or older";
    else if (counted == cudaErrorNoDevice || count == 0)
      p.problem = "no CUDA device is visible (check nvidia-smi and CUDA_VISIBLE_DEVICES), or use the CPU engine";
    else
      p.problem = std::string("CUDA could not start: ") + cudaGetErrorName(counted) + " (" +
                  cudaGetErrorString(counted) + "); check nvidia-smi, or use the CPU engine";
    return p;
  }
  p.device_present = true;
  p.device_count = count;
  const std::string name = "device " + std::to_string(device);
  if (device < 0 || device >= count) {
    p.problem = "engine.cuda-device=" + std::to_string(device) + " names no device: " + std::to_string(count) +
                " CUDA device(s) are visible (0.." + std::to_string(count - 1) + ")";
    return p;
  }
  cudaDeviceProp prop{};
  if (const cudaError_t e = cudaGetDeviceProperties(&prop, device); e != cudaSuccess) {
    cudaGetLastError();
    p.problem = "CUDA " + name + " cannot be queried: " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) +
                "); check nvidia-smi";
    return p;
  }
  p.device_name = prop.name;
  p.cc_major = prop.major;
  p.cc_minor = prop.minor;
  // The free memory and the kernel attributes are those of the calling thread's current
  // device.
  const cudaError_t selected = cudaSetDevice(device);
  std::size_t free_bytes = 0, total_bytes = 0;
  if (selected == cudaSuccess && cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess)
    p.free_memory_bytes = free_bytes;
  else
    cudaGetLastError();

  cudaFuncAttributes attributes{};
  const cudaError_t loaded = selected != cudaSuccess ? selected : cuda::advance_kernel_attributes(&attributes);
  cudaGetLastError();
  p.binary_runs_on_device = loaded == cudaSuccess;
  if (loaded == cudaErrorNoKernelImageForDevice || loaded == cudaErrorInvalidDeviceFunction) {
    const std::string sm = std::to_string(p.cc_major) + std::to_string(p.cc_minor);
    p.problem = "this flysim holds GPU code for " + p.binary_archs + " only, and " + name + " (" + p.device_name +
                ") is sm_" + sm + ": rebuild with -DCMAKE_CUDA_ARCHITECTURES=" + sm + "-real";
  } else if (loaded == cudaErrorUnsupportedPtxVersion || loaded == cudaErrorInsufficientDriver) {
    p.problem = "the NVIDIA driver (CUDA " + cuda_version_string(p.driver_version) +
                ") cannot load this flysim's GPU code, built with CUDA " + runtime +
                ": upgrade the driver (it must be >= the runtime)";
  } else if (loaded != cudaSuccess) {
    p.problem = "the CUDA engine's kernels cannot be loaded on " + name + ": " + cudaGetErrorName(loaded) +
                " (" + cudaGetErrorString(loaded) + ")";
  }
  return p;
}

}  // namespace flysim
