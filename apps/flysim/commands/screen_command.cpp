// flysim screen: many experiments in one process, the network loaded once and its engines
// (screen_engines.hpp) running them all (Engine::set_stimulus between experiments). Each experiment's trials
// are those of `flysim run` with that experiment's options, batch by batch.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <mutex>
#include <optional>

#include "apps/flysim/commands/commands.hpp"
#include "apps/flysim/options/common_options.hpp"
#include "apps/flysim/process/file_roles.hpp"
#include "apps/flysim/process/output_folder.hpp"
#include "apps/flysim/run/plot_script.hpp"
#include "apps/flysim/options/readout_option.hpp"
#include "apps/flysim/screen/screen_experiments.hpp"
#include "apps/flysim/screen/screen_manifest.hpp"
#include "apps/flysim/screen/screen_merge.hpp"
#include "apps/flysim/screen/screen_outputs.hpp"
#include "apps/flysim/screen/screen_engines.hpp"
#include "apps/flysim/remote/screen_nodes.hpp"
#include "apps/flysim/screen/screen_part.hpp"
#include "apps/flysim/screen/screen_parts.hpp"
#include "apps/flysim/options/cuda_devices_option.hpp"
#include "apps/flysim/run/device_engines.hpp"
#include "apps/flysim/screen/screen_trials.hpp"
#include "apps/flysim/process/stop_signal.hpp"
#include "apps/flysim/run/trial_runs.hpp"
#include "apps/flysim/remote/node_list.hpp"
#include "apps/flysim/run/replay_options.hpp"
#include "apps/flysim/run/run_builder.hpp"
#include "model/errors.hpp"

namespace flysim::app {

namespace {

const std::vector<std::string> kOutputs = {"rates.csv", "readouts.csv", "spikes.csv", "screen.png"};

std::vector<OptionSpec> screen_options() {
  std::vector<OptionSpec> own = screen_experiment_options();
  const std::vector<OptionSpec> more = {
      {"screen.readouts", OptionType::text, std::to_string(kMn9RootId),
       "root IDs of the readout neurons, comma-separated (default: MN9, skipped where the network lacks it)"},
      {"screen.spikes", OptionType::boolean, "false", "also write DIR/spikes.csv (t,trial,flywire_id,exp_name; t in s)"},
      {"screen.part", OptionType::text, "",
       "K/N: run only part K of N (experiments i with i mod N = K-1, counting from 0) into DIR/.screen-parts, for a job "
       "array; `flysim screen merge` joins the parts. auto: K and N from SLURM_ARRAY_TASK_ID, _COUNT and _MIN"},
      {"screen.resume", OptionType::boolean, "false",
       "continue an interrupted screen from DIR/.screen-parts (its options must be the same)"},
      {"output.dir", OptionType::path, "", "folder for rates.csv, readouts.csv, spikes.csv, screen.png and .screen-parts/"},
  };
  own.insert(own.end(), more.begin(), more.end());
  for (const OptionSpec& spec : cuda_devices_specs(std::to_string(kScreenEnginesPerDevice))) own.push_back(spec);
  for (const OptionSpec& spec : screen_node_options()) own.push_back(spec);
  for (const OptionSpec& spec : plot_options("screen", "plot_screen.py", "screen.png")) own.push_back(spec);
  return trial_run_options(own);
}

// The files a screen reads, by option.
std::vector<std::string> screen_input_keys(const Options& o) {
  std::vector<std::string> inputs = {"network.neurons", "network.connectivity", "screen.experiments", "screen.activate-each",
                                     "screen.silence-each", "screen.excite2", "screen.plot-script"};
  for (const std::string& key : stimulus_file_keys(o)) inputs.push_back(key);
  return inputs;
}

// The lines that must match for a screen to resume or its parts to merge: the network's
// content, every option that changes a result, the readouts and each experiment's plan.
// Input files count by what they hold (the network's hash, the plans), not by the path's
// spelling, so a part run from another folder still matches; the network.* options count
// through the network they give (a cache folder changes nothing).
std::string manifest(const Options& o, const std::vector<OptionSpec>& specs, const Network& net,
                     const std::vector<int64_t>& readouts, const std::vector<ScreenRun>& runs) {
  const std::vector<std::string> ignored = {"log.",          "engine.",      "network.",         "run.batch",
                                            "output.dir",    "screen.resume", "screen.part",     "screen.plot",
                                            "screen.python", "screen.nodes",  "screen.token-file"};
  const std::vector<std::string> inputs = screen_input_keys(o);
  ManifestText text;
  text.add("network", fmt::format("{:016x} ({} neurons)", net.content_hash(), net.neuron_count()));
  for (const OptionSpec& spec : specs)
    for (const std::string& key : o.keys_of(spec))
      if (!starts_with_any(key, ignored) &&
          std::find(inputs.begin(), inputs.end(), key) == inputs.end())
        text.add(key, o.text(key), "option");
  text.add("readouts present", fmt::format("{}", fmt::join(readouts, ",")));
  for (const ScreenRun& run : runs) text.add("experiment " + run.name, run.description, "experiment");
  return text.text();
}


// The screen's own options that need nothing loaded, checked first: a typo costs no waiting.
struct ScreenRequest {
  std::string dir;
  std::vector<int64_t> readout_roots;
  std::vector<ScreenExperiment> experiments;
  ScreenPart part;
  std::vector<int> devices;  // one per engine (engine.cuda-devices, engine.per-device)
  std::vector<NodeAddress> nodes;  // screen.nodes; empty: this process only
  bool plot = false;  // whole screens only: a part draws nothing
  bool keep_spikes = false;
};

ScreenRequest check_screen_options(const Options& o) {
  const std::vector<std::string> inputs = screen_input_keys(o);
  std::vector<FolderOutput> outputs;
  for (const std::string& name : kOutputs) outputs.push_back({"output.dir", name});
  check_file_roles(o, {inputs, {}, {"output.dir"}, outputs});
  ScreenRequest request;
  request.dir = o.text("output.dir");
  if (request.dir.empty()) o.reject("output.dir", "must name a folder for the screen's files");
  request.readout_roots = readout_ids(o, "screen.readouts");
  return request;
}

// The experiments and options checked after the trial options, in the order they are read.
void check_experiments(const Options& o, ScreenRequest& request) {
  request.experiments = screen_experiments(o);
  request.part = screen_part(o, "screen.part");
  request.devices = cuda_devices(o);
  request.nodes = parse_distinct_node_list(o, "screen.nodes");
  // Before the network loads: a missing plotter costs no waiting.
  request.plot = request.part.whole && plot_wanted(o, "screen");
  request.keep_spikes = o.boolean("screen.spikes");
  // A spikes.csv this screen does not write is not flysim's to delete.
  if (request.part.whole && !request.keep_spikes) refuse_spikes_not_written(o, "output.dir", request.dir);
}

// The readouts the network has, ascending; the others are warned about and skipped.
std::vector<int64_t> present_readouts(const Options& o, const std::vector<int64_t>& roots, const Network& net) {
  std::vector<int64_t> readouts = readouts_in(o, roots, net, "screen.readouts");
  for (int64_t id : roots)
    if (std::find(readouts.begin(), readouts.end(), id) == readouts.end())
      spdlog::warn("readout {} is not in the network ({}): skipped", id, net.short_description());
  std::sort(readouts.begin(), readouts.end());
  return readouts;
}

// The experiments of this part (`mine`) and those of them not yet committed (`to_run`).
struct ScreenWork {
  std::size_t mine = 0;
  std::vector<std::size_t> to_run;
};

ScreenWork screen_work(const ScreenPart& part, const ScreenParts& parts, std::size_t experiments, bool keep_spikes) {
  ScreenWork work;
  for (std::size_t i = 0; i < experiments; ++i) {
    if (!part.has(i)) continue;
    ++work.mine;
    if (!parts.done(i, keep_spikes)) work.to_run.push_back(i);
    else parts.check(i, keep_spikes, false);  // a damaged part is named before anything runs
  }
  if (!part.whole) spdlog::info("screen: part {}/{}: {} of {} experiments", part.k, part.n, work.mine, experiments);
  if (work.to_run.size() < work.mine)
    spdlog::info("screen: {} of {} experiments already done in {}", work.mine - work.to_run.size(), work.mine, parts.folder());
  return work;
}

struct ScreenRunTime {
  std::string engine;  // the engine's description
  double wall_s = 0;
};

// True when this process's engines run experiments: no screen.nodes, or 'local' among them.
bool runs_locally(const std::vector<NodeAddress>& nodes) {
  return nodes.empty() || std::any_of(nodes.begin(), nodes.end(), [](const NodeAddress& n) { return n.host.empty(); });
}

// True when screen.nodes names a worker.
bool has_workers(const std::vector<NodeAddress>& nodes) {
  return std::any_of(nodes.begin(), nodes.end(), [](const NodeAddress& n) { return !n.host.empty(); });
}

// Runs the experiments still to run on this process's engines (engine.cuda-devices) and
// the worker nodes' (screen.nodes), committing each.
ScreenRunTime run_experiments(const RunBuilder& run, const std::vector<OptionSpec>& specs, const ScreenRequest& request,
                              const TrialShape& shape, const TrialBatches& plan, const std::shared_ptr<const Network>& net,
                              const std::vector<ScreenRun>& runs, const ScreenWork& work, const ScreenParts& parts) {
  const auto started = std::chrono::steady_clock::now();
  const auto wall_s = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(); };
  if (work.to_run.empty()) return {"no engine (every experiment was done)", wall_s()};
  const double dt_ms = run.params().dt_ms;
  const auto stopped = [] { throw_if_stopped("running the screen (finished experiments are kept: --screen.resume=true continues)"); };
  std::optional<ScreenNodes> nodes;
  if (has_workers(request.nodes)) {
    std::vector<std::string> options;
    for (const auto& [key, value] : journaled_options(run.options(), specs)) options.insert(options.end(), {key, value});
    nodes.emplace(run.options(), request.nodes, options, *net, stopped);
  }
  ScreenEngines engines = runs_locally(request.nodes) ? screen_engines(run.options(), request.devices, run.engine().kind,
                                                                       run.engines(net, plan.batch), plan, runs[work.to_run.front()])
                                                      : ScreenEngines({});
  std::vector<std::string> places;
  if (engines.size() > 0)
    places.push_back(engines.size() > 1 ? fmt::format("{} engines ({} first)", engines.size(), engines.front().describe())
                                        : engines.front().describe());
  if (nodes) places.push_back("workers " + nodes->describe());
  const std::string engine_text = fmt::format("{}", fmt::join(places, " and "));
  spdlog::info("screen: {} experiments x {} trials of {} ms on {}", work.to_run.size(), shape.trials, shape.duration_ms, engine_text);
  const bool keep_spikes = request.keep_spikes;
  std::mutex progress_lock;
  std::size_t finished = 0;
  const auto commit = [&](std::size_t i, const ExperimentCounts& counts, const std::string* spike_lines) {
    parts.commit(i, counts, spike_lines);
    const std::lock_guard<std::mutex> lock(progress_lock);
    const std::size_t n = ++finished;
    const double elapsed = wall_s();
    spdlog::info("experiment {} done ({}/{}): {:.1f} s elapsed, about {:.1f} s left", runs[i].name, work.mine - work.to_run.size() + n,
                 work.mine, elapsed, elapsed / static_cast<double>(n) * static_cast<double>(work.to_run.size() - n));
  };
  // Between batches, and while a worker's slot waits: a stop signal, or another slot's failure.
  const auto go_on = [&] {
    stopped();
    if (engines.stopping()) throw std::runtime_error("another engine of the screen stopped");
  };
  std::vector<ScreenSlot> remote;
  if (nodes) remote = nodes->slots(runs, shape.trials, keep_spikes, commit, go_on);
  engines.run(
      work.to_run,
      [&](Engine& engine, std::size_t i) {
        std::string spike_lines;
        const ExperimentCounts counts = run_screen_experiment(engine, runs[i].plan, runs[i].rate_Hz, plan, *net, runs[i].name, dt_ms,
                                                              keep_spikes ? &spike_lines : nullptr, [&](int32_t) { go_on(); });
        commit(i, counts, keep_spikes ? &spike_lines : nullptr);
      },
      std::move(remote));
  return {engine_text, wall_s()};
}

// The whole screen's files (a part's stay in its progress folder), the plot and the lines on stdout.
void report_screen(const Options& o, const ScreenRequest& request, const ScreenParts& parts, const std::vector<ScreenRun>& runs,
                   const std::vector<int64_t>& readouts, const TrialShape& shape, double trial_s, const ScreenWork& work,
                   const ScreenRunTime& time) {
  const std::string& dir = request.dir;
  const ScreenPart& part = request.part;
  std::vector<std::string> names;
  for (const ScreenRun& r : runs) names.push_back(r.name);
  const ScreenFiles files = screen_files(dir, names, readouts, trial_s, request.keep_spikes);
  if (part.whole) write_screen_files(parts, files);
  const bool drawn = request.plot && draw_screen_plot(o, dir, screen_plot_title(shape.trials, shape.duration_ms), readouts);
  if (part.whole && !drawn) warn_of_earlier_output(dir, "screen.png");
  const double simulated_s = static_cast<double>(work.to_run.size()) * shape.trials * files.trial_s;
  std::cout << fmt::format("flysim screen: {} experiments ({} run now) x {} trials x {} ms in {:.3f} s wall ({:.1f} simulated s per wall s) on {}\n",
                           work.mine, work.to_run.size(), shape.trials, shape.duration_ms, time.wall_s,
                           time.wall_s > 0 ? simulated_s / time.wall_s : 0.0, time.engine);
  if (!part.whole)
    std::cout << fmt::format("  written     part {}/{} of {} experiments in {} (flysim screen merge joins the parts)\n", part.k, part.n,
                             runs.size(), parts.folder());
  else
    std::cout << fmt::format("  written     {}/rates.csv, {}/readouts.csv{}{}\n", dir, dir, request.keep_spikes ? ", " + dir + "/spikes.csv" : "",
                             drawn ? ", " + dir + "/screen.png" : "");
}

}  // namespace

int screen_command(const std::vector<std::string>& args) {
  if (!args.empty() && args.front() == "merge") return screen_merge_command({args.begin() + 1, args.end()});
  const auto specs = screen_options();
  if (print_help_if_asked(
          args, "flysim screen --output.dir=DIR (experiments: --screen.experiments=CSV, --screen.activate-each=IDS, ...)",
          "Many experiments in one process, the network loaded once: run.trials trials of each (trial k with seed "
          "run.seed and trial number k: the spikes of `flysim run` with that experiment's options). Writes "
          "DIR/rates.csv (exp_name,flywire_id,trials,mean_rate_hz,sd_hz: every neuron that spiked; mean and sample sd, "
          "ddof=1 as pandas' .std(), over trials of spikes/duration, 0 Hz where it did not spike), DIR/readouts.csv "
          "(exp_name,readout_id,trials,mean_rate_hz,sd_hz,sem_hz,change_hz: change_hz is the mean less experiment "
          "baseline's), with screen.spikes DIR/spikes.csv (t,trial,flywire_id,exp_name) and DIR/screen.png. Each "
          "finished experiment is kept in DIR/.screen-parts; an interrupted screen continues with --screen.resume=true. "
          "For a job array, each task runs one part (--screen.part=K/N or auto) into its own DIR, and "
          "`flysim screen merge DIR... --output.dir=OUT` (see `flysim screen merge --help`) writes the whole screen's files into OUT.",
          specs))
    return 0;
  catch_stop_signals();
  const Options o = Options::parse(specs, args);
  configure_logging(o);
  ScreenRequest request = check_screen_options(o);
  const RunBuilder run(o);
  const TrialShape shape = run.trial_shape(Forever::refused);
  check_experiments(o, request);
  const OutputFolder folder(o, "output.dir");
  const auto net = run.load_network();
  const std::vector<int64_t> readouts = present_readouts(o, request.readout_roots, *net);
  const StimulusPlan base = run.stimulus(*net);
  std::vector<ScreenRun> runs;
  const RootIdIndex ids(*net);
  for (const ScreenExperiment& e : request.experiments)
    runs.push_back(resolve_experiment(e, base, run.params().r_poi_Hz, ids, run.params().dt_ms));
  const double trial_s = trial_seconds(shape, run.params().dt_ms);
  const std::string title = screen_plot_title(shape.trials, shape.duration_ms);
  const std::string whole_manifest = manifest(o, specs, *net, readouts, runs);
  const ScreenPart& part = request.part;
  const ScreenParts parts(request.dir,
                          part.whole ? whole_manifest : part_manifest(whole_manifest, part, {trial_s, request.keep_spikes, title}),
                          o.boolean("screen.resume"), "screen.resume");
  const ScreenWork work = screen_work(part, parts, runs.size(), request.keep_spikes);
  TrialBatches plan = run.trial_batches(shape, net->neuron_count());
  plan.batch = batch_beside_engines(o, run.engine().kind, request.devices, plan.batch, plan.neurons, plan.delay_steps);
  ScreenRunTime time;
  try {
    time = run_experiments(run, specs, request, shape, plan, net, runs, work, parts);
  } catch (...) {
    parts.discard_if_unused();
    throw;
  }
  report_screen(o, request, parts, runs, readouts, shape, trial_s, work, time);
  return 0;
}

}  // namespace flysim::app
