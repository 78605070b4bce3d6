#pragma once
// output.spikes-format=reference: flysim run's spikes in the reference model's schema
// (io/reference_spikes.hpp), the experiment named by the file (docs/OUTPUTS.md).
#include <memory>
#include <string>

#include "io/spike_file_writer.hpp"

namespace flysim {

class ReferenceSpikeWriter final : public SpikeFileWriter {
 public:
  ReferenceSpikeWriter(std::string path, bool stream, std::string experiment)
      : SpikeFileWriter(std::move(path), stream), experiment_(std::move(experiment)) {}

 private:
  std::string start(const SpikeRunInfo& run) override;
  void append_rows(const SpikeBatch& batch, std::string& out) const override;
  std::string experiment_;
  std::shared_ptr<const Network> network_;
  double dt_ms_ = 0.1;
};

}  // namespace flysim
