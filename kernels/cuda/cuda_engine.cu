#include "kernels/cuda/cuda_engine.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>
#include <utility>

#include "kernels/cuda/cuda_support.cuh"
#include "kernels/cuda/epoch_kernels.cuh"
#include "kernels/cuda/pulled_cell.cuh"
#include "kernels/cuda/round_keys.hpp"
#include "kernels/cuda/round_sort.cuh"
#include "kernels/plastic_weights.hpp"
#include "kernels/spike_queue.hpp"
#include "model/errors.hpp"

namespace flysim {
namespace {

// Trial k of a batch's per-neuron array, as the device keeps it ([neuron][trial],
// cuda::DeviceState), and a batch's array from its trials' states.
template <class T>
std::vector<T> trial_of_batch(const std::vector<T>& batch, std::size_t trials, std::size_t k) {
  std::vector<T> trial(batch.size() / trials);
  for (std::size_t i = 0; i < trial.size(); ++i) trial[i] = batch[cuda::batch_entry(trials, k, i)];
  return trial;
}
template <class T>
std::vector<T> batch_of_trials(const std::vector<EngineState>& states, std::vector<T> EngineState::*field) {
  const std::size_t trials = states.size(), neurons = (states.front().*field).size();
  std::vector<T> batch(trials * neurons);
  for (std::size_t k = 0; k < trials; ++k)
    for (std::size_t i = 0; i < neurons; ++i) batch[cuda::batch_entry(trials, k, i)] = (states[k].*field)[i];
  return batch;
}

// A grid size for `needed` blocks that changes rarely: a power of two, grown at once,
// shrunk only when a quarter would do. Rounds then keep their shape, and their graph,
// while the activity drifts (every grid size gives the same result).
uint32_t settled_grid(uint32_t current, uint32_t needed) {
  needed = std::max(needed, 1u);
  return needed > current || needed * 4 < current ? std::bit_ceil(needed) : current;
}

// What a round's graph is built for: its epochs, whether it starts a delay cell, and its
// grids. Everything else a round varies is in its cuda::RoundPlan.
struct RoundShape {
  uint32_t epochs = 0;
  bool starts_cell = false;
  uint32_t start_rows = 0, scatter_rows = 0, kick_blocks = 0, stepwise_blocks = 0;
  uint64_t pulled_epochs = 0;  // bit j: epoch j, a whole cell, pulls its input (cuda::CellPull)
  bool pulled(uint32_t j) const { return ((pulled_epochs >> j) & 1u) != 0u; }
  auto operator<=>(const RoundShape&) const = default;
};
// The cells of one round the spike buffer has room for: 50 ms, so that an unpaced run's
// 200 ms request (actors/SCHEDULE.md) is four rounds, each launched while the host
// records the one before, of two shapes.
constexpr std::size_t kRoundCells = 28;
// The fewest rows of spike blocks a scatter inside a round launches: enough for the busiest
// cells of a sparse experiment, so its first rounds launch no smaller grid, a shape of its own.
constexpr uint32_t kLeastScatterRows = 128;
// Shapes remembered as launched once (CudaEngine::shapes_seen_); beyond that the set
// starts again. They outlive the graphs (a new batch or stimulus drops those): a shape a
// trial used often is likely the next trial's too.
constexpr std::size_t kMaxShapesSeen = 256;
// Graphs kept at once; beyond that the cache starts again (shapes settle within a few).
constexpr std::size_t kMaxRoundGraphs = 64;

// The CUDA stream engine: CpuEngine's epoch (kernels/README.md) for a batch of trials,
// with the network and every trial's state resident on one device and every call ordered
// on one stream: each kernel launch covers the whole batch. The host keeps only a
// SpikeQueue per trial, the same bookkeeping CpuTrial keeps, for export_batch.
class CudaEngine final : public Engine {
 public:
  CudaEngine(EngineSetup setup, int device, std::string device_name);
  std::string describe() const override;
  int32_t batch_capacity() const override { return setup_.batch; }
  BatchSpikes advance_batch(kernels::EpochSpan span) override;
  BatchSpikes advance_cells(kernels::EpochSpan span) override;
  std::vector<EngineState> export_batch() const override;
  void import_batch(const std::vector<EngineState>& states) override;
  void start_at_rest(int32_t first_trial, int32_t count) override;
  int32_t cell_steps() const override { return setup_.constants.delay_steps; }
  void apply_weights(const std::vector<WeightChange>& changes) override;
  void set_stimulus(std::shared_ptr<const StimulusPlan> stimulus, uint32_t poisson_threshold) override;

 private:
  cuda::DeviceState device_state() const;
  cuda::DeviceNetwork device_network() const;
  // Copies spikes into cell_spikes_ at `offset` (ordered on the stream; the host vector
  // must live until the stream has copied it).
  void upload_cell_spikes(const std::vector<cuda::CellSpike>& spikes, std::size_t offset);
  void select_device() const;
  // Uploads the plan's Poisson flags and kicks (growing the kick buffer as needed) and
  // waits for the copies, so the host staging may go.
  void upload_stimulus();
  // A round: epochs (a delay cell each, the first and last maybe cut) launched one after
  // another with no wait between them; the device passes the spike counts from one
  // epoch's launch to the next (cuda::RoundCounts). The host waits once per round.
  struct Round {
    int32_t first;
    std::vector<kernels::EpochSpan> epochs;
  };
  // The longest round from `first` towards `end` whose spikes surely fit in cell_spikes_
  // (kernels::max_spikes_per_cell) and whose steps fit in a round key.
  Round plan_round(int32_t first, int32_t end) const;
  // A round in three parts, so that the next round runs while the host records the last
  // one's spikes: plans and launches it; waits for it, queues the sort of its spikes
  // (RoundSort) and moves the cell, the grids and next_step_ on (all the next round
  // needs); waits for the sorted keys and appends each trial's spikes to `spikes` and to
  // the queues.
  void start_round(const Round& round);
  void finish_round(const Round& round);
  void record_round(const Round& round, BatchSpikes& spikes);
  // Writes the round's plan to round_plan_ and returns the shape of its launches.
  RoundShape plan_launches(const Round& round);
  // Whether the next round's whole cells pull their input (EngineSetup::cuda_pull_from).
  bool pull_cells() const;
  // Puts the launches of a round of `shape` on stream `s` (reading round_plan_).
  void queue_round(cudaStream_t s, const RoundShape& shape);
  // Launches a round of `shape`: the first of its shape launch by launch, the second as
  // a graph it captures, every later one as that graph.
  void launch_round(const RoundShape& shape);
  // What a state does not hold, cleared for a new batch of `trials`: their delay ring,
  // its flags and their kicks (a failed advance can leave kicks set), and the graphs,
  // which hold the old batch (its size and first trial). The round counts need nothing:
  // every round copies in zeros (cuda::RoundCounts).
  void clear_for_batch(std::size_t trials);
  // Mid-cell, the current cell's spikes must lie at the start of cell_spikes_ when a
  // round begins: moves them there (from the host's copy in the queues) if they do not.
  void current_cell_to_front();

  EngineSetup setup_;
  std::size_t n_;
  int device_;
  std::string device_name_;
  cuda::Stream stream_;
  cuda::Event epoch_done_;  // naps or polls, as setup_.host_wait says
  cuda::DeviceBuffer<uint64_t> out_offsets_;
  cuda::DeviceBuffer<uint32_t> out_targets_;
  cuda::DeviceBuffer<int32_t> out_weights_;
  uint64_t max_out_degree_ = 0;
  uint32_t scatter_wave_ = 1;
  // Per neuron and trial of the batch ([neuron][trial]; the ring [neuron][trial][slot]:
  // cuda::DeviceState).
  cuda::DeviceBuffer<double> v_, g_;
  cuda::DeviceBuffer<int32_t> last_spike_;
  cuda::DeviceBuffer<int64_t> ring_;             // fixed-point units
  cuda::DeviceBuffer<uint32_t> synaptic_slots_;  // ring slots holding input
  cuda::DeviceBuffer<uint32_t> kick_steps_;      // kicks in the current epoch
  cuda::DeviceBuffer<uint32_t> poisson_steps_;   // a driven neuron's draws in the epoch
  cuda::DeviceBuffer<uint8_t> flags_;            // what the sort must read (cuda::NeuronFlags)
  cuda::DeviceBuffer<uint8_t> poisson_;          // per neuron: Poisson-driven (every trial)
  cuda::DeviceBuffer<uint32_t> poisson_list_;    // the driven neurons, ascending; may be longer
  cuda::DeviceBuffer<uint32_t> poisson_threshold_;  // per neuron: its Poisson threshold (every trial)
  cuda::DeviceBuffer<uint8_t> silenced_;            // per neuron: silenced (every trial)
  bool silencing_ = false;                          // the plan silences a neuron
  cuda::DeviceBuffer<Kick> kicks_;               // the whole plan, sorted like the host's; may be longer
  // The spikes of a round's epochs, of every trial, in device order, appended epoch after
  // epoch; the current cell's are [cell_begin_, cell_end_) once a round is done. The next
  // cell start scatters those, then the next round writes from the front again (the
  // stream orders the two). A trial's cell holds at most neurons x delay_steps spikes;
  // the capacity is that for every trial of the batch, and a round holds as many cells
  // as surely fit (plan_round).
  cuda::DeviceBuffer<cuda::CellSpike> cell_spikes_;
  std::size_t cell_begin_ = 0, cell_end_ = 0;
  cuda::MappedHostBuffer<cuda::RoundSummary> round_summary_;
  // The neurons each epoch lists for its stepwise phase (DeviceState::at indices; room
  // for all of the batch). The most one epoch listed lately (RoundSummary) sizes the
  // stepwise launches: a fifth more blocks than that took, so the grid follows the
  // activity instead of covering every neuron (any size gives the same result).
  cuda::DeviceBuffer<uint32_t> stepwise_;
  unsigned stepwise_blocks_ = 1;
  // Whole cells of a busy batch pull their input instead (a round's shape says which);
  // the busiest cell of the last round, in spikes of the batch, decides.
  cuda::CellPull pull_;
  uint32_t busiest_cell_ = 0;
  bool round_pushed_ = true;  // the last round planned has an epoch that does not pull
  // The last round's spikes, sorted on the device for the host.
  cuda::RoundSort round_sort_;
  std::vector<cuda::CellSpike> moved_spikes_;  // current_cell_to_front's staging
  uint32_t poisson_neurons_ = 0;               // in the current plan, for max_spikes_per_cell
  // Blocks of spikes a scatter inside a round launches: twice the busiest cell seen
  // lately (the count is the device's; any number gives the same ring); and at a round
  // start, as many as the previous cell's spikes (settled_grid of each).
  uint32_t scatter_rows_ = kLeastScatterRows;
  uint32_t start_rows_ = 64;
  // The rounds' launches as graphs (one launch per round instead of four per epoch),
  // by shape. They hold the launch arguments of their capture, so whatever changes one
  // (the stimulus, the batch) clears them. round_plan_ is what varies per round: written
  // here, copied to round_plan_device_ by the graph's first node, with the round's
  // counts, which stay zero here.
  std::map<RoundShape, cuda::Graph> round_graphs_;
  // Shapes seen once are launched launch by launch: a capture costs more than it saves (kernels/cuda/README.md).
  std::set<RoundShape> shapes_seen_;
  cuda::MappedHostBuffer<cuda::RoundBuffer> round_plan_;
  cuda::DeviceBuffer<cuda::RoundBuffer> round_plan_device_;
  std::vector<SpikeQueue> queues_;  // per trial of the batch
  PlasticEdges plastic_;
  // The plastic index -> edge map on the device, and staging for what crosses the bus
  // (changes in, exported weights out), grown as needed. The host staging is kept
  // until the stream has copied it.
  cuda::DeviceBuffer<uint64_t> plastic_edges_;
  cuda::DeviceBuffer<WeightChange> changes_;
  cuda::DeviceBuffer<int32_t> plastic_values_;
  std::vector<WeightChange> host_changes_;
  int32_t first_trial_ = 0;  // trial of batch slot 0; slot k is first_trial_ + k
  uint32_t batch_size_ = 0;
  int32_t next_step_ = 0;
};

CudaEngine::CudaEngine(EngineSetup setup, int device, std::string device_name)
    : setup_(std::move(setup)),
      n_(setup_.network->neuron_count()),
      device_(device),
      device_name_(std::move(device_name)),
      stream_(device),
      epoch_done_(setup_.host_wait == HostWait::nap),
      round_sort_(n_, setup_.host_wait == HostWait::nap),
      plastic_(setup_.plastic_edges, setup_.network->out_weights) {
  const Network& net = *setup_.network;
  const LifConstants& c = setup_.constants;
  if (setup_.batch < 1) throw std::invalid_argument("an engine holds at least one trial, asked for " + std::to_string(setup_.batch));
  const auto batch = static_cast<std::size_t>(setup_.batch);
  const std::size_t trial_cell = n_ * static_cast<std::size_t>(c.delay_steps);
  if (trial_cell * batch >= (std::size_t{1} << 32))
    throw std::invalid_argument("the CUDA engine counts a delay cell's spikes in 32 bits: " + std::to_string(n_) +
                                " neurons x " + std::to_string(c.delay_steps) + " steps x " + std::to_string(batch) +
                                " trials is too many (use a smaller run.batch)");
  check_stimulus(*setup_.stimulus, n_);
  select_device();
  cuda::check(cuda::allow_advance_shared_memory(), "setting the advance kernel's shared memory");
  cuda::check(cuda::load_round_kernels(), "loading the round's kernels");
  cuda::check(cuda::scatter_wave_blocks(&scatter_wave_), "asking the device for its scatter's occupancy");

  for (std::size_t i = 0; i < n_; ++i)
    max_out_degree_ = std::max(max_out_degree_, net.out_offsets[i + 1] - net.out_offsets[i]);
  out_offsets_ = cuda::DeviceBuffer<uint64_t>(net.out_offsets.size(), "allocating the network");
  out_targets_ = cuda::DeviceBuffer<uint32_t>(net.out_targets.size(), "allocating the network");
  out_weights_ = cuda::DeviceBuffer<int32_t>(net.out_weights.size(), "allocating the network");
  v_ = cuda::DeviceBuffer<double>(batch * n_, "allocating the state");
  g_ = cuda::DeviceBuffer<double>(batch * n_, "allocating the state");
  last_spike_ = cuda::DeviceBuffer<int32_t>(batch * n_, "allocating the state");
  ring_ = cuda::DeviceBuffer<int64_t>(batch * trial_cell, "allocating the delay ring");
  synaptic_slots_ = cuda::DeviceBuffer<uint32_t>(batch * n_, "allocating the state");
  kick_steps_ = cuda::DeviceBuffer<uint32_t>(batch * n_, "allocating the state");
  poisson_steps_ = cuda::DeviceBuffer<uint32_t>(batch * n_, "allocating the state");
  flags_ = cuda::DeviceBuffer<uint8_t>(batch * n_, "allocating the state");
  poisson_ = cuda::DeviceBuffer<uint8_t>(n_, "allocating the state");
  poisson_threshold_ = cuda::DeviceBuffer<uint32_t>(n_, "allocating the state");
  silenced_ = cuda::DeviceBuffer<uint8_t>(n_, "allocating the state");
  // Room for a round of kRoundCells worst-case cells per trial; at least a cell's worst
  // case for every neuron (an imported state may hold that many), and counted in 32 bits.
  const std::size_t round_room =
      kRoundCells * kernels::max_spikes_per_cell(c, n_, std::min(driven_neurons(*setup_.stimulus).size(), n_));
  const std::size_t spike_room = std::min(std::max(trial_cell, round_room) * batch, std::size_t{UINT32_MAX});
  cell_spikes_ = cuda::DeviceBuffer<cuda::CellSpike>(spike_room, "allocating the spike buffer");
  round_summary_ = cuda::MappedHostBuffer<cuda::RoundSummary>(1, "allocating mapped host memory for the round summary");
  *round_summary_.host() = {};
  stepwise_ = cuda::DeviceBuffer<uint32_t>(batch * n_, "allocating the stepwise list");
  stepwise_blocks_ = cuda::stepwise_blocks_for(batch * n_);
  round_plan_ = cuda::MappedHostBuffer<cuda::RoundBuffer>(1, "allocating pinned host memory for the round plan");
  round_plan_.host()->counts = {};
  round_plan_device_ = cuda::DeviceBuffer<cuda::RoundBuffer>(1, "allocating the round plan");
  queues_.resize(batch);

  const cudaStream_t s = stream_.get();
  cuda::upload(s, out_offsets_.get(), net.out_offsets, "uploading the network");
  cuda::upload(s, out_targets_.get(), net.out_targets, "uploading the network");
  cuda::upload(s, out_weights_.get(), net.out_weights, "uploading the network");
  if (!plastic_.empty()) {
    plastic_edges_ = cuda::DeviceBuffer<uint64_t>(plastic_.size(), "allocating the plastic edges");
    plastic_values_ = cuda::DeviceBuffer<int32_t>(plastic_.size(), "allocating the plastic weights");
    cuda::upload(s, plastic_edges_.get(), plastic_.edges(), "uploading the plastic edges");
  }
  // Not built where it would never run (cuda_pull_from NaN or infinite).
  if (setup_.cuda_pull_from < std::numeric_limits<double>::infinity())
    pull_ = cuda::CellPull(net, c, static_cast<uint32_t>(batch), !plastic_.empty(), s);
  cuda::check(cudaMemsetAsync(kick_steps_.get(), 0, batch * n_ * sizeof(uint32_t), s), "clearing the kicks");
  upload_stimulus();
  start_at_rest(0, 1);
}

void CudaEngine::upload_stimulus() {
  // The graphs hold the old kicks, seed and constants.
  round_graphs_.clear();
  const StimulusPlan& plan = *setup_.stimulus;
  const std::vector<uint8_t> poisson = poisson_flags(plan, n_);
  const std::vector<uint32_t> driven = driven_neurons(plan);
  const std::vector<uint32_t> thresholds = poisson_thresholds(plan, setup_.constants.poisson_threshold, n_);
  const std::vector<uint8_t> silenced = silence_mask(plan, n_);
  silencing_ = !silenced.empty();
  poisson_neurons_ = static_cast<uint32_t>(driven.size());
  if (kicks_.size() < plan.kicks.size()) kicks_ = cuda::DeviceBuffer<Kick>(plan.kicks.size(), "allocating the kicks");
  if (poisson_list_.size() < std::max<std::size_t>(driven.size(), 1))
    poisson_list_ = cuda::DeviceBuffer<uint32_t>(std::max<std::size_t>(driven.size(), 1), "allocating the Poisson list");
  const cudaStream_t s = stream_.get();
  cuda::upload(s, poisson_.get(), poisson, "uploading the stimulus");
  cuda::upload(s, poisson_list_.get(), driven, "uploading the stimulus");
  cuda::upload(s, poisson_threshold_.get(), thresholds, "uploading the stimulus");
  if (silencing_) cuda::upload(s, silenced_.get(), silenced, "uploading the silenced set");
  cuda::upload(s, kicks_.get(), plan.kicks, "uploading the kicks");
  cuda::check(cudaStreamSynchronize(s), "uploading the stimulus");
}

void CudaEngine::set_stimulus(std::shared_ptr<const StimulusPlan> stimulus, uint32_t poisson_threshold) {
  check_stimulus_change(*setup_.stimulus, stimulus.get(), n_);
  select_device();
  // A weight update may still be running on the stream, and the old kick buffer must
  // outlive every launch that reads it.
  cuda::check(cudaStreamSynchronize(stream_.get()), "waiting for the stream before a stimulus change");
  setup_.stimulus = std::move(stimulus);
  // The kernels take the constants by value at every launch: the next one draws with it.
  setup_.constants.poisson_threshold = poisson_threshold;
  upload_stimulus();
}

void CudaEngine::select_device() const { cuda::check(cudaSetDevice(device_), "cudaSetDevice"); }

std::string CudaEngine::describe() const {
  return "cuda stream, device " + std::to_string(device_) + " " + device_name_ +
         (setup_.batch > 1 ? ", batches of " + std::to_string(setup_.batch) + " trials" : "") +
         (pull_.ready() ? ", busy cells pulled by target" : "");
}

cuda::DeviceState CudaEngine::device_state() const {
  const uint8_t* silenced = silencing_ ? silenced_.get() : nullptr;
  return {static_cast<uint32_t>(n_),
          batch_size_,
          static_cast<uint32_t>(setup_.constants.delay_steps),
          v_.get(),
          g_.get(),
          last_spike_.get(),
          ring_.get(),
          synaptic_slots_.get(),
          kick_steps_.get(),
          poisson_steps_.get(),
          flags_.get(),
          poisson_.get(),
          poisson_list_.get(),
          poisson_neurons_,
          poisson_threshold_.get(),
          silenced,
          setup_.stimulus->silence_mode == SilenceMode::both ? silenced : nullptr};
}

cuda::DeviceNetwork CudaEngine::device_network() const {
  return {out_offsets_.get(), out_targets_.get(), out_weights_.get(), max_out_degree_, scatter_wave_};
}

CudaEngine::Round CudaEngine::plan_round(int32_t first, int32_t end) const {
  const int32_t delay = setup_.constants.delay_steps;
  const std::size_t per_cell =
      std::size_t{batch_size_} * kernels::max_spikes_per_cell(setup_.constants, n_, poisson_neurons_);
  // The first epoch always goes (it fits, as a whole cell would); every later one only
  // when its cell's worst case still fits beside the worst case of all before it.
  std::size_t worst = (first % delay == 0 ? 0 : cell_end_ - cell_begin_) + per_cell;
  Round round{first, {next_epoch(first, end, delay)}};
  for (int32_t step = first + round.epochs.back().steps; step < end; step += round.epochs.back().steps) {
    const kernels::EpochSpan next = next_epoch(step, end, delay);
    if (step + next.steps - first > cuda::kMaxRoundSteps || worst + per_cell > cell_spikes_.size() ||
        round.epochs.size() == cuda::kMaxRoundEpochs)
      break;
    worst += per_cell;
    round.epochs.push_back(next);
  }
  return round;
}

void CudaEngine::current_cell_to_front() {
  if (cell_begin_ == 0) return;
  moved_spikes_.clear();
  for (uint32_t k = 0; k < batch_size_; ++k)
    for (const Spike& x : queues_[k].waiting()) moved_spikes_.push_back({x.step, x.neuron, k});
  if (moved_spikes_.size() != cell_end_ - cell_begin_)
    throw std::logic_error("CUDA engine: the host holds " + std::to_string(moved_spikes_.size()) +
                           " spikes of the current cell, the device " + std::to_string(cell_end_ - cell_begin_));
  upload_cell_spikes(moved_spikes_, 0);
  cell_end_ -= cell_begin_;
  cell_begin_ = 0;
}

RoundShape CudaEngine::plan_launches(const Round& round) {
  const LifConstants& c = setup_.constants;
  cuda::RoundPlan& plan = round_plan_.host()->plan;
  RoundShape shape;
  shape.epochs = static_cast<uint32_t>(round.epochs.size());
  shape.starts_cell = round.first % c.delay_steps == 0;
  plan.first = round.first;
  plan.start_scatter_begin = plan.start_scatter_count = 0;
  if (shape.starts_cell) {
    // The previous cell's spikes, where the last round left them; this round then
    // writes from the front (the graph runs the scatter first).
    plan.start_scatter_begin = static_cast<uint32_t>(cell_begin_);
    plan.start_scatter_count = static_cast<uint32_t>(cell_end_ - cell_begin_);
    start_rows_ = settled_grid(start_rows_, std::min(plan.start_scatter_count, cuda::kMaxScatterRows));
    shape.start_rows = start_rows_;
    cell_begin_ = cell_end_ = 0;
  } else {
    current_cell_to_front();
  }
  plan.base = static_cast<uint32_t>(cell_end_);
  uint32_t most_kicks = 0;
  for (std::size_t j = 0; j < round.epochs.size(); ++j) {
    const kernels::KickRange kicks = kernels::kicks_in(setup_.stimulus->kicks, round.epochs[j]);
    const auto count = static_cast<uint32_t>(kicks.last - kicks.first);
    plan.epochs[j] = {round.epochs[j], static_cast<uint32_t>(kicks.first - setup_.stimulus->kicks.begin()), count};
    most_kicks = std::max(most_kicks, count);
  }
  // No kick launches in a round without kicks (the usual Poisson stimulus).
  shape.kick_blocks = most_kicks == 0 ? 0 : std::bit_ceil(cuda::blocks_for(most_kicks));
  shape.scatter_rows = shape.epochs > 1 ? scatter_rows_ : 0;
  shape.stepwise_blocks = cuda::advance_in_one_launch(batch_size_) ? 0 : stepwise_blocks_;
  if (pull_cells())
    for (std::size_t j = 0; j < round.epochs.size(); ++j)
      if (round.epochs[j].first % c.delay_steps == 0 && round.epochs[j].steps == c.delay_steps)
        shape.pulled_epochs |= uint64_t{1} << j;
  round_pushed_ = shape.pulled_epochs != (uint64_t{1} << (shape.epochs - 1) << 1) - 1;
  return shape;
}

bool CudaEngine::pull_cells() const {
  const double groups = cuda::groups_for(static_cast<uint32_t>(batch_size_));
  return pull_.ready() && batch_size_ > 1 && busiest_cell_ >= setup_.cuda_pull_from * static_cast<double>(n_) * groups;
}

void CudaEngine::queue_round(cudaStream_t s, const RoundShape& shape) {
  const LifConstants& c = setup_.constants;
  const cuda::DeviceNetwork net = device_network();
  const cuda::DeviceState state = device_state();
  const cuda::RoundPlan* plan = &round_plan_device_.get()->plan;
  cuda::RoundCounts* counts = &round_plan_device_.get()->counts;
  cuda::check(cudaMemcpyAsync(round_plan_device_.get(), round_plan_.host(), sizeof(cuda::RoundBuffer),
                              cudaMemcpyHostToDevice, s),
              "copying the round plan");
  const cuda::EpochOutput out{cell_spikes_.get(), static_cast<uint32_t>(cell_spikes_.size()), counts,
                               round_sort_.small_round_keys(), cuda::kHostSortKeys, round_sort_.packing()};
  if (shape.starts_cell && shape.pulled(0))
    pull_.mark_round_start(s, c, net, state, cell_spikes_.get(), plan);
  else if (shape.starts_cell)
    cuda::launch_round_start_scatter(s, c, net, state, cell_spikes_.get(), plan, shape.start_rows);
  for (uint32_t j = 0; j < shape.epochs; ++j) {
    if (j > 0 && shape.pulled(j))
      pull_.mark_last_cell(s, c, net, state, cell_spikes_.get(), counts, plan, j);
    else if (j > 0)
      cuda::launch_scatter_last_cell(s, c, net, state, cell_spikes_.get(), counts, plan, j, shape.scatter_rows);
    if (shape.kick_blocks > 0) cuda::launch_set_kicks(s, kicks_.get(), plan, j, shape.kick_blocks, state);
    if (shape.pulled(j))
      pull_.advance(s, c, plan, j, setup_.stimulus->seed, first_trial_, state, out);
    else
      cuda::launch_advance(s, c, plan, j, setup_.stimulus->seed, first_trial_, state, stepwise_.get(),
                           shape.stepwise_blocks, out);
  }
  cuda::launch_publish_round(s, counts, shape.epochs, round_summary_.device());
}

void CudaEngine::launch_round(const RoundShape& shape) {
  const cudaStream_t s = stream_.get();
  if (const auto found = round_graphs_.find(shape); found != round_graphs_.end()) {
    found->second.launch(s, "launching a round");
    return;
  }
  if (shapes_seen_.size() == kMaxShapesSeen) shapes_seen_.clear();
  if (shapes_seen_.insert(shape).second) {
    queue_round(s, shape);
    cuda::check(cudaGetLastError(), "launching a round");
    return;
  }
  if (round_graphs_.size() == kMaxRoundGraphs) round_graphs_.clear();
  round_graphs_
      .emplace(shape, cuda::Graph(s, [&](cudaStream_t captured) { queue_round(captured, shape); },
                                  "capturing a round's launches"))
      .first->second.launch(s, "launching a round");
}

void CudaEngine::start_round(const Round& round) { launch_round(plan_launches(round)); }

void CudaEngine::finish_round(const Round& round) {
  const LifConstants& c = setup_.constants;
  const uint32_t base = round_plan_.host()->plan.base;
  const auto capacity = static_cast<uint32_t>(cell_spikes_.size());
  epoch_done_.wait_for(stream_.get(), "running the epochs");

  const cuda::RoundSummary& summary = *round_summary_.host();
  const uint32_t count = summary.spikes;
  if (std::size_t{base} + count > capacity)
    throw std::logic_error("CUDA engine: " + std::to_string(count) + " spikes in a round exceed the room of " +
                           std::to_string(capacity - base));
  const std::size_t epochs = round.epochs.size();
  const kernels::EpochSpan last = round.epochs.back();
  const int32_t round_end = last.first + last.steps;
  // Queued before anything the next round writes over the round's spikes.
  round_sort_.queue(stream_.get(), cell_spikes_.get() + base, count, round.first, round_end - round.first, batch_size_);
  // The device appended epoch after epoch: the last epoch's cell is the end of the list,
  // and when that epoch continues a cell (a round of one epoch), the cell began at 0.
  cell_begin_ = last.first % c.delay_steps == 0 ? base + summary.epoch_first[epochs - 1] : 0;
  cell_end_ = std::size_t{base} + count;
  uint32_t busiest = 0;
  for (std::size_t j = 0; j < epochs; ++j)
    busiest = std::max(busiest, (j + 1 < epochs ? summary.epoch_first[j + 1] : count) - summary.epoch_first[j]);
  scatter_rows_ = settled_grid(
      scatter_rows_, static_cast<uint32_t>(std::clamp<uint64_t>(2ull * busiest, kLeastScatterRows, cuda::kMaxScatterRows)));
  busiest_cell_ = busiest;
  // A round that only pulled listed nothing: it says nothing of the stepwise grid.
  const uint32_t most_stepwise = summary.most_listed;
  if (round_pushed_)
    stepwise_blocks_ = settled_grid(
        stepwise_blocks_,
        cuda::stepwise_blocks_for(std::min<std::size_t>(most_stepwise + most_stepwise / 5, stepwise_.size())));
  next_step_ = round_end;
}

void CudaEngine::record_round(const Round& round, BatchSpikes& spikes) {
  const LifConstants& c = setup_.constants;
  // Sorted by (trial, step, neuron). Each trial's keys lie together (the slot leads the
  // key): they are decoded straight onto the end of its list, and the queues take them
  // epoch by epoch, as CpuTrial's take each epoch.
  const std::span<const uint64_t> keys = round_sort_.wait();
  const cuda::PackedRoundKeys& packed = round_sort_.packing();
  auto key = keys.begin();
  for (uint32_t k = 0; k < batch_size_; ++k) {
    const auto trial_end = std::partition_point(key, keys.end(), [&](uint64_t x) { return packed.slot(x) <= k; });
    std::vector<Spike>& out = spikes[k];
    const std::size_t start = out.size();
    const std::size_t need = start + static_cast<std::size_t>(trial_end - key);
    if (out.capacity() < need) out.reserve(std::max(need, 2 * out.capacity()));
    for (; key != trial_end; ++key)
      out.push_back({round.first + packed.step_in_round(*key), packed.neuron(*key)});
    auto from = out.cbegin() + static_cast<std::ptrdiff_t>(start);
    for (const kernels::EpochSpan epoch : round.epochs) {
      const auto to = std::partition_point(from, out.cend(), [&](const Spike& x) { return x.step < epoch.first + epoch.steps; });
      if (epoch.first % c.delay_steps == 0) queues_[k].begin_cell();
      queues_[k].record(std::span<const Spike>(from, to));
      from = to;
    }
  }
  if (key != keys.end())
    throw std::logic_error("CUDA engine: a round's spike names trial slot " + std::to_string(packed.slot(*key)) +
                           " of a batch of " + std::to_string(batch_size_));
}

BatchSpikes CudaEngine::advance_batch(kernels::EpochSpan span) {
  check_span(span, next_step_, setup_.constants.delay_steps);
  return advance_cells(span);
}

BatchSpikes CudaEngine::advance_cells(kernels::EpochSpan span) {
  if (span.first != next_step_ || span.steps < 1)
    throw std::logic_error("CUDA engine: steps [" + std::to_string(span.first) + ", +" + std::to_string(span.steps) +
                           ") do not continue step " + std::to_string(next_step_));
  select_device();
  BatchSpikes spikes(batch_size_);
  const int32_t end = span.first + span.steps;
  Round running = plan_round(next_step_, end);
  start_round(running);
  try {
    for (;;) {
      const Round done = std::move(running);
      finish_round(done);
      if (next_step_ >= end) {
        record_round(done, spikes);
        return spikes;
      }
      // The next round runs while the host records this one's spikes. It starts a cell
      // (a round ends where its last epoch does: at a cell's end or at `end`), so it
      // needs nothing of them (current_cell_to_front).
      running = plan_round(next_step_, end);
      start_round(running);
      record_round(done, spikes);
    }
  } catch (...) {
    // Nothing of a failed request may still run when the caller drops the engine.
    cudaStreamSynchronize(stream_.get());
    throw;
  }
}

std::vector<EngineState> CudaEngine::export_batch() const {
  select_device();
  const cudaStream_t s = stream_.get();
  std::vector<EngineState> states(batch_size_);
  const std::size_t entries = std::size_t{batch_size_} * n_;
  std::vector<double> v(entries), g(entries);
  std::vector<int32_t> last_spike(entries);
  cuda::check(cudaMemcpyAsync(v.data(), v_.get(), entries * sizeof(double), cudaMemcpyDeviceToHost, s), "exporting v");
  cuda::check(cudaMemcpyAsync(g.data(), g_.get(), entries * sizeof(double), cudaMemcpyDeviceToHost, s), "exporting g");
  cuda::check(cudaMemcpyAsync(last_spike.data(), last_spike_.get(), entries * sizeof(int32_t), cudaMemcpyDeviceToHost, s),
              "exporting last_spike");
  cuda::check(cudaStreamSynchronize(s), "exporting the state");
  for (uint32_t k = 0; k < batch_size_; ++k) {
    EngineState& state = states[k];
    state.trial = first_trial_ + static_cast<int32_t>(k);
    state.next_step = next_step_;
    state.v = trial_of_batch(v, batch_size_, k);
    state.g = trial_of_batch(g, batch_size_, k);
    state.last_spike = trial_of_batch(last_spike, batch_size_, k);
    state.pending = queues_[k].undelivered(next_step_, setup_.constants.delay_steps);
  }
  if (!plastic_.empty()) {
    std::vector<int32_t> weights(plastic_.size());
    cuda::launch_gather_weights(s, out_weights_.get(), plastic_edges_.get(), static_cast<uint32_t>(plastic_.size()),
                                plastic_values_.get());
    cuda::check(cudaGetLastError(), "launching the weight gather");
    cuda::check(cudaMemcpyAsync(weights.data(), plastic_values_.get(), plastic_.size() * sizeof(int32_t),
                                cudaMemcpyDeviceToHost, s),
                "exporting the plastic weights");
    cuda::check(cudaStreamSynchronize(s), "exporting the plastic weights");
    for (EngineState& state : states) state.plastic_weights = weights;
  }
  return states;
}

void CudaEngine::apply_weights(const std::vector<WeightChange>& changes) {
  plastic_.check(changes);
  if (changes.empty()) return;
  select_device();
  const cudaStream_t s = stream_.get();
  // The previous update's host staging may still be in flight: wait before reusing it.
  cuda::check(cudaStreamSynchronize(s), "waiting for the stream before a weight update");
  host_changes_ = changes;
  if (changes_.size() < changes.size())
    changes_ = cuda::DeviceBuffer<WeightChange>(changes.size(), "allocating the weight changes");
  cuda::check(cudaMemcpyAsync(changes_.get(), host_changes_.data(), changes.size() * sizeof(WeightChange),
                              cudaMemcpyHostToDevice, s),
              "uploading weight changes");
  cuda::launch_set_weights(s, changes_.get(), static_cast<uint32_t>(changes.size()), plastic_edges_.get(),
                           out_weights_.get());
  cuda::check(cudaGetLastError(), "launching the weight update");
}

void CudaEngine::upload_cell_spikes(const std::vector<cuda::CellSpike>& spikes, std::size_t offset) {
  if (spikes.empty()) return;
  cuda::check(cudaMemcpyAsync(cell_spikes_.get() + offset, spikes.data(), spikes.size() * sizeof(cuda::CellSpike),
                              cudaMemcpyHostToDevice, stream_.get()),
              "importing the pending spikes");
}

void CudaEngine::clear_for_batch(std::size_t trials) {
  const cudaStream_t s = stream_.get();
  const std::size_t used = trials * n_;
  cuda::check(cudaMemsetAsync(ring_.get(), 0, used * setup_.constants.delay_steps * sizeof(int64_t), s),
              "clearing the delay ring");
  cuda::check(cudaMemsetAsync(synaptic_slots_.get(), 0, used * sizeof(uint32_t), s), "clearing the ring flags");
  cuda::check(cudaMemsetAsync(kick_steps_.get(), 0, used * sizeof(uint32_t), s), "clearing the kicks");
  // Every flag set until a neuron's first epoch looks (an imported state may be anything).
  cuda::check(cudaMemsetAsync(flags_.get(), cuda::NeuronFlags::all, used * sizeof(uint8_t), s), "setting the flags");
  pull_.clear(s);
  round_graphs_.clear();
}

void CudaEngine::start_at_rest(int32_t first_trial, int32_t count) {
  check_rest_batch(first_trial, count, setup_.batch);
  select_device();
  clear_for_batch(static_cast<std::size_t>(count));
  batch_size_ = static_cast<uint32_t>(count);
  cuda::launch_rest(stream_.get(), setup_.constants.v0, device_state());
  cuda::check(cudaGetLastError(), "launching the reset to rest");
  for (uint32_t k = 0; k < batch_size_; ++k) queues_[k].restore({}, 0, setup_.constants.delay_steps);
  cuda::check(cudaStreamSynchronize(stream_.get()), "starting trials at rest");
  cell_begin_ = cell_end_ = 0;
  first_trial_ = first_trial;
  next_step_ = 0;
}

void CudaEngine::import_batch(const std::vector<EngineState>& states) {
  check_batch(states, setup_.batch, n_);
  const int32_t delay = setup_.constants.delay_steps;
  const std::size_t trial_cell = n_ * static_cast<std::size_t>(delay);
  for (const EngineState& state : states) {
    for (const Spike& spike : state.pending)
      if (spike.neuron >= n_)
        throw std::invalid_argument("engine state has a pending spike of neuron " + std::to_string(spike.neuron) +
                                    ", the network " + std::to_string(n_) + " neurons");
    const auto delivering = static_cast<std::size_t>(std::count_if(
        state.pending.begin(), state.pending.end(),
        [&](const Spike& spike) { return kernels::still_delivering(spike, state.next_step, delay); }));
    if (delivering > trial_cell || state.pending.size() - delivering > trial_cell)
      throw std::invalid_argument("engine state holds " + std::to_string(state.pending.size()) +
                                  " pending spikes, more than " + std::to_string(n_) + " neurons can emit in a cell");
  }
  // The weights are the engine's, shared by its trials: the first state's stand for all.
  const std::vector<int32_t>& weights = states.front().plastic_weights;
  if (!weights.empty()) plastic_.check_all(weights);
  select_device();
  const cudaStream_t s = stream_.get();
  const std::vector<double> v = batch_of_trials(states, &EngineState::v);
  const std::vector<double> g = batch_of_trials(states, &EngineState::g);
  const std::vector<int32_t> last_spike = batch_of_trials(states, &EngineState::last_spike);
  cuda::check(cudaMemcpyAsync(v_.get(), v.data(), v.size() * sizeof(double), cudaMemcpyHostToDevice, s), "importing v");
  cuda::check(cudaMemcpyAsync(g_.get(), g.data(), g.size() * sizeof(double), cudaMemcpyHostToDevice, s), "importing g");
  cuda::check(cudaMemcpyAsync(last_spike_.get(), last_spike.data(), last_spike.size() * sizeof(int32_t),
                              cudaMemcpyHostToDevice, s),
              "importing last_spike");
  if (!weights.empty()) {
    cuda::check(cudaMemcpyAsync(plastic_values_.get(), weights.data(), plastic_.size() * sizeof(int32_t),
                                cudaMemcpyHostToDevice, s),
                "importing the plastic weights");
    cuda::launch_assign_weights(s, plastic_values_.get(), static_cast<uint32_t>(plastic_.size()), plastic_edges_.get(),
                                out_weights_.get());
  }
  clear_for_batch(states.size());
  batch_size_ = static_cast<uint32_t>(states.size());
  // Mid-cell, the previous cell's spikes are scattered now, from next_step on; the
  // current cell's wait in cell_spikes_ for the next cell's start.
  std::vector<cuda::CellSpike> scatter_now, waiting;
  for (uint32_t k = 0; k < batch_size_; ++k) {
    for (const Spike& x : queues_[k].restore(states[k].pending, states[k].next_step, delay))
      scatter_now.push_back({x.step, x.neuron, k});
    for (const Spike& x : queues_[k].waiting()) waiting.push_back({x.step, x.neuron, k});
  }
  upload_cell_spikes(scatter_now, 0);
  cuda::launch_scatter(s, setup_.constants, device_network(), device_state(), cell_spikes_.get(),
                       static_cast<uint32_t>(scatter_now.size()), states.front().next_step);
  cuda::check(cudaGetLastError(), "launching the scatter");
  upload_cell_spikes(waiting, 0);
  cuda::check(cudaStreamSynchronize(s), "importing the state");
  cell_begin_ = 0;
  cell_end_ = waiting.size();
  first_trial_ = states.front().trial;
  next_step_ = states.front().next_step;
}

}  // namespace

std::unique_ptr<Engine> make_cuda_engine(EngineSetup setup) {
  const CudaProbe probe = probe_cuda(setup.cuda_device);
  if (!probe.problem.empty()) throw input_error(cuda_cannot_run(probe));
  const int device = setup.cuda_device;
  return std::make_unique<CudaEngine>(std::move(setup), device,
                                      probe.device_name + " (sm_" + std::to_string(probe.cc_major) +
                                          std::to_string(probe.cc_minor) + ")");
}

}  // namespace flysim
