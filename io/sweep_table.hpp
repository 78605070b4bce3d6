#pragma once
// The results of a dose-response sweep (flysim sweep) and their two CSV files.
#include <cstdint>
#include <string>
#include <vector>

namespace flysim {

struct SweepTable {
  std::vector<double> stimulus_rates_Hz;
  std::vector<int64_t> readout_ids;  // root IDs
  double trial_s = 1.0;              // simulated seconds per trial
  // counts[rate][trial][readout]: spikes of that readout in that trial at that rate.
  std::vector<std::vector<std::vector<uint64_t>>> counts;
};

// 'stimulus_rate_hz,trial,readout_id,spikes,rate_hz': every trial's rate of every readout.
std::string trials_csv(const SweepTable& table);
// 'readout_id,stimulus_rate_hz,trials,mean_rate_hz,sd_hz,sem_hz': per readout and rate,
// the mean of the trials' rates, their sample standard deviation (n - 1) and the standard
// error of the mean (sd / sqrt(n)), both empty for one trial.
std::string sweep_csv(const SweepTable& table);

}  // namespace flysim
