#include "kernels/cuda/cuda_engine.hpp"

#include <algorithm>
#include <stdexcept>

#include "kernels/cuda/cuda_support.cuh"
#include "kernels/cuda/epoch_kernels.cuh"
#include "kernels/plastic_weights.hpp"
#include "kernels/spike_queue.hpp"
#include "model/errors.hpp"

namespace flysim {
namespace {

// Copies a host vector to the device, ordered on the stream; nothing when empty.
template <class T>
void upload(cudaStream_t stream, T* device, const std::vector<T>& host, const char* what) {
  if (!host.empty())
    cuda::check(cudaMemcpyAsync(device, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice, stream), what);
}

// The CUDA stream engine: CpuEngine's epoch (kernels/README.md) with the network and the
// state resident on one device and every call ordered on one stream. The host keeps only
// the SpikeQueue, the same bookkeeping CpuEngine keeps, for export_state.
class CudaEngine final : public Engine {
 public:
  CudaEngine(EngineSetup setup, int device, std::string device_name);
  std::string describe() const override;
  std::vector<Spike> advance(kernels::EpochSpan span) override;
  int32_t cell_steps() const override { return setup_.constants.delay_steps; }
  EngineState export_state() const override;
  void import_state(const EngineState& state) override;
  void apply_weights(const std::vector<WeightChange>& changes) override;
  void set_stimulus(std::shared_ptr<const StimulusPlan> stimulus, uint32_t poisson_threshold) override;

 private:
  cuda::DeviceState device_state() const;
  cuda::DeviceNetwork device_network() const;
  // Copies spikes into cell_spikes_ at `offset` (ordered on the stream).
  void upload_cell_spikes(const std::vector<Spike>& spikes, std::size_t offset);
  void select_device() const;
  // Uploads the plan's Poisson flags and kicks (growing the kick buffer as needed) and
  // waits for the copies, so the host staging may go.
  void upload_stimulus();

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
  cuda::DeviceBuffer<double> v_, g_;
  cuda::DeviceBuffer<int32_t> last_spike_;
  cuda::DeviceBuffer<int64_t> ring_;             // [slot][neuron], fixed-point units
  cuda::DeviceBuffer<uint32_t> synaptic_slots_;  // per neuron: ring slots holding input
  cuda::DeviceBuffer<uint32_t> kick_steps_;      // per neuron: kicks in the current epoch
  cuda::DeviceBuffer<uint8_t> poisson_;          // per neuron: Poisson-driven
  cuda::DeviceBuffer<Kick> kicks_;               // the whole plan, sorted like the host's; may be longer
  // The current cell's spikes so far, in device order: the next cell start scatters
  // them, then the cell's epochs append to it again (the stream orders the two). A cell
  // holds at most neurons x delay_steps spikes; that is the capacity.
  cuda::DeviceBuffer<Spike> cell_spikes_;
  std::size_t cell_spike_count_ = 0;
  cuda::DeviceBuffer<uint32_t> counters_;
  cuda::MappedHostBuffer<Spike> epoch_spikes_;
  cuda::MappedHostBuffer<uint32_t> epoch_spike_count_;
  std::vector<uint64_t> sort_keys_;
  SpikeQueue queue_;
  PlasticEdges plastic_;
  // The plastic index -> edge map on the device, and staging for what crosses the bus
  // (changes in, exported weights out), grown as needed. The host staging is kept
  // until the stream has copied it.
  cuda::DeviceBuffer<uint64_t> plastic_edges_;
  cuda::DeviceBuffer<WeightChange> changes_;
  cuda::DeviceBuffer<int32_t> plastic_values_;
  std::vector<WeightChange> host_changes_;
  int32_t trial_ = 0;
  int32_t next_step_ = 0;
};

CudaEngine::CudaEngine(EngineSetup setup, int device, std::string device_name)
    : setup_(std::move(setup)),
      n_(setup_.network->neuron_count()),
      device_(device),
      device_name_(std::move(device_name)),
      stream_(device),
      epoch_done_(setup_.host_wait == HostWait::nap),
      plastic_(setup_.plastic_edges, setup_.network->out_weights) {
  const Network& net = *setup_.network;
  const LifConstants& c = setup_.constants;
  const std::size_t cell_capacity = n_ * static_cast<std::size_t>(c.delay_steps);
  if (cell_capacity >= (std::size_t{1} << 32))
    throw std::invalid_argument("the CUDA engine counts a delay cell's spikes in 32 bits: " + std::to_string(n_) +
                                " neurons x " + std::to_string(c.delay_steps) + " steps is too many");
  check_stimulus(*setup_.stimulus, n_);

  for (std::size_t i = 0; i < n_; ++i)
    max_out_degree_ = std::max(max_out_degree_, net.out_offsets[i + 1] - net.out_offsets[i]);
  out_offsets_ = cuda::DeviceBuffer<uint64_t>(net.out_offsets.size(), "allocating the network");
  out_targets_ = cuda::DeviceBuffer<uint32_t>(net.out_targets.size(), "allocating the network");
  out_weights_ = cuda::DeviceBuffer<int32_t>(net.out_weights.size(), "allocating the network");
  v_ = cuda::DeviceBuffer<double>(n_, "allocating the state");
  g_ = cuda::DeviceBuffer<double>(n_, "allocating the state");
  last_spike_ = cuda::DeviceBuffer<int32_t>(n_, "allocating the state");
  ring_ = cuda::DeviceBuffer<int64_t>(cell_capacity, "allocating the delay ring");
  synaptic_slots_ = cuda::DeviceBuffer<uint32_t>(n_, "allocating the state");
  kick_steps_ = cuda::DeviceBuffer<uint32_t>(n_, "allocating the state");
  poisson_ = cuda::DeviceBuffer<uint8_t>(n_, "allocating the state");
  cell_spikes_ = cuda::DeviceBuffer<Spike>(cell_capacity, "allocating the spike buffer");
  counters_ = cuda::DeviceBuffer<uint32_t>(2, "allocating the spike counters");
  epoch_spikes_ = cuda::MappedHostBuffer<Spike>(cell_capacity, "allocating mapped host memory for spikes");
  epoch_spike_count_ = cuda::MappedHostBuffer<uint32_t>(1, "allocating mapped host memory for spikes");

  const cudaStream_t s = stream_.get();
  upload(s, out_offsets_.get(), net.out_offsets, "uploading the network");
  upload(s, out_targets_.get(), net.out_targets, "uploading the network");
  upload(s, out_weights_.get(), net.out_weights, "uploading the network");
  if (!plastic_.empty()) {
    plastic_edges_ = cuda::DeviceBuffer<uint64_t>(plastic_.size(), "allocating the plastic edges");
    plastic_values_ = cuda::DeviceBuffer<int32_t>(plastic_.size(), "allocating the plastic weights");
    upload(s, plastic_edges_.get(), plastic_.edges(), "uploading the plastic edges");
  }
  cuda::check(cudaMemsetAsync(kick_steps_.get(), 0, n_ * sizeof(uint32_t), s), "clearing the kicks");
  cuda::check(cudaMemsetAsync(counters_.get(), 0, 2 * sizeof(uint32_t), s), "clearing the spike counters");
  upload_stimulus();
  import_state(resting_state(n_, c.v0, 0));
}

void CudaEngine::upload_stimulus() {
  const StimulusPlan& plan = *setup_.stimulus;
  std::vector<uint8_t> poisson(n_, 0);
  for (uint32_t i : plan.poisson_neurons) poisson[i] = 1;
  if (kicks_.size() < plan.kicks.size()) kicks_ = cuda::DeviceBuffer<Kick>(plan.kicks.size(), "allocating the kicks");
  const cudaStream_t s = stream_.get();
  upload(s, poisson_.get(), poisson, "uploading the stimulus");
  upload(s, kicks_.get(), plan.kicks, "uploading the kicks");
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

std::string CudaEngine::describe() const { return "cuda stream, device " + std::to_string(device_) + " " + device_name_; }

cuda::DeviceState CudaEngine::device_state() const {
  return {static_cast<uint32_t>(n_), v_.get(),          g_.get(),          last_spike_.get(),
          ring_.get(),              synaptic_slots_.get(), kick_steps_.get(), poisson_.get()};
}

cuda::DeviceNetwork CudaEngine::device_network() const {
  return {out_offsets_.get(), out_targets_.get(), out_weights_.get(), max_out_degree_};
}

std::vector<Spike> CudaEngine::advance(kernels::EpochSpan span) {
  const LifConstants& c = setup_.constants;
  check_span(span, next_step_, c.delay_steps);
  select_device();
  const cudaStream_t s = stream_.get();
  if (span.first % c.delay_steps == 0) {
    // The host's copy of these spikes moves on in the queue; the device's copy is
    // cell_spikes_[0, count), scattered now and then overwritten by this cell's spikes.
    queue_.begin_cell();
    cuda::launch_scatter(s, c, device_network(), device_state(), cell_spikes_.get(),
                         static_cast<uint32_t>(cell_spike_count_), span.first);
    cell_spike_count_ = 0;
  }

  const kernels::KickRange kicks = kernels::kicks_in(setup_.stimulus->kicks, span);
  cuda::launch_set_kicks(s, kicks_.get() + (kicks.first - setup_.stimulus->kicks.begin()),
                         static_cast<uint32_t>(kicks.last - kicks.first), span.first, kick_steps_.get());

  const auto capacity = static_cast<uint32_t>(cell_spikes_.size() - cell_spike_count_);
  cuda::launch_advance(s, c, span, kernels::rng_key(setup_.stimulus->seed, trial_), device_state(),
                       {cell_spikes_.get() + cell_spike_count_, epoch_spikes_.device(), capacity, counters_.get(),
                        epoch_spike_count_.device()});
  cuda::check(cudaGetLastError(), "launching the epoch");
  epoch_done_.wait_for(s, "running the epoch");

  const uint32_t count = *epoch_spike_count_.host();
  if (count > capacity)
    throw std::logic_error("CUDA engine: " + std::to_string(count) + " spikes in one epoch exceed the cell's room of " +
                           std::to_string(capacity));
  // Sorted by (step, neuron) as one 64-bit key: the step relative to the epoch fits in
  // the high half, and plain integers sort faster than the tuple comparison.
  sort_keys_.resize(count);
  const Spike* device_order = epoch_spikes_.host();
  for (uint32_t k = 0; k < count; ++k)
    sort_keys_[k] = uint64_t{static_cast<uint32_t>(device_order[k].step - span.first)} << 32 | device_order[k].neuron;
  std::sort(sort_keys_.begin(), sort_keys_.end());
  std::vector<Spike> spikes(count);
  for (uint32_t k = 0; k < count; ++k)
    spikes[k] = {span.first + static_cast<int32_t>(sort_keys_[k] >> 32), static_cast<uint32_t>(sort_keys_[k])};
  cell_spike_count_ += count;
  queue_.record(spikes);
  next_step_ = span.first + span.steps;
  return spikes;
}

EngineState CudaEngine::export_state() const {
  select_device();
  EngineState state;
  state.trial = trial_;
  state.next_step = next_step_;
  state.v.resize(n_);
  state.g.resize(n_);
  state.last_spike.resize(n_);
  const cudaStream_t s = stream_.get();
  cuda::check(cudaMemcpyAsync(state.v.data(), v_.get(), n_ * sizeof(double), cudaMemcpyDeviceToHost, s), "exporting v");
  cuda::check(cudaMemcpyAsync(state.g.data(), g_.get(), n_ * sizeof(double), cudaMemcpyDeviceToHost, s), "exporting g");
  cuda::check(cudaMemcpyAsync(state.last_spike.data(), last_spike_.get(), n_ * sizeof(int32_t), cudaMemcpyDeviceToHost, s),
              "exporting last_spike");
  cuda::check(cudaStreamSynchronize(s), "exporting the state");
  state.pending = queue_.undelivered(next_step_, setup_.constants.delay_steps);
  if (!plastic_.empty()) {
    state.plastic_weights.resize(plastic_.size());
    cuda::launch_gather_weights(s, out_weights_.get(), plastic_edges_.get(), static_cast<uint32_t>(plastic_.size()),
                                plastic_values_.get());
    cuda::check(cudaGetLastError(), "launching the weight gather");
    cuda::check(cudaMemcpyAsync(state.plastic_weights.data(), plastic_values_.get(), plastic_.size() * sizeof(int32_t),
                                cudaMemcpyDeviceToHost, s),
                "exporting the plastic weights");
    cuda::check(cudaStreamSynchronize(s), "exporting the plastic weights");
  }
  return state;
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

void CudaEngine::upload_cell_spikes(const std::vector<Spike>& spikes, std::size_t offset) {
  if (spikes.empty()) return;
  cuda::check(cudaMemcpyAsync(cell_spikes_.get() + offset, spikes.data(), spikes.size() * sizeof(Spike),
                              cudaMemcpyHostToDevice, stream_.get()),
              "importing the pending spikes");
}

void CudaEngine::import_state(const EngineState& state) {
  if (state.v.size() != n_ || state.g.size() != n_ || state.last_spike.size() != n_)
    throw std::invalid_argument("engine state holds " + std::to_string(state.v.size()) + " neurons, the network " +
                                std::to_string(n_));
  const int32_t delay = setup_.constants.delay_steps;
  for (const Spike& spike : state.pending)
    if (spike.neuron >= n_)
      throw std::invalid_argument("engine state has a pending spike of neuron " + std::to_string(spike.neuron) +
                                  ", the network " + std::to_string(n_) + " neurons");
  const auto delivering = static_cast<std::size_t>(std::count_if(
      state.pending.begin(), state.pending.end(),
      [&](const Spike& spike) { return kernels::still_delivering(spike, state.next_step, delay); }));
  if (delivering > cell_spikes_.size() || state.pending.size() - delivering > cell_spikes_.size())
    throw std::invalid_argument("engine state holds " + std::to_string(state.pending.size()) +
                                " pending spikes, more than " + std::to_string(n_) + " neurons can emit in a cell");

  if (!state.plastic_weights.empty()) plastic_.check_all(state.plastic_weights);
  select_device();
  const cudaStream_t s = stream_.get();
  cuda::check(cudaMemcpyAsync(v_.get(), state.v.data(), n_ * sizeof(double), cudaMemcpyHostToDevice, s), "importing v");
  cuda::check(cudaMemcpyAsync(g_.get(), state.g.data(), n_ * sizeof(double), cudaMemcpyHostToDevice, s), "importing g");
  cuda::check(cudaMemcpyAsync(last_spike_.get(), state.last_spike.data(), n_ * sizeof(int32_t), cudaMemcpyHostToDevice, s),
              "importing last_spike");
  if (!state.plastic_weights.empty()) {
    cuda::check(cudaMemcpyAsync(plastic_values_.get(), state.plastic_weights.data(), plastic_.size() * sizeof(int32_t),
                                cudaMemcpyHostToDevice, s),
                "importing the plastic weights");
    cuda::launch_assign_weights(s, plastic_values_.get(), static_cast<uint32_t>(plastic_.size()), plastic_edges_.get(),
                                out_weights_.get());
  }
  cuda::check(cudaMemsetAsync(ring_.get(), 0, ring_.size() * sizeof(int64_t), s), "clearing the delay ring");
  cuda::check(cudaMemsetAsync(synaptic_slots_.get(), 0, n_ * sizeof(uint32_t), s), "clearing the ring flags");
  // A failed advance can leave kicks set or the counters mid-count: start clean.
  cuda::check(cudaMemsetAsync(kick_steps_.get(), 0, n_ * sizeof(uint32_t), s), "clearing the kicks");
  cuda::check(cudaMemsetAsync(counters_.get(), 0, 2 * sizeof(uint32_t), s), "clearing the spike counters");
  // Mid-cell, the previous cell's spikes are scattered now, from next_step on; the
  // current cell's wait in cell_spikes_ for the next cell's start.
  const std::vector<Spike>& scatter_now = queue_.restore(state.pending, state.next_step, delay);
  upload_cell_spikes(scatter_now, 0);
  cuda::launch_scatter(s, setup_.constants, device_network(), device_state(), cell_spikes_.get(),
                       static_cast<uint32_t>(scatter_now.size()), state.next_step);
  cuda::check(cudaGetLastError(), "launching the scatter");
  upload_cell_spikes(queue_.waiting(), 0);
  cuda::check(cudaStreamSynchronize(s), "importing the state");
  cell_spike_count_ = queue_.waiting().size();
  trial_ = state.trial;
  next_step_ = state.next_step;
}

}  // namespace

std::unique_ptr<Engine> make_cuda_engine(EngineSetup setup) {
  const CudaProbe probe = probe_cuda(setup.cuda_device);
  if (!probe.problem.empty()) throw input_error("the CUDA engine cannot run here: " + probe.problem);
  const int device = setup.cuda_device;
  return std::make_unique<CudaEngine>(std::move(setup), device,
                                      probe.device_name + " (sm_" + std::to_string(probe.cc_major) +
                                          std::to_string(probe.cc_minor) + ")");
}

}  // namespace flysim
