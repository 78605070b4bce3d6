#include "io/csv_writers.hpp"

#include <fmt/format.h>

#include "io/atomic_file.hpp"
#include "io/printed_times.hpp"
#include "io/table_numbers.hpp"

namespace flysim {

std::string CsvSpikeWriter::start(const SpikeRunInfo& run) {
  network_ = run.network;
  dt_ms_ = run.dt_ms;
  time_decimals_ = time_decimals(run.dt_ms);
  return "trial,step,t_ms,neuron_id\n";
}

void CsvSpikeWriter::append_rows(const SpikeBatch& batch, std::string& out) const {
  for (const Spike& s : batch.spikes)
    fmt::format_to(std::back_inserter(out), "{},{},{:.{}f},{}\n", batch.trial, s.step, s.step * dt_ms_, time_decimals_,
                   network_->root_ids[s.neuron]);
}

void CsvRateWriter::write(const std::vector<Responder>& ranked) {
  std::string text = "neuron_id,index,spikes,rate_hz\n";
  for (const Responder& r : ranked) fmt::format_to(std::back_inserter(text), "{},{},{},{}\n", r.root_id, r.index, r.spikes, table_number(r.rate_Hz));
  write_atomically(path_, text);
}

}  // namespace flysim
