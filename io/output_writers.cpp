#include "io/output_writers.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <functional>
#include <map>

#include "io/csv_writers.hpp"
#include "io/reference_spike_writer.hpp"
#include "model/errors.hpp"

namespace flysim {

namespace {

template <class Writer>
using FormatTable = std::map<std::string, std::function<std::unique_ptr<Writer>(const OutputSpec&)>>;

const FormatTable<SpikeWriter>& spike_table() {
  static const FormatTable<SpikeWriter> table = {
      {"csv", [](const OutputSpec& s) { return std::make_unique<CsvSpikeWriter>(s.path, s.stream); }},
      {"reference", [](const OutputSpec& s) { return std::make_unique<ReferenceSpikeWriter>(s.path, s.stream, s.experiment); }},
  };
  return table;
}

const FormatTable<RateWriter>& rate_table() {
  static const FormatTable<RateWriter> table = {
      {"csv", [](const OutputSpec& s) { return std::make_unique<CsvRateWriter>(s.path); }},
  };
  return table;
}

template <class Writer>
std::vector<std::string> names_of(const FormatTable<Writer>& table) {
  std::vector<std::string> names;
  for (const auto& [name, make] : table) names.push_back(name);
  return names;
}

template <class Writer>
std::unique_ptr<Writer> make_writer(const FormatTable<Writer>& table, const OutputSpec& spec) {
  const auto it = table.find(spec.format);
  if (it == table.end())
    throw input_error(fmt::format("{}: unknown format '{}' (known: {})", spec.option, spec.format, fmt::join(names_of(table), ", ")));
  return it->second(spec);
}

}  // namespace

std::unique_ptr<SpikeWriter> make_spike_writer(const OutputSpec& spec) { return make_writer(spike_table(), spec); }
std::unique_ptr<RateWriter> make_rate_writer(const OutputSpec& spec) { return make_writer(rate_table(), spec); }
std::vector<std::string> spike_format_names() { return names_of(spike_table()); }

}  // namespace flysim
