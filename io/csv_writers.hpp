#pragma once
// The CSV formats of flysim run's spike and rate files (docs/OUTPUTS.md).
#include <string>
#include <vector>

#include "io/rate_writer.hpp"
#include "io/spike_file_writer.hpp"

namespace flysim {

// trial,step,t_ms,neuron_id: t_ms with the decimals dt needs (io/printed_times.hpp).
class CsvSpikeWriter final : public SpikeFileWriter {
 public:
  using SpikeFileWriter::SpikeFileWriter;

 private:
  std::string start(const SpikeRunInfo& run) override;
  void append_rows(const SpikeBatch& batch, std::string& out) const override;
  std::shared_ptr<const Network> network_;
  double dt_ms_ = 0.1;
  int time_decimals_ = 1;
};

// neuron_id,index,spikes,rate_hz: the rate with three decimals.
class CsvRateWriter final : public RateWriter {
 public:
  explicit CsvRateWriter(std::string path) : path_(std::move(path)) {}
  void write(const std::vector<Responder>& ranked) override;

 private:
  std::string path_;
};

}  // namespace flysim
