#pragma once
// A screen's results (flysim screen): each experiment's spike counts per neuron and
// trial, the small part file that keeps them across an interruption, and the rows of
// rates.csv and readouts.csv made from them.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

struct XXH3_state_s;

namespace flysim {

struct ExperimentCounts {
  std::string name;
  int32_t trials = 0;
  // Root ID (ascending) -> that neuron's spikes in each trial; only neurons that spiked.
  std::map<int64_t, std::vector<uint64_t>> spikes;
};

// What a counts part records of its experiment's spike part: the size and XXH3-64 of its
// bytes, so that a spike part cut short or changed is found before it is joined into
// spikes.csv.
struct SpikePartSeal {
  uint64_t bytes = 0;
  uint64_t hash = 0;
  friend bool operator==(const SpikePartSeal&, const SpikePartSeal&) = default;
};

// The seal of bytes fed in pieces (a spike part read a block at a time).
class SpikePartSealer {
 public:
  SpikePartSealer();
  ~SpikePartSealer();
  SpikePartSealer(const SpikePartSealer&) = delete;
  SpikePartSealer& operator=(const SpikePartSealer&) = delete;
  void add(const char* data, std::size_t bytes);
  SpikePartSeal seal() const;

 private:
  XXH3_state_s* state_;
  uint64_t bytes_ = 0;
};
SpikePartSeal seal_of(const std::string& bytes);

// A counts part as read back: the counts, and the seal of the spike part beside it
// (none when the screen keeps no spikes).
struct CountsPart {
  ExperimentCounts counts;
  std::optional<SpikePartSeal> spikes;
};

// The part file's text, and back (errors name `path`). The text ends with a checksum of
// everything before it, so that a part changed or cut short is refused as damaged.
// `source` says what a damaged text means: a file to delete, or a worker of another version.
enum class PartSource { file, worker };
std::string counts_part_text(const ExperimentCounts& counts, const std::optional<SpikePartSeal>& spikes = std::nullopt);
CountsPart parse_counts_part(const std::string& path, const std::string& text, PartSource source = PartSource::file);

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
