#pragma once
// An engine that fails on purpose, for tests of a service's fallback to the CPU pool
// (docs/ARCHITECTURE.md, "Swapping the engine") where CI has no GPU to lose.
#include <cstdint>
#include <memory>

#include "kernels/engine.hpp"

namespace flysim {

// When an engine is to fail (engine_factory.hpp's make_engine wraps it when asked).
struct EngineFault {
  // The advance after this many completed advances throws engine_failure; 0: never.
  uint64_t after_epochs = 0;
  // After the failure, export_state throws engine_failure too, as a lost device's does;
  // otherwise it still returns the state before the failed epoch, which a service must
  // not rely on (a real failure may leave no state to read).
  bool export_fails = false;
};

// Passes every call to the engine it wraps until that engine has completed
// `fault_after_epochs` advances; the next advance throws engine_failure without calling
// it. The engine then stays failed, like a lost device: every later advance throws
// whatever is imported, so a service must build another engine. The wrapped engine's
// spikes and state are unchanged up to the failure.
class FaultInjectingEngine final : public Engine {
 public:
  FaultInjectingEngine(std::unique_ptr<Engine> inner, uint64_t fault_after_epochs, bool export_fails = false);
  // The inner engine's, plus " (fault after N epochs)".
  std::string describe() const override;
  int32_t batch_capacity() const override { return inner_->batch_capacity(); }
  BatchSpikes advance_batch(kernels::EpochSpan span) override;
  std::vector<EngineState> export_batch() const override;
  void import_batch(const std::vector<EngineState>& states) override;
  void start_at_rest(int32_t first_trial, int32_t count) override;
  int32_t cell_steps() const override { return inner_->cell_steps(); }
  void apply_weights(const std::vector<WeightChange>& changes) override;
  void set_stimulus(std::shared_ptr<const StimulusPlan> stimulus, uint32_t poisson_threshold) override;

 private:
  std::unique_ptr<Engine> inner_;
  uint64_t fault_after_epochs_;
  bool export_fails_;
  uint64_t completed_ = 0;
  bool failed_ = false;
};

}  // namespace flysim
