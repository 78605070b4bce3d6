// flysim sweep: a dose-response experiment as one command. The network is loaded once
// and one engine runs every stimulus rate (Engine::set_stimulus between rates), each
// rate's trials batch by batch (kernels/trial_batches.hpp): the spikes of each trial
// are those of `flysim run --stimulus.rate=R` with the same options.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <iostream>

#include "apps/flysim/commands/commands.hpp"
#include "apps/flysim/run/plot_script.hpp"
#include "apps/flysim/run/trial_runs.hpp"
#include "apps/flysim/options/common_options.hpp"
#include "apps/flysim/options/readout_option.hpp"
#include "apps/flysim/options/sweep_rates.hpp"
#include "apps/flysim/process/file_roles.hpp"
#include "apps/flysim/process/output_folder.hpp"
#include "apps/flysim/process/stop_signal.hpp"
#include "apps/flysim/run/run_builder.hpp"
#include "io/atomic_file.hpp"
#include "io/sweep_table.hpp"
#include "model/errors.hpp"

namespace flysim::app {

namespace {

// The options of run that decide what a trial computes, and the sweep's own.
std::vector<OptionSpec> sweep_options() {
  std::vector<OptionSpec> own = {
      {"sweep.rates", OptionType::text, "10:200:10",
       "stimulus rates, Hz: FROM:TO:STEP (TO included) or a list R1,R2,..."},
      {"sweep.readouts", OptionType::text, std::to_string(kMn9RootId),
       "root IDs of the readout neurons, comma-separated (default: MN9)"},
      {"output.dir", OptionType::path, "", "folder for sweep.csv, trials.csv, sweep.png and sweep.svg"},
  };
  for (const OptionSpec& spec : plot_options("sweep", "plot_sweep.py", "sweep.png and sweep.svg")) own.push_back(spec);
  std::vector<OptionSpec> specs = trial_run_options(own);
  for (OptionSpec& spec : specs)
    if (spec.key == "stimulus.rate") spec.help = "not for a sweep: sweep.rates sets the rates";
  return specs;
}

// The sweep's own options, checked before the network loads.
struct SweepRequest {
  std::string dir;
  std::vector<double> rates;
  std::vector<int64_t> readout_roots;
};

SweepRequest check_sweep_options(const Options& o) {
  std::vector<std::string> inputs = {"network.neurons", "network.connectivity", "sweep.plot-script"};
  for (const std::string& key : stimulus_file_keys(o)) inputs.push_back(key);
  check_file_roles(o, {inputs,
                       {},
                       {"output.dir"},
                       {{"output.dir", "trials.csv"}, {"output.dir", "sweep.csv"}, {"output.dir", "sweep.png"}, {"output.dir", "sweep.svg"}}});
  if (o.given("stimulus.rate")) o.reject("stimulus.rate", "is set by sweep.rates in a sweep");
  SweepRequest request;
  request.dir = o.text("output.dir");
  if (request.dir.empty()) o.reject("output.dir", "must name a folder for the sweep's files");
  try {
    request.rates = parse_sweep_rates(o.text("sweep.rates"));
  } catch (const std::invalid_argument& e) {
    o.reject("sweep.rates", e.what());
  }
  request.readout_roots = readout_ids(o, "sweep.readouts");
  if (request.readout_roots.empty()) o.reject("sweep.readouts", "must name at least one root ID");
  return request;
}

// Every rate's trials on one engine, their readouts' spikes into table.counts, progress
// logged; the wall seconds it took.
double run_rates(Engine& engine, const TrialBatches& plan, const std::vector<uint32_t>& readouts,
                 const std::shared_ptr<const StimulusPlan>& stimulus, double dt_ms, SweepTable& table) {
  const std::vector<double>& rates = table.stimulus_rates_Hz;
  const int32_t trials = plan.trials;
  const auto started = std::chrono::steady_clock::now();
  const double total_trials = static_cast<double>(rates.size()) * static_cast<double>(trials);
  for (std::size_t r = 0; r < rates.size(); ++r) {
    engine.set_stimulus(stimulus, poisson_threshold(rates[r], dt_ms));
    table.counts.push_back(count_spikes_per_trial(engine, plan, readouts, [&](int32_t done) {
      throw_if_stopped("the sweep");
      const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      const double fraction = (static_cast<double>(r) * static_cast<double>(trials) + done) / total_trials;
      spdlog::info("rate {} Hz ({}/{}): {}/{} trials done, {:.1f} s elapsed, about {:.1f} s left", rates[r], r + 1,
                   rates.size(), done, trials, elapsed, elapsed / fraction * (1 - fraction));
    }));
  }
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
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
  const SweepRequest request = check_sweep_options(o);
  const std::string& dir = request.dir;
  const RunBuilder run(o);
  const TrialShape shape = run.trial_shape(Forever::refused);
  // Each rate as the engines will draw with it, before the network loads.
  for (double rate : request.rates) {
    try {
      poisson_threshold(rate, run.params().dt_ms);
    } catch (const input_error& e) {
      o.reject("sweep.rates", e.what());
    }
  }
  // Before the network loads: a missing plotter costs no waiting.
  bool plot = plot_wanted(o, "sweep");
  const OutputFolder folder(o, "output.dir");
  const auto net = run.load_network();
  SweepTable table;
  table.stimulus_rates_Hz = request.rates;
  table.trial_s = trial_seconds(shape, run.params().dt_ms);
  // The default readout (MN9) is skipped on a network without it, as flysim run does.
  table.readout_ids = readouts_in(o, request.readout_roots, *net, "sweep.readouts");
  if (table.readout_ids.empty()) {
    spdlog::warn("the default readout (MN9, {}) is not in this network ({}): the sweep runs without readouts, its tables "
                 "hold their headers only and no plot is drawn; set sweep.readouts=ID,... to read neurons out",
                 kMn9RootId, net->description);
    plot = false;
  }
  const std::vector<uint32_t> readouts = readout_indices(table.readout_ids, *net);
  const auto stimulus = std::make_shared<const StimulusPlan>(run.stimulus(*net));
  if (stimulus->poisson_neurons.empty())
    o.reject("stimulus.ids", "puts no neuron in the default Poisson group (empty, or the default set aside by "
                             "stimulus.kicks), the only group whose rate sweep.rates sets: every rate would give the same "
                             "trials; give --stimulus.ids=FILE, the neurons to drive");
  const TrialBatches plan = run.trial_batches(shape, net->neuron_count());
  const auto engine = run.engines(net, plan.batch).make(run.engine().kind, 0, stimulus, request.rates.front());
  spdlog::info("sweep: {} rates x {} trials of {} ms on {}; readouts {}", request.rates.size(), shape.trials, shape.duration_ms,
               engine->describe(), table.readout_ids.empty() ? std::string("none") : fmt::format("{}", fmt::join(table.readout_ids, ",")));
  const double wall_s = run_rates(*engine, plan, readouts, stimulus, run.params().dt_ms, table);

  const std::string sweep_path = dir + "/sweep.csv";
  write_atomically(dir + "/trials.csv", trials_csv(table));
  write_atomically(sweep_path, sweep_csv(table));
  if (plot)
    draw_plot(o, "sweep", {sweep_path, dir + "/sweep.png", dir + "/sweep.svg",
                           fmt::format("flysim sweep: {} trials of {} ms per rate", shape.trials, shape.duration_ms)},
              "the CSV files");
  const double total_trials = static_cast<double>(request.rates.size()) * shape.trials;
  std::cout << fmt::format(
      "flysim sweep: {} rates x {} trials x {} ms in {:.3f} s wall ({:.1f} simulated s per wall s) on {}\n"
      "  written     {}/sweep.csv, {}/trials.csv{}\n",
      request.rates.size(), shape.trials, shape.duration_ms, wall_s, total_trials * table.trial_s / wall_s, engine->describe(),
      dir, dir, plot ? fmt::format(", {}/sweep.png, {}/sweep.svg", dir, dir) : std::string());
  return 0;
}

}  // namespace flysim::app
