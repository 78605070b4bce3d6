#include "apps/flysim/run/replay_options.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <filesystem>

#include "apps/flysim/options/result_options.hpp"

namespace flysim::app {

namespace {
// What may differ between a live run and its replay: everything that changes no spike
// (outputs, logs, the engine, the cache, checkpoints, the pace, swaps, CPUs, where
// plasticity's shards run).
OverrideRule replay_rule() {
  return {[](const std::string& key) { return !changes_result(key); },
          "the options that change the result come from the journal alone: " + result_options_text()};
}
}  // namespace

Options parse_run_options(const std::vector<OptionSpec>& specs, const std::vector<std::string>& args,
                          std::optional<ReplayJournal>& replay) {
  const Options first = Options::parse(specs, args);
  if (first.text("replay").empty()) return first;
  const std::string path = first.text("replay");
  replay = read_replay_journal(path);
  const auto& commands = replay->commands;
  const bool stops = std::any_of(commands.begin(), commands.end(),
                                 [](const PlacedCommand& c) { return std::holds_alternative<StopCommand>(c.command); });
  if (!stops) spdlog::warn("{}: the journal has no stop: the replay runs to the end of the plan", path);
  return Options::parse(specs, args, replay->contents.options, path, replay_rule());
}

// Nothing that only decides where a run goes or where its outputs go is recorded.
std::map<std::string, std::string> journaled_options(const Options& o, const std::vector<OptionSpec>& specs) {
  // A restored run's duration is its checkpoint's: journal it only where it was given.
  const bool restoring = std::any_of(specs.begin(), specs.end(), [](const OptionSpec& s) { return s.key == "restore"; }) &&
                         !o.text("restore").empty();
  std::map<std::string, std::string> recorded;
  for (const OptionSpec& spec : specs)
    for (const std::string& key : o.keys_of(spec))
      if (changes_result(key) && (o.given(key) || (key == "run.duration-ms" && !restoring)))
        // Paths absolute: a replay may run from another folder.
        recorded[key] = spec.type == OptionType::path && !o.text(key).empty()
                            ? std::filesystem::absolute(o.text(key)).lexically_normal().string()
                            : o.text(key);
  return recorded;
}

}  // namespace flysim::app
