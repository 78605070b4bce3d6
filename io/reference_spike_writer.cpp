#include "io/reference_spike_writer.hpp"

#include "io/reference_spikes.hpp"

namespace flysim {

std::string ReferenceSpikeWriter::start(const SpikeRunInfo& run) {
  network_ = run.network;
  dt_ms_ = run.dt_ms;
  return kReferenceSpikesHeader;
}

void ReferenceSpikeWriter::append_rows(const SpikeBatch& batch, std::string& out) const {
  for (const Spike& s : batch.spikes) append_reference_spike(out, s.step, dt_ms_, batch.trial, network_->root_ids[s.neuron], experiment_);
}

}  // namespace flysim
