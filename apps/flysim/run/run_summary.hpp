#pragma once
// The summary of `flysim run` and `flysim serve`: as text on stdout, and as JSON in
// output.summary for scripts and tests (README.md lists its fields).
#include <string>

#include "messages/messages.hpp"
#include "model/network.hpp"
#include "model/stimulus.hpp"

namespace flysim::app {

// What the summary says besides the RunSummary the sim loop answers with.
struct SummaryContext {
  const Network& network;
  const StimulusPlan& stimulus;  // at the start of the run (RunSummary: its live changes)
  double stimulus_rate_Hz = 0.0;
  std::string compatibility;
  bool paced = false;
  bool endless = false;  // run.duration-ms=forever: the trial has no length of its own
  std::string weights_path;  // plasticity.weights-out, written; empty: none
  std::size_t plastic_connections = 0;
  std::string command = "run";  // "flysim run: done", "flysim serve: stopped"
};

void print_summary(const RunSummary& s, const SummaryContext& c);
std::string summary_json(const RunSummary& s, const SummaryContext& c);
// summary_json into `path`, atomically (io/atomic_file.hpp). Throws input_error.
void write_summary_json(const std::string& path, const RunSummary& s, const SummaryContext& c);

}  // namespace flysim::app
