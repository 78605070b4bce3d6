#include "apps/flysim/service/replay_journal.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "actors/stimulus_command.hpp"
#include "apps/flysim/service/control_json.hpp"
#include "model/errors.hpp"

namespace flysim::app {

ReplayJournal read_replay_journal(const std::string& path) {
  ReplayJournal r;
  r.path = path;
  std::size_t torn = 0;
  r.contents = read_journal(path, &torn);
  if (torn) spdlog::warn("{}:{}: an unfinished last line (the service was killed while writing it) is ignored", path, torn);
  for (const JournalLine& line : r.contents.lines) {
    JournaledCommand e;
    try {
      e = journal_entry_from_json(line.text);
    } catch (const bad_request& why) {
      throw input_error_at(path, line.number, why.what());
    }
    const auto expected = static_cast<int64_t>(r.commands.size()) + 1;
    if (e.seq != expected)
      throw input_error_at(path, line.number, fmt::format("entry number {}, expected {} (a line given twice, left out or moved)", e.seq, expected));
    const RunPosition at{e.trial, e.step};
    if (!r.commands.empty() && at < r.commands.back().at)
      throw input_error_at(path, line.number, fmt::format("entries go back in time (trial {} step {})", e.trial, e.step));
    r.commands.push_back({at, std::move(e.command)});
    r.lines.push_back(line.number);
  }
  return r;
}

void check_replay(const ReplayJournal& journal, const Network& net, const TrialPlan& plan, const ScheduleGeometry& g,
                  std::optional<uint64_t> restored_checksum) {
  if (journal.contents.network_hash != net.content_hash())
    throw input_error_at(journal.path, 1,
                         fmt::format("the journal was written for the network of content hash {:016x}; the network files "
                                     "given now hash to {:016x} (they changed since the live run)",
                                     journal.contents.network_hash, net.content_hash()));
  // The checkpoint is read again under its name: it must be the same file's content.
  if (const auto restore = journal.contents.options.find("restore");
      restore != journal.contents.options.end() && !restore->second.empty()) {
    if (!journal.contents.restored_checksum)
      spdlog::warn("{}: written by an older flysim, without the checksum of the checkpoint it started from: {} is "
                   "taken as that checkpoint unchecked", journal.path, restore->second);
    else if (journal.contents.restored_checksum != restored_checksum)
      throw input_error_at(journal.path, 1,
                           fmt::format("the live run started from the checkpoint of payload checksum {:016x}; {} holds "
                                       "the one of {:016x} now (another file under its name)",
                                       *journal.contents.restored_checksum, restore->second, restored_checksum.value_or(0)));
  }
  TrialPlan now = plan;
  for (std::size_t k = 0; k < journal.commands.size(); ++k) {
    const PlacedCommand& c = journal.commands[k];
    const auto fail = [&](const std::string& what) { return input_error_at(journal.path, journal.lines[k], what); };
    const int32_t granularity = std::holds_alternative<CheckpointCommand>(c.command) ? g.checkpoint_granularity : g.delay_steps;
    if (c.at.trial >= g.trials || c.at.step >= g.steps_per_trial || c.at.step % granularity != 0)
      throw fail(fmt::format("trial {} step {} is no boundary where a {} applies in this run ({} trials of {} steps, every {} steps)",
                             c.at.trial, c.at.step, action_name(c.command), g.trials, g.steps_per_trial, granularity));
    const auto* stimulus = std::get_if<StimulusCommand>(&c.command);
    if (!stimulus) continue;
    try {
      now = stimulus_change(now, *stimulus, c.at, net, g.dt_ms).plan;
    } catch (const input_error& e) {
      throw fail(std::string("stimulus: ") + e.what());
    }
  }
}

}  // namespace flysim::app
