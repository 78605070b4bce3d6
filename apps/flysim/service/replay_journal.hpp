#pragma once
// A journal being replayed (run --replay=FILE): every line checked as the control API
// checks a request, then against the run once its network and plan are known. Each
// refusal names FILE:LINE.
#include <string>
#include <vector>

#include "actors/schedule.hpp"
#include "io/journal.hpp"
#include "model/network.hpp"
#include "model/snapshot.hpp"

namespace flysim::app {

struct ReplayJournal {
  std::string path;
  JournalContents contents;            // the header: options, network hash
  std::vector<PlacedCommand> commands;
  std::vector<std::size_t> lines;      // the line of each command
};

// Reads `path`: each entry through journal_entry_from_json, numbered 1, 2, ... (a line
// given twice or left out is refused), at boundaries that never go back.
ReplayJournal read_replay_journal(const std::string& path);

// The journal's network is `net` (by content hash), and each command applies where the
// live run could have applied it in a run of geometry `g` starting from `plan`: inside
// the plan, on a delay-cell boundary (a checkpoint on its granularity), and a stimulus
// change the sim loop takes (stimulus_change); a restored run's checkpoint (its payload
// checksum `restored_checksum`) is the one the live run started from.
void check_replay(const ReplayJournal& journal, const Network& net, const TrialPlan& plan, const ScheduleGeometry& g,
                  std::optional<uint64_t> restored_checksum);

}  // namespace flysim::app
