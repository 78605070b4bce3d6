#pragma once
// RAII owners and error checks for the CUDA runtime; included by the .cu files only.
#include <cuda_runtime.h>
#include <time.h>

#include <chrono>

#include <cstddef>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "kernels/cuda/cuda_engine.hpp"

namespace flysim::cuda {

// Throws engine_failure (kernels/engine.hpp) naming the operation and the runtime's
// error: every CUDA call after the probe goes through here, so any runtime error of a
// running engine reaches the caller as "the device failed, its state is lost". Clears
// the runtime's last error first so a later probe does not report a stale one.
inline void check(cudaError_t status, const char* what) {
  if (status == cudaSuccess) return;
  cudaGetLastError();
  throw engine_failure(std::string("CUDA engine: ") + what + " failed: " + cudaGetErrorName(status) + " (" +
                   cudaGetErrorString(status) + ")");
}

// Loads kernels' code into the context now: a graph capture cannot load a module lazily,
// and a kernel image that does not run on the device fails here, not at a launch.
inline cudaError_t load_kernels(std::initializer_list<const void*> kernels) {
  cudaFuncAttributes attributes{};
  for (const void* kernel : kernels)
    if (const cudaError_t e = cudaFuncGetAttributes(&attributes, kernel); e != cudaSuccess) return e;
  return cudaSuccess;
}

// Device memory for `count` objects of T. Released without checks: a destructor cannot
// report, and a failed free means the context is gone anyway.
template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(std::size_t count, const char* what) : count_(count) {
    if (count > 0) check(cudaMalloc(reinterpret_cast<void**>(&data_), count * sizeof(T)), what);
  }
  DeviceBuffer(DeviceBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), count_(std::exchange(other.count_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(count_, other.count_);
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() {
    if (data_ != nullptr) cudaFree(data_);
  }
  T* get() const { return data_; }
  std::size_t size() const { return count_; }

 private:
  T* data_ = nullptr;
  std::size_t count_ = 0;
};

// Pinned host memory mapped into the device's address space: kernels write it directly
// and the host reads it after synchronizing the stream, with no copy call per epoch.
template <class T>
class MappedHostBuffer {
 public:
  MappedHostBuffer() = default;
  MappedHostBuffer(std::size_t count, const char* what) : count_(count) {
    check(cudaHostAlloc(reinterpret_cast<void**>(&host_), (count > 0 ? count : 1) * sizeof(T), cudaHostAllocMapped),
          what);
    check(cudaHostGetDevicePointer(reinterpret_cast<void**>(&device_), host_, 0), what);
  }
  MappedHostBuffer(MappedHostBuffer&& other) noexcept
      : host_(std::exchange(other.host_, nullptr)),
        device_(std::exchange(other.device_, nullptr)),
        count_(std::exchange(other.count_, 0)) {}
  MappedHostBuffer& operator=(MappedHostBuffer&& other) noexcept {
    std::swap(host_, other.host_);
    std::swap(device_, other.device_);
    std::swap(count_, other.count_);
    return *this;
  }
  MappedHostBuffer(const MappedHostBuffer&) = delete;
  MappedHostBuffer& operator=(const MappedHostBuffer&) = delete;
  ~MappedHostBuffer() {
    if (host_ != nullptr) cudaFreeHost(host_);
  }
  T* host() const { return host_; }
  T* device() const { return device_; }
  std::size_t size() const { return count_; }

 private:
  T* host_ = nullptr;
  T* device_ = nullptr;
  std::size_t count_ = 0;
};

// A stream on `device`, which it makes the calling thread's current device.
class Stream {
 public:
  explicit Stream(int device) {
    check(cudaSetDevice(device), "cudaSetDevice");
    check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
  }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  ~Stream() { cudaStreamDestroy(stream_); }
  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

// An instantiated CUDA Graph: the launches one call queued on a stream, recorded once
// (stream capture) and replayed with one launch. A graph keeps its kernels' arguments as
// they were at capture: whoever replays it must rebuild it when one changes.
class Graph {
 public:
  // Records what `queue(stream)` puts on `stream` (launches only: nothing may wait or
  // allocate while a stream is captured) and instantiates it.
  template <class Queue>
  Graph(cudaStream_t stream, Queue&& queue, const char* what) {
    check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), what);
    cudaGraph_t graph = nullptr;
    try {
      queue(stream);
    } catch (...) {
      cudaStreamEndCapture(stream, &graph);
      if (graph != nullptr) cudaGraphDestroy(graph);
      throw;
    }
    const cudaError_t ended = cudaStreamEndCapture(stream, &graph);
    const cudaError_t launched = cudaGetLastError();
    const cudaError_t instantiated = ended == cudaSuccess && launched == cudaSuccess
                                         ? cudaGraphInstantiate(&exec_, graph, 0)
                                         : cudaSuccess;
    if (graph != nullptr) cudaGraphDestroy(graph);
    check(ended, what);
    check(launched, what);
    check(instantiated, what);
  }
  Graph(Graph&& other) noexcept : exec_(std::exchange(other.exec_, nullptr)) {}
  Graph& operator=(Graph&& other) noexcept {
    std::swap(exec_, other.exec_);
    return *this;
  }
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;
  // A graph still running is freed when it completes (cudaGraphExecDestroy).
  ~Graph() {
    if (exec_ != nullptr) cudaGraphExecDestroy(exec_);
  }
  void launch(cudaStream_t stream, const char* what) const { check(cudaGraphLaunch(exec_, stream), what); }

 private:
  cudaGraphExec_t exec_ = nullptr;
};

// An event for the host to wait on: polling answers within a microsecond and holds a core;
// napping (cudaEventQuery, then kNap of sleep) holds almost none and wakes no driver
// thread, as cudaEventBlockingSync does (docs/BENCHMARKS.md). 100 us is well inside a
// delay cell's 1.8 ms.
class Event {
 public:
  explicit Event(bool nap) : nap_(nap) {
    check(cudaEventCreateWithFlags(&event_, cudaEventDisableTiming), "cudaEventCreate");
  }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  ~Event() { cudaEventDestroy(event_); }
  // Waits until everything queued on `stream` so far has run.
  void wait_for(cudaStream_t stream, const char* what) {
    record(stream, what);
    wait(what);
  }
  // Marks what is queued on `stream` so far; wait() waits for it.
  void record(cudaStream_t stream, const char* what) { check(cudaEventRecord(event_, stream), what); }
  void wait(const char* what) {
    if (!nap_) {
      check(cudaEventSynchronize(event_), what);
      return;
    }
    for (cudaError_t state = cudaEventQuery(event_); state != cudaSuccess; state = cudaEventQuery(event_)) {
      if (state != cudaErrorNotReady) check(state, what);
      const timespec nap{0, kNap.count()};
      nanosleep(&nap, nullptr);
    }
  }

 private:
  static constexpr std::chrono::nanoseconds kNap{100'000};
  bool nap_;
  cudaEvent_t event_ = nullptr;
};

// Copies a host vector to the device, ordered on the stream; nothing when empty.
template <class T>
void upload(cudaStream_t stream, T* device, const std::vector<T>& host, const char* what) {
  if (!host.empty())
    check(cudaMemcpyAsync(device, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice, stream), what);
}

}  // namespace flysim::cuda
