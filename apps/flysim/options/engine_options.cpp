#include "apps/flysim/options/engine_options.hpp"

#include <fmt/format.h>

#include <cstdlib>

#include "host/engine_limits.hpp"
#include "model/errors.hpp"

namespace flysim::app {

int cuda_device(const Options& o) {
  const int64_t device = o.integer("engine.cuda-device");
  if (device < 0 || device > kMaxCudaDevice)
    o.reject("engine.cuda-device", fmt::format("must be 0..{} (a CUDA device number)", kMaxCudaDevice));
  return static_cast<int>(device);
}

EngineKind engine_kind(const Options& o) {
  if (const char* env = std::getenv("FLY_LIF_CUDA"); env && *env) {
    const std::string v = env;
    if (v == "1") return EngineKind::cuda;
    if (v == "0") return EngineKind::cpu;
    throw input_error("environment variable FLY_LIF_CUDA='" + v + "' must be 1 (cuda) or 0 (cpu)");
  }
  return o.text("engine.kind") == "cuda" ? EngineKind::cuda : EngineKind::cpu;
}

}  // namespace flysim::app
