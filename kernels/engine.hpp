#pragma once
// The engine interface every backend implements (kernels/cpu, kernels/cuda). Plain
// C++: no actors here; actors/engine_actor owns one of these.
#include <memory>
#include <string>
#include <vector>

#include "kernels/lif.hpp"
#include "model/engine_state.hpp"
#include "model/lif_constants.hpp"
#include "model/network.hpp"
#include "model/plasticity.hpp"
#include "model/spike.hpp"
#include "model/stimulus.hpp"

namespace flysim {

// What every engine is built from; shared, read-only, between engines.
struct EngineSetup {
  std::shared_ptr<const Network> network;
  std::shared_ptr<const StimulusPlan> stimulus;
  LifConstants constants;
  // The plastic connections (model/plasticity.hpp), ascending edge indices; null or
  // empty when plasticity is off.
  std::shared_ptr<const std::vector<uint64_t>> plastic_edges;
};

class Engine {
 public:
  virtual ~Engine() = default;
  // e.g. "cpu pool, 2 threads".
  virtual std::string describe() const = 0;
  // Advances through span (it must start at the state's next step and stay inside one
  // delay cell); returns the epoch's spikes sorted by (step, neuron).
  virtual std::vector<Spike> advance(kernels::EpochSpan span) = 0;
  // The state includes the plastic connections' weights; an imported state whose
  // plastic_weights is empty keeps the engine's (a new trial keeps what was learned).
  virtual EngineState export_state() const = 0;
  virtual void import_state(const EngineState& state) = 0;
  // Sets plastic connections' weights, between epochs: every delivery from the next
  // advance on (the spikes still in the delay ring included) uses them.
  virtual void apply_weights(const std::vector<WeightChange>& changes) = 0;
};

// Steps of a delay cell: cells are [kD, (k+1)D); an epoch never crosses one.
inline int32_t cell_start(int32_t step, int32_t delay_steps) { return step - step % delay_steps; }

// The next epoch from next_step: to the end of its delay cell or to end_step.
inline kernels::EpochSpan next_epoch(int32_t next_step, int32_t end_step, int32_t delay_steps) {
  const int32_t cell_end = cell_start(next_step, delay_steps) + delay_steps;
  return {next_step, (end_step < cell_end ? end_step : cell_end) - next_step};
}

// Advances from the engine's current step to end_step, epoch by epoch; all spikes.
std::vector<Spike> run_until(Engine& engine, int32_t next_step, int32_t end_step, int32_t delay_steps);

// Throws std::logic_error unless span starts at next_step and fits in one cell.
void check_span(kernels::EpochSpan span, int32_t next_step, int32_t delay_steps);

}  // namespace flysim
