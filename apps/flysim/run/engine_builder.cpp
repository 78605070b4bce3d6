#include "apps/flysim/run/engine_builder.hpp"

#include <utility>

#include "model/lif_params.hpp"

namespace flysim::app {

EngineBuilder::EngineBuilder(EngineSetup setup, unsigned default_threads, double dt_ms)
    : setup_(std::move(setup)), default_threads_(default_threads), dt_ms_(dt_ms) {}

std::unique_ptr<Engine> EngineBuilder::make(EngineKind kind, unsigned threads, std::shared_ptr<const StimulusPlan> stimulus,
                                            double rate_Hz, EngineFault fault) const {
  EngineSetup setup = setup_;
  setup.stimulus = std::move(stimulus);
  setup.constants.poisson_threshold = poisson_threshold(rate_Hz, dt_ms_);
  return make_engine(kind, std::move(setup), threads > 0 ? threads : default_threads_, fault);
}

EngineBuilder EngineBuilder::on_device(int device) const {
  EngineBuilder other = *this;
  other.setup_.cuda_device = device;
  return other;
}

EngineBuilder EngineBuilder::with_batch(int32_t batch) const {
  EngineBuilder other = *this;
  other.setup_.batch = batch;
  return other;
}

}  // namespace flysim::app
