#include "io/sweep_table.hpp"

#include <fmt/format.h>

#include "io/table_numbers.hpp"
#include "model/rate_stats.hpp"

namespace flysim {

std::string trials_csv(const SweepTable& t) {
  std::string text = "stimulus_rate_hz,trial,readout_id,spikes,rate_hz\n";
  for (std::size_t r = 0; r < t.stimulus_rates_Hz.size(); ++r)
    for (std::size_t trial = 0; trial < t.counts[r].size(); ++trial)
      for (std::size_t k = 0; k < t.readout_ids.size(); ++k)
        fmt::format_to(std::back_inserter(text), "{},{},{},{},{}\n", table_number(t.stimulus_rates_Hz[r]), trial, t.readout_ids[k],
                       t.counts[r][trial][k], table_number(rate_Hz(t.counts[r][trial][k], t.trial_s)));
  return text;
}

std::string sweep_csv(const SweepTable& t) {
  std::string text = "readout_id,stimulus_rate_hz,trials,mean_rate_hz,sd_hz,sem_hz\n";
  for (std::size_t k = 0; k < t.readout_ids.size(); ++k)
    for (std::size_t r = 0; r < t.stimulus_rates_Hz.size(); ++r) {
      std::vector<double> rates;
      for (const auto& trial : t.counts[r]) rates.push_back(rate_Hz(trial[k], t.trial_s));
      const RateStats stats = rate_stats(rates);
      fmt::format_to(std::back_inserter(text), "{},{},{},{},{},{}\n", t.readout_ids[k], table_number(t.stimulus_rates_Hz[r]),
                     rates.size(), table_number(stats.mean), spread_field(stats.sd), spread_field(stats.sem));
    }
  return text;
}

}  // namespace flysim
