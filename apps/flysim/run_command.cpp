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

std::vector<OptionSpec> run_options() {
  const LifParams d;
  const auto num = [](double x) { return fmt::format("{}", x); };
  std::vector<OptionSpec> specs = network_options();
  const std::vector<OptionSpec> own = {
      {"stimulus.ids", OptionType::path, data_dir() + "/sugar_grn_783.txt",
       "root IDs of the Poisson-driven neurons, one per line ('#' comments); empty for none. The default applies "
       "only when stimulus.kicks is not given"},
      {"stimulus.rate", OptionType::number, num(d.r_poi_Hz), "Poisson rate of the stimulated neurons, Hz"},
      {"stimulus.kicks", OptionType::path, "", "CSV 'step,neuron_id': at that step the neuron gets v += f_poi*w_syn"},
      {"run.duration-ms", OptionType::number, "1000", "simulated time per trial, ms"},
      {"run.trials", OptionType::integer, "1", "trials; each starts at rest and draws its own Poisson input"},
      {"run.seed", OptionType::integer, "1", "seed of the Poisson input (0..2^64-1)"},
      {"engine.kind", OptionType::choice, "cpu", "the engine; the environment variable FLY_LIF_CUDA=1 (or 0) overrides it",
       {"cpu", "cuda"}},
      {"engine.threads", OptionType::integer, std::to_string(std::max(1u, std::thread::hardware_concurrency())),
       "threads of the CPU pool engine"},
      {"output.spikes", OptionType::path, "", "spike CSV 'trial,step,t_ms,neuron_id', sorted; empty: not written"},
      {"output.rates", OptionType::path, "", "per-neuron rates CSV 'neuron_id,index,spikes,rate_hz', highest first"},
      {"model.dt-ms", OptionType::number, num(d.dt_ms), "time step, ms"},
      {"model.v-rest-mV", OptionType::number, num(d.v0_mV), "resting potential v_0, mV"},
      {"model.v-reset-mV", OptionType::number, num(d.v_reset_mV), "reset potential, mV"},
      {"model.v-threshold-mV", OptionType::number, num(d.v_threshold_mV), "threshold (spike when v > it), mV"},
      {"model.tau-m-ms", OptionType::number, num(d.tau_m_ms), "membrane time constant, ms"},
      {"model.tau-g-ms", OptionType::number, num(d.tau_g_ms), "synaptic time constant, ms"},
      {"model.t-ref-ms", OptionType::number, num(d.t_ref_ms), "refractory period of unstimulated neurons, ms"},
      {"model.delay-ms", OptionType::number, num(d.delay_ms), "synaptic delay, ms (at most 32 steps)"},
      {"model.w-syn-mV", OptionType::number, num(d.w_syn_mV), "weight of one synapse, mV"},
      {"model.f-poi", OptionType::number, num(d.f_poi), "Poisson weight factor: one event adds f_poi*w_syn to v"},
  };
  specs.insert(specs.end(), own.begin(), own.end());
  const auto logs = log_options();
  specs.insert(specs.end(), logs.begin(), logs.end());
  return specs;
}

LifParams model_params(const Options& o) {
  LifParams p;
  p.dt_ms = o.number("model.dt-ms");
  p.v0_mV = o.number("model.v-rest-mV");
  p.v_reset_mV = o.number("model.v-reset-mV");
  p.v_threshold_mV = o.number("model.v-threshold-mV");
  p.tau_m_ms = o.number("model.tau-m-ms");
  p.tau_g_ms = o.number("model.tau-g-ms");
  p.t_ref_ms = o.number("model.t-ref-ms");
  p.delay_ms = o.number("model.delay-ms");
  p.w_syn_mV = o.number("model.w-syn-mV");
  p.f_poi = o.number("model.f-poi");
  p.r_poi_Hz = o.number("stimulus.rate");
  return p;
}

EngineKind engine_kind(const Options& o) {
  if (const char* env = std::getenv("FLY_LIF_CUDA"); env && *env) {
    const std::string v = env;
    if (v == "1") return EngineKind::cuda;
    if (v == "0") return EngineKind::cpu;
    throw input_error("environment variable FLY_LIF_CUDA='" + v + "' must be 1 (cuda) or 0 (cpu)");
  }
  return o.text("engine.kind") == "cuda" ? EngineKind::cuda : EngineKind::cpu;
}

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
