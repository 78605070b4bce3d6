#pragma once
// What flysim run and serve write when the run ends, besides the recorder's files: the
// summary (stdout, output.summary) and the learned weights (plasticity.weights-out).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "messages/messages.hpp"
#include "model/network.hpp"
#include "model/stimulus.hpp"

namespace flysim::app {

struct RunOutputs {
  std::shared_ptr<const Network> network;
  std::shared_ptr<const StimulusPlan> stimulus;  // at the start of the run
  double stimulus_rate_Hz = 0.0;
  std::string compatibility;
  bool paced = false;
  bool endless = false;  // run.duration-ms=forever: one trial until stopped
  std::string summary_path;  // output.summary; empty: not written
  std::string weights_path;  // plasticity.weights-out; empty: not written
  std::shared_ptr<const std::vector<uint64_t>> plastic_edges;
  std::string command = "run";  // the summary's heading: run or serve
};

// Writes the learned weights, prints the summary and writes output.summary; throws
// input_error when a file cannot be written.
void write_run_outputs(const RunOutputs& outputs, const RunSummary& summary);

}  // namespace flysim::app
