#pragma once
// The options of flysim run and serve and the journal: a journal records the options
// that decide what a run computes, and a replay (--replay=JOURNAL) takes them back.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "apps/flysim/options/options.hpp"
#include "apps/flysim/service/replay_journal.hpp"

namespace flysim::app {

// The options of a run: from the command line, or for --replay=JOURNAL the journal's with
// the command line's outputs (only what may differ between a live run and its replay);
// `replay` gets the journal.
Options parse_run_options(const std::vector<OptionSpec>& specs, const std::vector<std::string>& args,
                          std::optional<ReplayJournal>& replay);

// The options a journal records: those the user set that decide what a run computes,
// and the duration (whose default differs between run and serve); paths absolute.
std::map<std::string, std::string> journaled_options(const Options& o, const std::vector<OptionSpec>& specs);

}  // namespace flysim::app
