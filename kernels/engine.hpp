#pragma once
// The engine interface every backend implements (kernels/cpu, kernels/cuda). Plain
// C++: no actors here; actors/engine_actor owns one of these.
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/epoch_rules.hpp"
#include "kernels/lif.hpp"
#include "model/engine_state.hpp"
#include "model/lif_constants.hpp"
#include "model/network.hpp"
#include "model/plasticity.hpp"
#include "model/spike.hpp"
#include "model/stimulus.hpp"

namespace flysim {

// How the host thread waits for a device (CUDA) to finish an epoch. Polling answers a
// few microseconds sooner, which an unpaced run feels on every 1.8 ms epoch; napping
// holds almost no host CPU while the device works, which is what a paced service wants.
// Never changes what is computed.
enum class HostWait { poll, nap };

// What every engine is built from; shared, read-only, between engines.
struct EngineSetup {
  std::shared_ptr<const Network> network;
  std::shared_ptr<const StimulusPlan> stimulus;
  LifConstants constants;
  // The plastic connections (model/plasticity.hpp), ascending edge indices; null or
  // empty when plasticity is off.
  std::shared_ptr<const std::vector<uint64_t>> plastic_edges;
  HostWait host_wait = HostWait::poll;
  int cuda_device = 0;  // the device a CUDA engine runs on (engine.cuda-device)
  // Trials the engine holds and advances together (run.batch): each has its own state
  // and generator key, the network is shared. Memory grows with it.
  int32_t batch = 1;
  // The CPU pool spreads a trial's epoch over its threads only from this many listed
  // (perturbed) neurons on; below, one thread runs it, since waking the others and
  // meeting them at the barrier costs more than the share they would take (the
  // measurements behind the default: docs/BENCHMARKS.md). Results are the same either
  // way; tests set 0 so that small networks are spread too.
  std::size_t cpu_spread_from = 50'000;
  // A CPU trial lists every neuron, each at the entry of its index, once this share of
  // the neurons is listed, and goes back to listing the active ones when fewer than half
  // that share stay active: the scatter then adds without an entry lookup and the sweep
  // reads the delay ring in neuron order (the dense regime). Above 1 (or NaN): never.
  // Results are the same either way.
  double cpu_list_all_from = 0.5;
  // While every neuron is listed, a CPU trial sweeps a whole delay cell block by block of
  // this many neurons: the cell's deliveries onto a block go into a delay ring of the
  // block alone (delay steps x this x 8 bytes: 590 KB, within a core's L2), which the
  // block's sweep then reads, instead of into the trial's (20 MB at FlyWire scale).
  // Clamped to [1, 2^26]. Results are the same for every size.
  uint32_t cpu_block_neurons = 4096;
  // A CUDA batch of several trials pulls each whole delay cell's input by target
  // (kernels/cuda/README.md, "A pulled cell") once the busiest cell of its last round
  // held this many spikes per neuron and per 32 trials of the batch; below, it pushes
  // each spike's connections into the delay ring. 0: whenever it can; NaN or infinity:
  // never (and the engine builds nothing for it).
  // Results are the same either way.
  double cuda_pull_from = 0.125;
};

// One epoch's spikes of every trial of a batch, in trial order, each sorted by (step,
// neuron): what each trial would give alone.
using BatchSpikes = std::vector<std::vector<Spike>>;

// The engine (its device) failed and its state is lost: advance, export, import, a
// weight update or a stimulus change did not complete. Not the user's input to fix and
// not a bug in the caller: a service resumes from the last state it exported, on another
// engine (the CPU pool; docs/ARCHITECTURE.md, "Swapping the engine"). The message says what
// failed (for CUDA, the runtime's error name and text).
class engine_failure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Engine {
 public:
  virtual ~Engine() = default;
  // e.g. "cpu pool, 2 threads".
  virtual std::string describe() const = 0;
  // The most trials one batch may hold (EngineSetup::batch).
  virtual int32_t batch_capacity() const = 0;
  // Advances every trial of the batch through span (it must start at the batch's next
  // step and stay inside one delay cell); returns each trial's spikes.
  virtual BatchSpikes advance_batch(kernels::EpochSpan span) = 0;
  // One state per trial of the batch, in trial order. Each includes the plastic
  // connections' weights; an imported state whose plastic_weights is empty keeps the
  // engine's (a new trial keeps what was learned).
  virtual std::vector<EngineState> export_batch() const = 0;
  // Replaces the batch with `states` (check_batch: consecutive trials at one step, at
  // most batch_capacity()).
  virtual void import_batch(const std::vector<EngineState>& states) = 0;
  // Starts trials first_trial .. first_trial + count - 1 at rest at step 0, keeping the
  // engine's plastic weights: exactly import_batch(resting_batch(...)), without building
  // a full state per trial. Why: every trial starts so, and building resting states in
  // the sim loop (megabytes of fresh pages a trial at FlyWire scale) costs more than the
  // engine's own reset.
  virtual void start_at_rest(int32_t first_trial, int32_t count) = 0;
  // The delay cell's length in steps: an advance_batch never crosses one.
  virtual int32_t cell_steps() const = 0;
  // Sets plastic connections' weights, between epochs: every delivery from the next
  // advance on (the spikes still in the delay ring included) uses them.
  virtual void apply_weights(const std::vector<WeightChange>& changes) = 0;
  // Replaces the stimulus, between epochs (mid-cell too): from the next advance on the
  // Poisson draws go to stimulus->poisson_neurons with `poisson_threshold`
  // (model/lif_params.hpp) and the kicks come from stimulus->kicks. The plan is the whole
  // plan (kicks before the next step are ignored, as always) and keeps the engine's seed.
  // The result equals exporting the state and importing it into an engine built with
  // this plan and threshold. Throws std::invalid_argument, changing nothing, when the
  // plan is null, does not fit the network or changes the seed (check_stimulus_change).
  virtual void set_stimulus(std::shared_ptr<const StimulusPlan> stimulus, uint32_t poisson_threshold) = 0;

  // Advances every trial of the batch through span (starting at the batch's next step),
  // which may cross delay cells: a run without plasticity asks for up to
  // Schedule::kCrossCellsMs at once, so the host wakes once per batch of cells, not once
  // per cell. Each trial's spikes, as advance_batch cell by cell would give them
  // concatenated; that is what this default does. The CUDA engine instead launches
  // several cells before it waits for the device.
  virtual BatchSpikes advance_cells(kernels::EpochSpan span);

  // A batch of one trial, the way a run without run.batch sees the engine. advance and
  // export_state throw std::logic_error when the batch holds more than one trial.
  std::vector<Spike> advance(kernels::EpochSpan span);
  EngineState export_state() const;
  void import_state(const EngineState& state) { import_batch({state}); }
};

// Throws std::invalid_argument unless `states` is a batch an engine of `capacity` trials
// and `neurons` neurons can import: 1..capacity states of consecutive trials, all at the
// same next step, each of `neurons` neurons.
void check_batch(const std::vector<EngineState>& states, int32_t capacity, std::size_t neurons);
// Throws std::invalid_argument unless start_at_rest may start `count` trials from
// `first_trial` in an engine of `capacity` trials: 1..capacity of them, from trial 0 on.
void check_rest_batch(int32_t first_trial, int32_t count, int32_t capacity);

// The next epoch from next_step: to the end of its delay cell or to end_step.
inline kernels::EpochSpan next_epoch(int32_t next_step, int32_t end_step, int32_t delay_steps) {
  const int32_t cell_end = cell_start(next_step, delay_steps) + delay_steps;
  return {next_step, (end_step < cell_end ? end_step : cell_end) - next_step};
}

// Advances a batch of one trial from its next step, next_step, to end_step
// (Engine::advance_cells); all its spikes.
std::vector<Spike> run_until(Engine& engine, int32_t next_step, int32_t end_step);

// Throws std::invalid_argument unless every Poisson neuron and kick names one of `neurons`
// neurons and the kicks are sorted by step: the engines look kicks up by step, and a bad
// index on a device would corrupt memory without a trace. (load_kicks also sorts by
// neuron within a step and refuses repeats; the engines need neither, and a restored
// checkpoint is held to what snapshot_check asks.)
void check_stimulus(const StimulusPlan& stimulus, std::size_t neurons);

// What set_stimulus accepts: a plan check_stimulus passes that keeps the current seed (a
// new seed would silently redraw every Poisson event; the seed names the run).
void check_stimulus_change(const StimulusPlan& current, const StimulusPlan* next, std::size_t neurons);

// Throws std::logic_error unless span starts at next_step and fits in one cell.
void check_span(kernels::EpochSpan span, int32_t next_step, int32_t delay_steps);

}  // namespace flysim
