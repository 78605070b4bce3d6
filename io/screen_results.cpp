#include "io/screen_results.hpp"

#include <fmt/format.h>

#include <charconv>
#include <sstream>

#include "model/errors.hpp"
#include "io/table_numbers.hpp"
#include "model/rate_stats.hpp"

namespace flysim {

namespace {

constexpr const char* kPartHeader = "flysim-screen-part 1";

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

std::string counts_part_text(const ExperimentCounts& c) {
  std::string text = fmt::format("{}\nname {}\ntrials {}\n", kPartHeader, c.name, c.trials);
  for (const auto& [id, spikes] : c.spikes) {
    fmt::format_to(std::back_inserter(text), "{}", id);
    for (uint64_t n : spikes) fmt::format_to(std::back_inserter(text), " {}", n);
    text += '\n';
  }
  return text + "end\n";
}

ExperimentCounts parse_counts_part(const std::string& path, const std::string& text) {
  std::istringstream in(text);
  std::string line;
  ExperimentCounts c;
  const auto damaged = [&](std::size_t at, const std::string& what) {
    return input_error_at(path, at, what + ": the screen's part file is damaged (delete it to run that experiment again)");
  };
  if (!std::getline(in, line) || line != kPartHeader) throw damaged(1, "not a screen part");
  if (!std::getline(in, line) || line.rfind("name ", 0) != 0) throw damaged(2, "no name");
  c.name = line.substr(5);
  if (!std::getline(in, line) || line.rfind("trials ", 0) != 0) throw damaged(3, "no trial count");
  c.trials = parse_int<int32_t>(path, 3, line.substr(7));
  for (std::size_t at = 4; std::getline(in, line); ++at) {
    if (line == "end") return c;
    std::istringstream fields(line);
    std::string field;
    fields >> field;
    std::vector<uint64_t>& spikes = c.spikes[parse_int<int64_t>(path, at, field)];
    while (fields >> field) spikes.push_back(parse_int<uint64_t>(path, at, field));
    if (spikes.size() != static_cast<std::size_t>(c.trials)) throw damaged(at, "a neuron without a count for each trial");
  }
  throw damaged(1, "no 'end' line");
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
