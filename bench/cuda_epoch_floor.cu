// What the shape of a CUDA epoch costs by itself, on the GPU it runs on: a round's launch
// structure (a CUDA Graph with three dependent kernels per epoch, as the CUDA engine
// captures it) against a persistent kernel (one cooperative launch,
// three grid-wide syncs per epoch), with kernels that do nothing or only read the
// per-neuron state of a FlyWire-scale trial. So one can tell launch overhead from the
// engine's own work in the ~16 us an epoch costs with no input. A measurement, not a test.
//   make bench-cuda-floor     (build/flysim_cuda_floor_bench; built with -DFLYSIM_CUDA=ON)
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

namespace cg = cooperative_groups;

constexpr unsigned kNeurons = 138'639;  // FlyWire scale
constexpr unsigned kBlock = 256;
constexpr int kEpochs = 64;  // a round's most
constexpr int kRepeat = 20;

void check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return;
  std::fprintf(stderr, "flysim_cuda_floor_bench: %s: %s\n", what, cudaGetErrorString(e));
  std::exit(1);
}

struct NeuronArrays {
  const double* v;
  const double* g;
  const unsigned* flags;
  double* out;
};

// A phase that reads every neuron's v, g and input flags and writes nothing (the flags
// are zero): the memory traffic of the sort launch without its decisions.
__device__ void read_every_neuron(const NeuronArrays& a, unsigned first, unsigned stride) {
  for (unsigned i = first; i < kNeurons; i += stride)
    if (a.flags[i] != 0u) a.out[i] = a.v[i] * a.g[i];
}

__global__ void empty_kernel() {}

__global__ void read_kernel(NeuronArrays a) { read_every_neuron(a, blockIdx.x * blockDim.x + threadIdx.x, kNeurons); }

__global__ void persistent_kernel(int epochs, bool read, NeuronArrays a) {
  cg::grid_group grid = cg::this_grid();
  for (int e = 0; e < epochs; ++e) {
    grid.sync();  // after the scatter
    if (read) read_every_neuron(a, blockIdx.x * blockDim.x + threadIdx.x, gridDim.x * blockDim.x);
    grid.sync();  // after the sort
    grid.sync();  // after the stepwise phase
  }
}

// Microseconds per epoch of `launch`, run kRepeat times after three warm-ups.
template <class Launch>
double us_per_epoch(cudaStream_t stream, Launch launch) {
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");
  for (int w = 0; w < 3; ++w) launch();
  check(cudaStreamSynchronize(stream), "warm-up");
  check(cudaEventRecord(start, stream), "cudaEventRecord");
  for (int r = 0; r < kRepeat; ++r) launch();
  check(cudaEventRecord(stop, stream), "cudaEventRecord");
  check(cudaEventSynchronize(stop), "running");
  float ms = 0;
  check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
  check(cudaEventDestroy(start), "cudaEventDestroy");
  check(cudaEventDestroy(stop), "cudaEventDestroy");
  return ms * 1000.0 / (kRepeat * kEpochs);
}

double graph_us_per_epoch(cudaStream_t stream, bool read, const NeuronArrays& a) {
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal), "capturing");
  for (int e = 0; e < kEpochs; ++e) {
    empty_kernel<<<1280, kBlock, 0, stream>>>();  // the scatter's grid
    if (read)
      read_kernel<<<(kNeurons + kBlock - 1) / kBlock, kBlock, 0, stream>>>(a);
    else
      empty_kernel<<<(kNeurons + kBlock - 1) / kBlock, kBlock, 0, stream>>>();
    empty_kernel<<<32, kBlock, 0, stream>>>();  // the stepwise grid
  }
  check(cudaStreamEndCapture(stream, &graph), "capturing");
  check(cudaGraphInstantiate(&exec, graph, 0), "instantiating");
  const double us = us_per_epoch(stream, [&] { check(cudaGraphLaunch(exec, stream), "launching the graph"); });
  check(cudaGraphExecDestroy(exec), "cudaGraphExecDestroy");
  check(cudaGraphDestroy(graph), "cudaGraphDestroy");
  return us;
}

double persistent_us_per_epoch(cudaStream_t stream, unsigned blocks, bool read, NeuronArrays a) {
  int epochs = kEpochs;
  void* args[] = {&epochs, &read, &a};
  return us_per_epoch(stream, [&] {
    check(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(persistent_kernel), dim3(blocks), dim3(kBlock), args,
                                      0, stream),
          "launching the persistent kernel");
  });
}

}  // namespace

int main() {
  std::vector<void*> buffers;
  const auto zeros = [&](std::size_t bytes) {
    void* p = nullptr;
    check(cudaMalloc(&p, bytes), "cudaMalloc");
    check(cudaMemset(p, 0, bytes), "cudaMemset");
    buffers.push_back(p);
    return p;
  };
  const NeuronArrays a{static_cast<const double*>(zeros(kNeurons * sizeof(double))),
                       static_cast<const double*>(zeros(kNeurons * sizeof(double))),
                       static_cast<const unsigned*>(zeros(kNeurons * sizeof(unsigned))),
                       static_cast<double*>(zeros(kNeurons * sizeof(double)))};
  cudaStream_t stream;
  check(cudaStreamCreate(&stream), "cudaStreamCreate");
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  int per_sm = 0;
  check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, persistent_kernel, kBlock, 0), "occupancy");

  std::printf("# %s, %d multiprocessors; us per epoch, the mean over %d rounds of %d epochs\n", prop.name,
              prop.multiProcessorCount, kRepeat, kEpochs);
  std::printf("graph, 3 kernels per epoch, all empty:                %6.2f\n", graph_us_per_epoch(stream, false, a));
  std::printf("graph, 3 kernels per epoch, the middle reads neurons: %6.2f\n", graph_us_per_epoch(stream, true, a));
  for (const int per : {1, 2, per_sm}) {
    const unsigned blocks = static_cast<unsigned>(per * prop.multiProcessorCount);
    for (const bool read : {false, true})
      std::printf("persistent, %4u blocks (%d per SM), 3 grid syncs%s: %6.2f\n", blocks, per,
                  read ? ", reads neurons" : ",              ", persistent_us_per_epoch(stream, blocks, read, a));
  }
  for (void* p : buffers) check(cudaFree(p), "cudaFree");
  return 0;
}
