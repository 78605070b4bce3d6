#include "kernels/engine_factory.hpp"

#include "kernels/cpu/cpu_engine.hpp"
#include "model/errors.hpp"
#if FLYSIM_HAVE_CUDA
#include "kernels/cuda/cuda_engine.hpp"
#endif

namespace flysim {

std::string to_string(EngineKind kind) { return kind == EngineKind::cpu ? "cpu" : "cuda"; }

bool cuda_compiled_in() { return FLYSIM_HAVE_CUDA != 0; }

CudaProbe probe_cuda_backend(int device) {
#if FLYSIM_HAVE_CUDA
  return probe_cuda(device);
#else
  CudaProbe probe;
  probe.device = device;
  probe.problem = "this flysim was built without CUDA: rebuild with -DFLYSIM_CUDA=ON (make does so when nvcc is installed)";
  return probe;
#endif
}

namespace {
std::unique_ptr<Engine> make_backend(EngineKind kind, EngineSetup setup, unsigned threads) {
  if (kind == EngineKind::cpu) return std::make_unique<CpuEngine>(std::move(setup), threads);
#if FLYSIM_HAVE_CUDA
  return make_cuda_engine(std::move(setup));
#else
  throw input_error(
      "engine.kind=cuda (or FLY_LIF_CUDA=1) asks for the CUDA engine, but this flysim was built without CUDA: "
      "rebuild with -DFLYSIM_CUDA=ON (see README.md), or use engine.kind=cpu");
#endif
}
}  // namespace

std::unique_ptr<Engine> make_engine(EngineKind kind, EngineSetup setup, unsigned threads, EngineFault fault) {
  std::unique_ptr<Engine> engine = make_backend(kind, std::move(setup), threads);
  if (fault.after_epochs == 0) return engine;
  return std::make_unique<FaultInjectingEngine>(std::move(engine), fault.after_epochs, fault.export_fails);
}

}  // namespace flysim
