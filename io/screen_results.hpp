#pragma once
// A screen's results (flysim screen): each experiment's spike counts per neuron and
// trial, the small part file that keeps them across an interruption, and the rows of
// rates.csv and readouts.csv made from them.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace flysim {

struct ExperimentCounts {
  std::string name;
  int32_t trials = 0;
  // Root ID (ascending) -> that neuron's spikes in each trial; only neurons that spiked.
  std::map<int64_t, std::vector<uint64_t>> spikes;
};

// The part file's text, and back (errors name `path`).
std::string counts_part_text(const ExperimentCounts& counts);
ExperimentCounts parse_counts_part(const std::string& path, const std::string& text);

inline const char* kScreenRatesHeader = "exp_name,flywire_id,trials,mean_rate_hz,sd_hz\n";
inline const char* kScreenReadoutsHeader = "exp_name,readout_id,trials,mean_rate_hz,sd_hz,sem_hz,change_hz\n";

// rates.csv's rows of one experiment: every neuron that spiked, flywire_id ascending;
// mean and sample sd (n - 1) over the trials of spikes / trial_s (0 Hz where it did not spike).
std::string screen_rate_rows(const ExperimentCounts& counts, double trial_s);
// The mean rate of each readout (0 Hz when it never spiked).
std::vector<double> readout_means(const ExperimentCounts& counts, const std::vector<int64_t>& readouts, double trial_s);
// readouts.csv's rows of one experiment, one per readout; change_hz is the mean less the
// baseline's, empty without one.
std::string screen_readout_rows(const ExperimentCounts& counts, const std::vector<int64_t>& readouts, double trial_s,
                                const std::optional<std::vector<double>>& baseline_means);

}  // namespace flysim
