#include "kernels/fault_injecting_engine.hpp"

#include <stdexcept>

namespace flysim {

FaultInjectingEngine::FaultInjectingEngine(std::unique_ptr<Engine> inner, uint64_t fault_after_epochs,
                                           bool export_fails)
    : inner_(std::move(inner)), fault_after_epochs_(fault_after_epochs), export_fails_(export_fails) {
  if (!inner_) throw std::invalid_argument("FaultInjectingEngine needs an engine to wrap");
}

std::string FaultInjectingEngine::describe() const {
  return inner_->describe() + " (fault after " + std::to_string(fault_after_epochs_) + " epochs)";
}

BatchSpikes FaultInjectingEngine::advance_batch(kernels::EpochSpan span) {
  if (failed_ || completed_ == fault_after_epochs_) {
    failed_ = true;
    throw engine_failure("injected fault: " + describe() + " failed in epoch [" + std::to_string(span.first) + ", +" +
                         std::to_string(span.steps) + "), its state is lost");
  }
  BatchSpikes spikes = inner_->advance_batch(span);
  ++completed_;
  return spikes;
}

std::vector<EngineState> FaultInjectingEngine::export_batch() const {
  if (failed_ && export_fails_)
    throw engine_failure("injected fault: " + describe() + " failed earlier, its state cannot be exported");
  return inner_->export_batch();
}

void FaultInjectingEngine::import_batch(const std::vector<EngineState>& states) { inner_->import_batch(states); }

void FaultInjectingEngine::start_at_rest(int32_t first_trial, int32_t count) {
  inner_->start_at_rest(first_trial, count);
}

void FaultInjectingEngine::apply_weights(const std::vector<WeightChange>& changes) { inner_->apply_weights(changes); }

void FaultInjectingEngine::set_stimulus(std::shared_ptr<const StimulusPlan> stimulus, uint32_t poisson_threshold) {
  inner_->set_stimulus(std::move(stimulus), poisson_threshold);
}

}  // namespace flysim
