// flysim run: load the network and stimulus, start the actors, run, summarize.
#include <caf/all.hpp>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <thread>

#include "actors/engine_actor.hpp"
#include "actors/recorder.hpp"
#include "actors/sim_loop.hpp"
#include "apps/flysim/commands.hpp"
#include "apps/flysim/common_options.hpp"
#include "kernels/engine_factory.hpp"
#include "kernels/version.hpp"
#include "model/errors.hpp"
#include "model/lif_params.hpp"

namespace flysim::app {

namespace {

StimulusPlan stimulus_plan(const Options& o, const Network& net) {
  StimulusPlan plan;
  const bool ids_apply = o.given("stimulus.ids") || !o.given("stimulus.kicks");
  if (ids_apply && !o.text("stimulus.ids").empty()) plan.poisson_neurons = load_stimulus_ids(o.text("stimulus.ids"), net);
  if (!o.text("stimulus.kicks").empty()) plan.kicks = load_kicks(o.text("stimulus.kicks"), net);
  plan.seed = static_cast<uint64_t>(o.integer("run.seed"));
  return plan;
}

// Ctrl-C and SIGTERM set this; a watcher thread turns it into an exit message.
std::atomic<int> g_signal{0};
extern "C" void on_signal(int sig) { g_signal.store(sig); }

void print_summary(const RunSummary& s, const Network& net, const StimulusPlan& plan, double rate_Hz,
                   const std::string& compatibility) {
  const double simulated_total = s.simulated_s * s.trials;
  std::cout << fmt::format(
      "flysim run: done\n"
      "  network     {} ({} neurons, {} connections, {} synapses)\n"
      "  stimulus    {} Poisson neurons at {} Hz, {} timed kicks, seed {}\n"
      "  simulated   {} trial(s) x {:.1f} ms\n"
      "  spikes      {} from {} active neurons\n",
      net.description, net.neuron_count(), net.connection_count(), net.synapse_count(), plan.poisson_neurons.size(), rate_Hz,
      plan.kicks.size(), plan.seed, s.trials, s.simulated_s * 1e3, s.recorded.spikes, s.recorded.active_neurons);
  if (!s.recorded.top.empty()) std::cout << "  top responders (mean rate over trials):\n";
  for (std::size_t k = 0; k < s.recorded.top.size(); ++k) {
    const Responder& r = s.recorded.top[k];
    std::cout << fmt::format("    {:2}. {:>18}  index {:>6}  {:8.1f} Hz{}\n", k + 1, r.root_id, r.index, r.rate_Hz,
                             r.root_id == kMn9RootId ? "  (MN9)" : "");
  }
  const double per_sim = simulated_total > 0 ? s.wall_s / simulated_total : 0.0;
  std::cout << fmt::format(
      "  wall time   {:.3f} s, {:.4f} wall s per simulated s ({:.1f}x faster than real time)\n"
      "  host cpu    {:.3f} s, {:.4f} cpu s per simulated s\n"
      "  memory      {:.0f} MiB peak\n"
      "  engine      {}\n"
      "  compat      {}\n"
      "  kernel      {}\n",
      s.wall_s, per_sim, per_sim > 0 ? 1.0 / per_sim : 0.0, s.cpu_s, simulated_total > 0 ? s.cpu_s / simulated_total : 0.0,
      s.peak_memory_MiB, s.engine, compatibility, kKernelVersion);
}

}  // namespace

int run_command(const std::vector<std::string>& args) {
  const auto specs = run_options();
  for (const auto& a : args)
    if (a == "--help" || a == "-h") {
      std::cout << format_help("flysim run [--key=value ...]",
                               "Runs the LIF model of the fly brain (MODEL.md). With no options: the canonical experiment, "
                               "the 21 sugar GRNs at 150 Hz for 1 s on the synthetic FlyWire-scale network.",
                               specs);
      return 0;
    }
  const Options o = Options::parse(specs, args);
  configure_logging(o);

  const double duration_ms = o.number("run.duration-ms");
  if (!(duration_ms > 0.0) || duration_ms > 1e8) o.reject("run.duration-ms", "must be above 0 and at most 1e8 ms");
  const int64_t trials = o.integer("run.trials");
  if (trials < 1 || trials > 1000000) o.reject("run.trials", "must be 1..1000000");
  const int64_t threads = o.integer("engine.threads");
  if (threads < 1 || threads > 1024) o.reject("engine.threads", "must be 1..1024");
  if (o.integer("run.seed") < 0) o.reject("run.seed", "must not be negative");
  require_writable(o, "output.spikes");
  require_writable(o, "output.rates");
  const LifParams params = model_params(o);
  const LifConstants constants = derive_constants(params);
  const int64_t steps = duration_to_steps(duration_ms, params.dt_ms);
  if (steps < 1 || steps > (int64_t{1} << 29)) o.reject("run.duration-ms", "gives " + std::to_string(steps) + " steps; allowed 1..2^29");

  auto net = obtain_network(network_source(o), [](const std::string& line) { spdlog::info("{}", line); });
  const auto plan = std::make_shared<const StimulusPlan>(stimulus_plan(o, *net));
  const EngineKind kind = engine_kind(o);
  const std::string compatibility = compatibility_string(constants, net->content_hash());
  std::shared_ptr<Engine> engine = make_engine(kind, EngineSetup{net, plan, constants}, static_cast<unsigned>(threads));
  spdlog::info("engine: {}; {} Poisson neurons at {} Hz, {} kicks; {} trial(s) of {} steps", engine->describe(),
               plan->poisson_neurons.size(), params.r_poi_Hz, plan->kicks.size(), trials, steps);

  caf::actor_system_config cfg;
  register_message_types(cfg);
  cfg.set("scheduler.max-threads", std::size_t{2});
  caf::actor_system system{cfg};
  RecorderConfig rc{net, o.text("output.spikes"), o.text("output.rates"), static_cast<int32_t>(trials),
                    static_cast<int32_t>(steps), params.dt_ms};
  auto recorder = system.spawn(recorder_behavior, rc);
  auto engine_handle = spawn_engine(system, engine);
  engine.reset();  // the actor owns it now
  RunPlan run_plan{static_cast<int32_t>(trials), static_cast<int32_t>(steps), constants.delay_steps, params.dt_ms,
                   net->neuron_count(), constants.v0};
  auto sim = system.spawn(sim_loop_behavior, run_plan, engine_handle, recorder);

  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  std::atomic<bool> finished{false};
  std::thread watcher([&] {
    while (!finished.load() && g_signal.load() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (g_signal.load() != 0) caf::anon_send_exit(sim, caf::exit_reason::user_shutdown);
  });

  int exit_code = 0;
  {
    caf::scoped_actor self{system};
    self->request(sim, caf::infinite, run_atom::value)
        .receive([&](const RunSummary& summary) { print_summary(summary, *net, *plan, params.r_poi_Hz, compatibility); },
                 [&](const caf::error& err) {
                   if (g_signal.load() != 0) {
                     spdlog::warn("interrupted: stopped cleanly; no output file was written");
                     exit_code = 128 + g_signal.load();
                   } else {
                     spdlog::error("run failed: {}", describe_error(err));
                     exit_code = 1;
                   }
                 });
  }
  finished = true;
  watcher.join();
  for (const caf::actor& a : {caf::actor_cast<caf::actor>(sim), caf::actor_cast<caf::actor>(recorder),
                              caf::actor_cast<caf::actor>(engine_handle)})
    caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
  return exit_code;
}

}  // namespace flysim::app
