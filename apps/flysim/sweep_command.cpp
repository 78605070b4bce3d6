// flysim sweep: a dose-response experiment as one command. The network is loaded once
// and one engine runs every stimulus rate (Engine::set_stimulus between rates), each
// rate's trials batch by batch (kernels/trial_batches.hpp): the spikes of each trial
// are those of `flysim run --stimulus.rate=R` with the same options.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "apps/flysim/batch_option.hpp"
#include "apps/flysim/commands.hpp"
#include "apps/flysim/common_options.hpp"
#include "apps/flysim/file_roles.hpp"
#include "apps/flysim/readout_option.hpp"
#include "apps/flysim/stop_signal.hpp"
#include "apps/flysim/sweep_rates.hpp"
#include "kernels/trial_batches.hpp"
#include "model/atomic_file.hpp"
#include "model/errors.hpp"
#include "model/sweep_table.hpp"

namespace flysim::app {

namespace {

std::string scripts_dir() { return FLYSIM_SOURCE_SCRIPTS_DIR; }

// The options of run that decide what a trial computes, and the sweep's own.
std::vector<OptionSpec> sweep_options() {
  const std::vector<std::string> kept_prefixes = {"network.", "stimulus.", "model.", "run.duration-ms",
                                                  "run.trials", "run.batch", "run.seed", "engine.kind", "engine.cuda-device", "engine.threads",
                                                  "log."};
  std::vector<OptionSpec> specs;
  for (OptionSpec spec : run_options()) {
    if (std::none_of(kept_prefixes.begin(), kept_prefixes.end(), [&](const std::string& p) { return spec.key.rfind(p, 0) == 0; }))
      continue;
    if (spec.key == "run.trials") spec.default_value = "30";
    if (spec.key == "run.duration-ms") spec.help = "simulated time per trial, ms";
    if (spec.key == "stimulus.rate") spec.help = "not for a sweep: sweep.rates sets the rates";
    specs.push_back(spec);
  }
  const std::vector<OptionSpec> own = {
      {"sweep.rates", OptionType::text, "10:200:10",
       "stimulus rates, Hz: FROM:TO:STEP (TO included) or a list R1,R2,..."},
      {"sweep.readouts", OptionType::text, std::to_string(kMn9RootId),
       "root IDs of the readout neurons, comma-separated (default: MN9)"},
      {"output.dir", OptionType::path, "", "folder for sweep.csv, trials.csv, sweep.png and sweep.svg"},
      {"sweep.plot", OptionType::boolean, "true", "draw sweep.png and sweep.svg (sweep.python with matplotlib)"},
      {"sweep.python", OptionType::path, "/usr/bin/python3",
       "the Python that draws the plot: Debian's, where python3-matplotlib is installed"},
      {"sweep.plot-script", OptionType::path, scripts_dir() + "/plot_sweep.py", "the plotting script"},
  };
  specs.insert(specs.end() - static_cast<std::ptrdiff_t>(log_options().size()), own.begin(), own.end());
  return specs;
}

// The network index of each readout ID; an ID the network lacks is refused by name.
std::vector<uint32_t> readout_indices(const Options& o, const Network& net, const std::vector<int64_t>& ids) {
  std::vector<uint32_t> indices;
  for (const int64_t id : ids) {
    const auto found = std::find(net.root_ids.begin(), net.root_ids.end(), id);
    if (found == net.root_ids.end())
      o.reject("sweep.readouts", "names " + std::to_string(id) + ", which is not a neuron of the network");
    indices.push_back(static_cast<uint32_t>(found - net.root_ids.begin()));
  }
  return indices;
}

// Runs `command` (a shell line); true when it exits with 0.
bool shell(const std::string& command) { return std::system(command.c_str()) == 0; }

std::string quoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

void write_file(const std::string& path, const std::string& text) {
  AtomicFile out(path);
  out.write(text.data(), text.size());
  out.commit();
}

}  // namespace

int sweep_command(const std::vector<std::string>& args) {
  const auto specs = sweep_options();
  if (print_help_if_asked(args, "flysim sweep --output.dir=DIR [--key=value ...]",
                          "A dose-response experiment: run.trials trials at each of sweep.rates, the readouts' rate "
                          "per trial (DIR/trials.csv), their mean, standard deviation and standard error per rate "
                          "(DIR/sweep.csv) and a plot of them (DIR/sweep.png, DIR/sweep.svg).",
                          specs))
    return 0;
  catch_stop_signals();
  const Options o = Options::parse(specs, args);
  configure_logging(o);
  refuse_clashing_files(o, {{"network.neurons", "network.connectivity", "stimulus.ids", "stimulus.kicks", "sweep.plot-script"},
                            {},
                            {"output.dir"},
                            {{"output.dir", "trials.csv"}, {"output.dir", "sweep.csv"}, {"output.dir", "sweep.png"}, {"output.dir", "sweep.svg"}}});
  if (o.given("stimulus.rate")) o.reject("stimulus.rate", "is set by sweep.rates in a sweep");
  const std::string dir = o.text("output.dir");
  if (dir.empty()) o.reject("output.dir", "must name a folder for the sweep's files");
  std::vector<double> rates;
  try {
    rates = parse_sweep_rates(o.text("sweep.rates"));
  } catch (const std::invalid_argument& e) {
    o.reject("sweep.rates", e.what());
  }
  const std::vector<int64_t> readout_roots = readout_ids(o, "sweep.readouts");
  if (readout_roots.empty()) o.reject("sweep.readouts", "must name at least one root ID");
  const int64_t trials = o.integer("run.trials");
  if (trials < 1 || trials > 1000000) o.reject("run.trials", "must be 1..1000000");
  if (o.integer("run.seed") < 0) o.reject("run.seed", "must not be negative");
  const int64_t threads = o.integer("engine.threads");
  if (threads < 1 || threads > 1024) o.reject("engine.threads", "must be 1..1024");
  const LifParams params = model_params(o);
  const LifConstants constants = constants_from_options(params);
  char* duration_end = nullptr;
  const std::string& duration_text = o.text("run.duration-ms");
  const double duration_ms = std::strtod(duration_text.c_str(), &duration_end);
  if (duration_text.empty() || *duration_end != '\0' || !(duration_ms >= params.dt_ms) ||
      duration_ms > static_cast<double>(kMaxRunSteps) * params.dt_ms)
    o.reject("run.duration-ms", fmt::format("must be a number of ms in {}..{}", params.dt_ms,
                                            static_cast<double>(kMaxRunSteps) * params.dt_ms));
  const bool plot = o.boolean("sweep.plot");
  // Before the network loads: a missing plotter costs no waiting.
  if (plot && !shell(quoted(o.text("sweep.python")) + " -c 'import matplotlib' 2>/dev/null"))
    o.reject("sweep.python", "cannot import matplotlib (Debian: apt-get install python3-matplotlib), or set sweep.plot=false");
  if (plot && !std::filesystem::is_regular_file(o.text("sweep.plot-script")))
    o.reject("sweep.plot-script", "is not a file");
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) o.reject("output.dir", "cannot be created: " + ec.message());

  const auto net = obtain_network(network_source(o), [](const std::string& line) {
    throw_if_stopped("loading the network");
    spdlog::info("{}", line);
  });
  SweepTable table;
  table.stimulus_rates_Hz = rates;
  table.trial_s = duration_to_steps(duration_ms, params.dt_ms) * params.dt_ms * 1e-3;
  table.readout_ids = readout_roots;
  const std::vector<uint32_t> readouts = readout_indices(o, *net, readout_roots);
  const auto stimulus = std::make_shared<const StimulusPlan>(stimulus_plan(o, *net));
  const EngineKind kind = engine_kind(o);
  TrialBatches plan;
  plan.trials = static_cast<int32_t>(trials);
  plan.steps_per_trial = duration_to_steps(duration_ms, params.dt_ms);
  plan.delay_steps = constants.delay_steps;
  plan.neurons = net->neuron_count();
  const int device = cuda_device(o);
  plan.batch = batch_option(o, plan.trials, {kind, device, static_cast<unsigned>(threads)}, plan.neurons,
                            plan.delay_steps, "", false);
  EngineSetup setup{net, stimulus, constants, nullptr, HostWait::poll, device, plan.batch};
  setup.constants.poisson_threshold = poisson_threshold(rates.front(), params.dt_ms);
  std::unique_ptr<Engine> engine = make_engine(kind, setup, static_cast<unsigned>(threads));
  spdlog::info("sweep: {} rates x {} trials of {} ms on {}; readouts {}", rates.size(), trials, duration_ms,
               engine->describe(), o.text("sweep.readouts"));

  const auto started = std::chrono::steady_clock::now();
  const double total_trials = static_cast<double>(rates.size()) * static_cast<double>(trials);
  for (std::size_t r = 0; r < rates.size(); ++r) {
    engine->set_stimulus(stimulus, poisson_threshold(rates[r], params.dt_ms));
    table.counts.push_back(count_spikes_per_trial(*engine, plan, readouts, [&](int32_t done) {
      throw_if_stopped("the sweep");
      const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      const double fraction = (static_cast<double>(r) * static_cast<double>(trials) + done) / total_trials;
      spdlog::info("rate {} Hz ({}/{}): {}/{} trials done, {:.1f} s elapsed, about {:.1f} s left", rates[r], r + 1,
                   rates.size(), done, trials, elapsed, elapsed / fraction * (1 - fraction));
    }));
  }
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

  const std::string sweep_path = dir + "/sweep.csv";
  write_file(dir + "/trials.csv", trials_csv(table));
  write_file(sweep_path, sweep_csv(table));
  if (plot && !shell(fmt::format("{} {} {} {} {} {}", quoted(o.text("sweep.python")), quoted(o.text("sweep.plot-script")),
                                 quoted(sweep_path), quoted(dir + "/sweep.png"), quoted(dir + "/sweep.svg"),
                                 quoted(fmt::format("flysim sweep: {} trials of {} ms per rate", trials, duration_ms)))))
    throw input_error("the plot of " + sweep_path + " failed (" + o.text("sweep.plot-script") +
                      "); the CSV files are written");
  std::cout << fmt::format(
      "flysim sweep: {} rates x {} trials x {} ms in {:.3f} s wall ({:.1f} simulated s per wall s) on {}\n"
      "  written     {}/sweep.csv, {}/trials.csv{}\n",
      rates.size(), trials, duration_ms, wall_s, total_trials * table.trial_s / wall_s, engine->describe(), dir, dir,
      plot ? fmt::format(", {}/sweep.png, {}/sweep.svg", dir, dir) : std::string());
  return 0;
}

}  // namespace flysim::app
