#pragma once
// The messages between a screen's coordinator (flysim screen --screen.nodes) and its
// workers (flysim worker): the coordinator opens a session with the options that decide
// what a trial computes and its network's hash; the worker answers with one slot per
// engine; each slot runs one experiment at a time and answers with its counts.
// Both answers are sent back to the asker as messages of their own (not CAF responses),
// so that the asker can wait for them and for the down message of a lost worker at once.
#include <caf/all.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "messages/messages.hpp"
#include "model/stimulus.hpp"

namespace flysim {

using hello_atom = caf::atom_constant<caf::atom("hello")>;
using work_atom = caf::atom_constant<caf::atom("work")>;

// coordinator -> worker: open a session for one screen.
struct ScreenWorkerSetup {
  // The screen's options that decide what a trial computes ("key", "value" in turn).
  std::vector<std::string> options;
  uint64_t network_hash = 0;        // Network::content_hash of the coordinator's network
  std::string network_description;  // for the message of a worker that refuses
};

// worker -> coordinator: the session's slots (one per engine), or why the worker refused.
struct ScreenWorkerReady {
  std::string refusal;  // empty: ready
  std::string description;  // the worker's engines, in words
  std::vector<caf::actor> slots;
};

// coordinator -> slot: run one experiment (all of run.trials).
struct ScreenWorkItem {
  uint64_t index = 0;  // the experiment's place in the screen
  std::string name;
  StimulusPlan plan;
  double rate_Hz = 0;  // the default group's rate
  bool keep_spikes = false;
};

// slot -> coordinator: the experiment's counts (counts_part_text) and, when asked, its
// spike lines; or the error that stopped it (the coordinator runs it elsewhere).
struct ScreenWorkResult {
  uint64_t index = 0;
  std::string counts_text;
  std::string spike_lines;
  std::string error;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, ScreenWorkerSetup& x) {
  return f(caf::meta::type_name("flysim.screen_worker_setup"), x.options, x.network_hash, x.network_description);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, ScreenWorkerReady& x) {
  return f(caf::meta::type_name("flysim.screen_worker_ready"), x.refusal, x.description, x.slots);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, ScreenWorkItem& x) {
  return f(caf::meta::type_name("flysim.screen_work_item"), x.index, x.name, x.plan, x.rate_Hz, x.keep_spikes);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, ScreenWorkResult& x) {
  return f(caf::meta::type_name("flysim.screen_work_result"), x.index, x.counts_text, x.spike_lines, x.error);
}

}  // namespace flysim
