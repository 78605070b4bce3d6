// flysim worker: runs the experiments of screens in other processes (screen.nodes).
#include <caf/all.hpp>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>

#include "apps/flysim/commands/commands.hpp"
#include "apps/flysim/screen/screen_engines.hpp"
#include "apps/flysim/run/trial_runs.hpp"
#include "apps/flysim/options/common_options.hpp"
#include "apps/flysim/options/cuda_devices_option.hpp"
#include "apps/flysim/run/device_engines.hpp"
#include "apps/flysim/process/file_roles.hpp"
#include "apps/flysim/process/stop_signal.hpp"
#include "apps/flysim/remote/listen_options.hpp"
#include "apps/flysim/remote/screen_worker.hpp"
#include "apps/flysim/remote/serve_node.hpp"
#include "apps/flysim/run/run_builder.hpp"
#include "apps/flysim/run/trial_options.hpp"
#include "model/errors.hpp"

namespace flysim::app {

namespace {

// How long the whole actor system gets to stop before the process ends regardless.
constexpr std::chrono::seconds kShutdownLimit{5};
// The only options a worker takes itself: where it listens, where its engines run, its
// network files or cache, its batches and its logs. What a trial computes comes from
// the coordinator.
const OverrideRule kWorkerOwn = override_prefixes({"port", "bind", "token-file", "engine.", "network.", "run.batch", "log."});
const char* kFromCoordinator = "the screen's coordinator";

std::vector<OptionSpec> worker_options() {
  std::vector<OptionSpec> own = listen_specs("screen.token-file");
  for (const OptionSpec& spec : cuda_devices_specs(std::to_string(kScreenEnginesPerDevice))) own.push_back(spec);
  return trial_run_options(own);
}

// The session of one coordinator: its options with this worker's own, the network
// (refused when its hash differs from the coordinator's) and the engines.
std::shared_ptr<WorkerSession> open_session(const std::vector<OptionSpec>& specs, const std::vector<std::string>& args,
                                            const ScreenWorkerSetup& setup) {
  std::map<std::string, std::string> adopted;
  for (std::size_t k = 0; k + 1 < setup.options.size(); k += 2) adopted[setup.options[k]] = setup.options[k + 1];
  const Options o = Options::parse(specs, args, adopted, kFromCoordinator, kWorkerOwn);
  const RunBuilder run(o);
  const TrialShape shape = run.trial_shape(Forever::refused);
  const auto net = run.load_network();
  if (net->content_hash() != setup.network_hash)
    throw input_error(fmt::format("network mismatch: the coordinator's network is {} (hash {:016x}), this worker's is {} "
                                  "(hash {:016x}); give the worker the same network files (network.neurons, "
                                  "network.connectivity) or none",
                                  setup.network_description, setup.network_hash, net->description, net->content_hash()));
  TrialBatches plan = run.trial_batches(shape, net->neuron_count());
  const std::vector<int> devices = cuda_devices(o);
  plan.batch = batch_beside_engines(o, run.engine().kind, devices, plan.batch, plan.neurons, plan.delay_steps);
  // No experiment yet: the engines start with no input, but with the run's seed, which
  // every experiment keeps.
  ScreenRun none;
  none.plan.seed = stimulus_seed(o);
  ScreenEngines engines = screen_engines(o, devices, run.engine().kind, run.engines(net, plan.batch), plan, none);
  std::string description = engines.size() > 1 ? fmt::format("{} engines ({} first)", engines.size(), engines.front().describe())
                                                : engines.front().describe();
  const double dt_ms = run.params().dt_ms;
  return std::make_shared<WorkerSession>(net, std::move(engines), plan, dt_ms, std::move(description));
}

// The options a worker takes on its own command line (its --help lists only these).
std::vector<OptionSpec> own_options(const std::vector<OptionSpec>& specs) {
  std::vector<OptionSpec> own;
  for (const OptionSpec& spec : specs)
    if (kWorkerOwn.allows(spec.key)) own.push_back(spec);
  return own;
}

}  // namespace

int worker_command(const std::vector<std::string>& args) {
  const auto specs = worker_options();
  if (print_help_if_asked(
          args, "flysim worker [--port=P] [--bind=ADDRESS --token-file=FILE] [--engine.kind=cuda --engine.cuda-devices=all]",
          "Runs the experiments of screens in other processes: `flysim screen --screen.nodes=HOST:PORT,...` hands this "
          "worker one experiment at a time per engine. The coordinator sends the options that decide what a trial "
          "computes and its network's hash; the worker loads the network from the same files (or its own "
          "network.* options, or its cache) and refuses a different one by name. Its own options: where it listens, "
          "its engines (engine.*), its network files and cache (network.*), run.batch and logs. Runs until Ctrl-C "
          "or SIGTERM; a screen's session ends when its coordinator ends or its connection drops.",
          own_options(specs)))
    return 0;
  // The worker's own options alone, checked now: one that would change a result is refused here.
  const Options own = Options::parse(specs, args, {}, kFromCoordinator, kWorkerOwn);
  configure_logging(own);
  const ListenRequest listen = listen_request(own, "screen.token-file");
  cuda_devices(own);
  engine_choice(own);  // engine.threads and the engine's kind, as a screen would find them
  check_file_roles(own, {{"network.neurons", "network.connectivity"}, {}, {}});

  catch_stop_signals();
  ServingSystem serving(listen.token);
  caf::actor_system& system = serving.system;
  auto stopping = std::make_shared<std::atomic<bool>>(false);
  auto worker = spawn_screen_worker(
      system, [&specs, &args](const ScreenWorkerSetup& setup) { return open_session(specs, args, setup); }, stopping);
  serve_until_stopped(system, worker, listen, {"worker", "screens", "worker", "screens", "screen.token-file"}, serving.deadline,
                      kShutdownLimit, [&] {
                        *stopping = true;
                        caf::anon_send_exit(worker, caf::exit_reason::user_shutdown);
                      });
  return 0;
}

}  // namespace flysim::app
