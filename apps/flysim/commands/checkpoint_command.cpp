// flysim checkpoint inspect FILE: what a checkpoint file holds. The header (format
// version, contract strings, network hash, payload size and checksum, and whether the
// checksum verifies), then where the run stood and what it was running. A file that
// cannot be read, is not a checkpoint, or is damaged ends in one error line, exit 2.
#include <fmt/format.h>

#include <algorithm>
#include <iostream>

#include "actors/schedule.hpp"
#include "apps/flysim/commands/commands.hpp"
#include "apps/flysim/options/options.hpp"
#include "apps/flysim/options/common_options.hpp"
#include "checkpoint/checkpoint_file.hpp"
#include "checkpoint/snapshot_check.hpp"
#include "model/errors.hpp"
#include "io/input_file.hpp"
#include "model/lif_params.hpp"

namespace flysim::app {

namespace {

constexpr const char* kCheckpointUsage = "flysim checkpoint inspect FILE [--model.dt-ms=MS] [--model.delay-ms=MS]";

std::vector<OptionSpec> checkpoint_options() {
  const std::vector<OptionSpec> model = model_options();
  return {spec_of(model, "model.dt-ms",
                  "time step of the run that wrote the checkpoint, ms (to print times, and with model.delay-ms the delay "
                  "cell the file's position must lie on)"),
          spec_of(model, "model.delay-ms", "synaptic delay of the run that wrote the checkpoint, ms")};
}

void print_header(const std::string& path, std::size_t file_bytes, const CheckpointHeader& h) {
  std::cout << fmt::format(
      "flysim checkpoint {}\n"
      "  file bytes      {}\n"
      "  format version  {}\n"
      "  compatibility   {}\n"
      "  kernel version  {}\n"
      "  network hash    {:016x}\n"
      "  payload         {} bytes, checksum {:016x} (xxh3-64), ",
      path, file_bytes, h.format_version, h.compatibility, h.kernel_version,
      h.network_hash, h.payload_bytes, h.payload_checksum);
}

// The plan's further Poisson groups and silenced set, a line each ("" when it has none).
std::string groups_and_silence_lines(const StimulusPlan& stimulus) {
  std::string text;
  for (const PoissonGroup& g : stimulus.groups)
    text += fmt::format("  group           {}: {} Poisson neurons at {} Hz\n", g.name, g.neurons.size(), g.rate_Hz);
  if (!stimulus.silenced.empty())
    text += fmt::format("  silenced        {} neurons ({})\n", stimulus.silenced.size(), silence_mode_name(stimulus.silence_mode));
  return text;
}

void print_snapshot(const Snapshot& s, double dt_ms) {
  const EngineState& e = s.engine;
  const TrialPlan& p = s.plan;
  const auto active = std::count_if(s.recorder.counts.begin(), s.recorder.counts.end(), [](uint64_t c) { return c > 0; });
  // On the run's clock (batches of trials run side by side), as checkpoint.every-ms and run.swap-at count.
  ScheduleGeometry geometry;
  geometry.trials = p.trials;
  geometry.steps_per_trial = p.steps_per_trial;
  geometry.batch = std::max(1, s.batch);
  const double done_ms = static_cast<double>(steps_to(RunPosition{e.trial, e.next_step}, geometry)) * dt_ms;
  std::cout << fmt::format(
      "position\n"
      "  trial           {} (of trials 0..{})\n"
      "  batch           trials {}..{} (batches of {})\n"
      "  step            {} of {} ({:.3f} ms into the trial, {:.3f} ms since the start of the run, at dt {} ms)\n"
      "  neurons         {}\n"
      "  delay ring      {} undelivered spikes\n"
      "plan\n"
      "  trials          {} x {} steps ({:.3f} ms each)\n"
      "  stimulus        {} Poisson neurons at {} Hz, {} timed kicks, seed {}\n"
      "{}"
      "recorder\n"
      "  spikes so far   {} from {} active neurons\n"
      "plasticity\n"
      "  plastic weights {}\n"
      "  settings        {}\n",
      e.trial, p.trials - 1, e.trial, e.trial + static_cast<int32_t>(s.later_trials.size()), s.batch, e.next_step, p.steps_per_trial, e.next_step * dt_ms, done_ms, dt_ms, e.v.size(),
      e.pending.size(), p.trials, p.steps_per_trial, p.steps_per_trial * dt_ms, p.stimulus.poisson_neurons.size(),
      p.stimulus_rate_Hz, p.stimulus.kicks.size(), p.stimulus.seed, groups_and_silence_lines(p.stimulus), s.recorder.spikes, active, e.plastic_weights.size(),
      s.plasticity.settings.empty() ? "off" : s.plasticity.settings);
}

// Read once (a FIFO, folder or device is refused without blocking), then checked
// up to the header (magic, header checksum, version, size): nothing is printed for
// a file that is not an intact checkpoint this flysim reads. It verifies when its
// payload decodes and passes the checks of a restore (validate_snapshot) on a network
// of its own neuron count; the network itself is the restore's to compare.
int inspect(const std::string& path, double dt_ms, int32_t delay_steps) {
  const std::string bytes = read_input_file(path, "the checkpoint");
  print_header(path, bytes.size(), checkpoint_header_of(path, bytes));
  Snapshot snapshot;
  try {
    snapshot = decode_checkpoint(path, bytes);
  } catch (const input_error&) {
    std::cout << "verifies: no" << std::endl;
    throw;
  }
  try {
    validate_snapshot(snapshot, snapshot.engine.v.size(), delay_steps, dt_ms, path);
  } catch (const input_error& e) {
    // Intact, but not a checkpoint of these model options: say which were assumed.
    std::cout << "verifies: no" << std::endl;
    throw input_error(fmt::format("{} (checked as a run at dt {} ms with delay cells of {} steps; a checkpoint of a run with "
                                  "other model.dt-ms or model.delay-ms needs them given here too)",
                                  e.what(), dt_ms, delay_steps));
  }
  std::cout << "verifies: yes\n";
  print_snapshot(snapshot, dt_ms);
  return 0;
}

}  // namespace

int checkpoint_command(const std::vector<std::string>& args) {
  const auto specs = checkpoint_options();
  for (const auto& a : args)
    if (a == "--help" || a == "-h") {
      std::cout << format_help(kCheckpointUsage,
                               "inspect FILE: prints a checkpoint's header (format version, compatibility and kernel "
                               "version strings, network hash, payload size and checksum, and whether the checksum "
                               "verifies, with the checks a restore makes) and what it holds: trial and step, neurons, undelivered spikes, the run plan, "
                               "spikes recorded so far and active neurons, plastic weights. Exits 2 when the file is "
                               "missing, not a checkpoint, damaged, or not of a run with the model.dt-ms and model.delay-ms "
                               "given (default: the model's).",
                               specs);
      return 0;
    }
  std::vector<std::string> words, options;
  for (const auto& a : args) (a.rfind("--", 0) == 0 ? options : words).push_back(a);
  if (words.empty()) throw input_error(std::string("checkpoint: missing subcommand; usage: ") + kCheckpointUsage);
  if (words[0] != "inspect")
    throw input_error("checkpoint: unknown subcommand '" + words[0] + "'; usage: " + kCheckpointUsage);
  if (words.size() != 2)
    throw input_error(std::string("checkpoint inspect: expected exactly one FILE; usage: ") + kCheckpointUsage);
  const Options o = Options::parse(specs, options);
  LifParams params;
  params.dt_ms = o.number("model.dt-ms");
  params.delay_ms = o.number("model.delay-ms");
  return inspect(words[1], params.dt_ms, derive_constants(params).delay_steps);
}

}  // namespace flysim::app
