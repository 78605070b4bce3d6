#pragma once
// The factory of output writers: an output's spec (path, format name, mode) in, the
// writer of that format out. Adding a format: a writer subclass and one line in the
// format table of its kind (output_writers.cpp; docs/OUTPUTS.md).
#include <memory>
#include <string>
#include <vector>

#include "io/rate_writer.hpp"
#include "io/spike_writer.hpp"

namespace flysim {

struct OutputSpec {
  std::string option{};        // the option that names it ("output.spikes"), for messages
  std::string path{};          // empty: not written
  std::string format = "csv";  // a name in the factory's table
  bool stream = false;         // spike outputs: grow as the run goes (io/output_file.hpp)
  std::string experiment{};    // formats whose rows name their experiment (reference)
};

// Throws input_error "OPTION: unknown format 'F' (known: ...)" for a format not in the table.
std::unique_ptr<SpikeWriter> make_spike_writer(const OutputSpec& spec);
std::unique_ptr<RateWriter> make_rate_writer(const OutputSpec& spec);
// The spike formats' names, for an option's early check and its help.
std::vector<std::string> spike_format_names();

}  // namespace flysim
