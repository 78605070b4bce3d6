#include "io/screen_results.hpp"

#include <fmt/format.h>

#include <xxhash.h>

#include <algorithm>
#include <charconv>
#include <sstream>

#include "model/errors.hpp"
#include "io/table_numbers.hpp"
#include "model/rate_stats.hpp"

namespace flysim {

namespace {

constexpr const char* kPartHeader = "flysim-screen-part 2";

// A counts part's last line: the checksum of its first `length` bytes.
std::string end_line(const std::string& text, std::size_t length) {
  return fmt::format("end {:016x}\n", XXH3_64bits(text.data(), length));
}

std::vector<double> rates_of(const std::vector<uint64_t>& spikes, double trial_s) {
  std::vector<double> rates;
  for (uint64_t n : spikes) rates.push_back(rate_Hz(n, trial_s));
  return rates;
}

std::vector<uint64_t> spikes_of(const ExperimentCounts& counts, int64_t id) {
  const auto it = counts.spikes.find(id);
  return it == counts.spikes.end() ? std::vector<uint64_t>(static_cast<std::size_t>(counts.trials), 0) : it->second;
}

template <class Int>
Int parse_int(const std::string& path, std::size_t line, const std::string& text) {
  Int value{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size())
    throw input_error_at(path, line, "'" + text + "' is not a count: the screen's part file is damaged (delete it to run that experiment again)");
  return value;
}

}  // namespace

SpikePartSealer::SpikePartSealer() : state_(XXH3_createState()) {
  if (state_ == nullptr) throw std::bad_alloc();
  XXH3_64bits_reset(state_);
}
SpikePartSealer::~SpikePartSealer() { XXH3_freeState(state_); }
void SpikePartSealer::add(const char* data, std::size_t bytes) {
  XXH3_64bits_update(state_, data, bytes);
  bytes_ += bytes;
}
SpikePartSeal SpikePartSealer::seal() const { return {bytes_, XXH3_64bits_digest(state_)}; }

SpikePartSeal seal_of(const std::string& bytes) { return {bytes.size(), XXH3_64bits(bytes.data(), bytes.size())}; }

std::string counts_part_text(const ExperimentCounts& c, const std::optional<SpikePartSeal>& spikes) {
  std::string text = fmt::format("{}\nname {}\ntrials {}\n", kPartHeader, c.name, c.trials);
  for (const auto& [id, counts] : c.spikes) {
    fmt::format_to(std::back_inserter(text), "{}", id);
    for (uint64_t n : counts) fmt::format_to(std::back_inserter(text), " {}", n);
    text += '\n';
  }
  if (spikes) fmt::format_to(std::back_inserter(text), "spikes {} {:016x}\n", spikes->bytes, spikes->hash);
  return text + end_line(text, text.size());
}

CountsPart parse_counts_part(const std::string& path, const std::string& text, PartSource source) {
  const auto damaged = [&](std::size_t at, const std::string& what) {
    return input_error_at(path, std::max<std::size_t>(at, 1),
                          what + (source == PartSource::file
                                      ? ": the screen's part file is damaged (delete it to run that experiment again)"
                                      : ": the worker's counts do not read as this flysim's (a flysim of another version?)"));
  };
  // The checksum first: any change to the text before it (a count edited, lines lost) shows.
  const std::size_t end_at = text.rfind("end ");
  const std::size_t lines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
  if (text.empty() || end_at == std::string::npos || (end_at != 0 && text[end_at - 1] != '\n') || text.back() != '\n')
    throw damaged(lines, "no 'end' line");
  if (text.substr(end_at) != end_line(text, end_at))
    throw damaged(lines, "its checksum does not match its text");
  std::istringstream in(text.substr(0, end_at));
  std::string line;
  CountsPart part;
  ExperimentCounts& c = part.counts;
  if (!std::getline(in, line) || line != kPartHeader) throw damaged(1, "not a screen part of this flysim");
  if (!std::getline(in, line) || line.rfind("name ", 0) != 0) throw damaged(2, "no name");
  c.name = line.substr(5);
  if (!std::getline(in, line) || line.rfind("trials ", 0) != 0) throw damaged(3, "no trial count");
  c.trials = parse_int<int32_t>(path, 3, line.substr(7));
  for (std::size_t at = 4; std::getline(in, line); ++at) {
    std::istringstream fields(line);
    std::string field;
    fields >> field;
    if (field == "spikes") {
      std::string hash;
      fields >> field >> hash;
      part.spikes = SpikePartSeal{parse_int<uint64_t>(path, at, field), 0};
      const auto [hash_end, ec] = std::from_chars(hash.data(), hash.data() + hash.size(), part.spikes->hash, 16);
      if (hash.size() != 16 || ec != std::errc() || hash_end != hash.data() + hash.size()) throw damaged(at, "a bad spike part checksum");
      continue;
    }
    std::vector<uint64_t>& counts = c.spikes[parse_int<int64_t>(path, at, field)];
    while (fields >> field) counts.push_back(parse_int<uint64_t>(path, at, field));
    if (counts.size() != static_cast<std::size_t>(c.trials)) throw damaged(at, "a neuron without a count for each trial");
  }
  return part;
}

std::string screen_rate_rows(const ExperimentCounts& c, double trial_s) {
  std::string text;
  for (const auto& [id, spikes] : c.spikes) {
    const RateStats s = rate_stats(rates_of(spikes, trial_s));
    fmt::format_to(std::back_inserter(text), "{},{},{},{},{}\n", c.name, id, c.trials, table_number(s.mean), spread_field(s.sd));
  }
  return text;
}

std::vector<double> readout_means(const ExperimentCounts& c, const std::vector<int64_t>& readouts, double trial_s) {
  std::vector<double> means;
  for (int64_t id : readouts) means.push_back(rate_stats(rates_of(spikes_of(c, id), trial_s)).mean);
  return means;
}

std::string screen_readout_rows(const ExperimentCounts& c, const std::vector<int64_t>& readouts, double trial_s,
                                const std::optional<std::vector<double>>& baseline_means) {
  std::string text;
  for (std::size_t k = 0; k < readouts.size(); ++k) {
    const RateStats s = rate_stats(rates_of(spikes_of(c, readouts[k]), trial_s));
    fmt::format_to(std::back_inserter(text), "{},{},{},{},{},{},{}\n", c.name, readouts[k], c.trials, table_number(s.mean),
                   spread_field(s.sd), spread_field(s.sem), baseline_means ? table_number(s.mean - (*baseline_means)[k]) : std::string());
  }
  return text;
}

}  // namespace flysim
