// flysim run and flysim serve: the run built from the options (apps/flysim/run/), then
// the actors started, steered (serve) and stopped, and the summary reported.
#include <caf/all.hpp>
#include <caf/io/all.hpp>
#include <spdlog/spdlog.h>

#include <atomic>
#include <chrono>
#include <exception>
#include <iostream>
#include <memory>
#include <optional>
#include <thread>

#include "actors/caf_thread_roles.hpp"
#include "actors/checkpointer.hpp"
#include "actors/control.hpp"
#include "actors/engine_actor.hpp"
#include "actors/recorder.hpp"
#include "actors/sim_loop.hpp"
#include "apps/flysim/commands/commands.hpp"
#include "apps/flysim/options/common_options.hpp"
#include "apps/flysim/options/realtime_options.hpp"
#include "apps/flysim/process/stop_signal.hpp"
#include "apps/flysim/remote/network_layer.hpp"
#include "apps/flysim/remote/shard_placement.hpp"
#include "apps/flysim/run/actor_run_builder.hpp"
#include "apps/flysim/run/replay_options.hpp"
#include "apps/flysim/service/control_server.hpp"
#include "model/errors.hpp"

namespace flysim::app {

namespace {

bool print_run_help(const std::vector<std::string>& args, RunMode mode, const std::vector<OptionSpec>& specs) {
  if (mode == RunMode::serve)
    return print_help_if_asked(args, "flysim serve [--key=value ...]",
                               "Runs the LIF model as a service: paced to real time, until stopped, steered through "
                               "the control API (flysim ctl), every live command journaled (replay it with flysim run "
                               "--replay=JOURNAL). The options of flysim run, with the defaults below.",
                               specs);
  return print_help_if_asked(args, "flysim run [--key=value ...]",
                             "Runs the LIF model of the fly brain (docs/MODEL.md). With no options: the canonical "
                             "experiment, the 21 sugar GRNs at 150 Hz for 1 s on the synthetic FlyWire-scale network.",
                             specs);
}

// From here on every thread flysim starts is named and placed for its role; this one
// first, so the threads it starts begin on cpus.other until they enter their own role.
RealtimeSettings place_threads(const Options& o) {
  RealtimeSettings realtime = realtime_settings(o);
  install_cpu_partition(realtime.cpus);
  enter_role(ThreadRole::main);
  return realtime;
}

// The network layer only when a shard lives elsewhere: nothing listens either way. The
// credentials (with plasticity.token-file) must outlive the system.
CredentialFiles configure_actor_system(caf::actor_system_config& cfg, const ActorRunBuilder& builder, double pace) {
  register_message_types(cfg);
  CredentialFiles credentials = builder.remote_shards() ? load_network_layer(cfg, builder.plasticity().token) : CredentialFiles{};
  // One scheduler thread: the sim loop, recorder and messages are light, and the cores
  // belong to the engine (its pool is engine.threads on top of this).
  cfg.set("scheduler.max-threads", std::size_t{1});
  if (pace > 0) {
    // A paced run idles between batches of epochs. CAF's default idle polling (100
    // polls, then 500 naps of 50 us) never reaches its sleep when a message comes every
    // few ms: ~20,000 wake-ups a second, a tenth of a core. Sleep on the worker's
    // condition variable at once instead (an enqueue wakes it).
    cfg.set("work-stealing.aggressive-poll-attempts", std::size_t{10});
    cfg.set("work-stealing.moderate-poll-attempts", std::size_t{0});
  }
  name_caf_threads(cfg);
  return credentials;
}

struct RunActors {
  sim_loop_actor sim;
  recorder_actor recorder;
};

// The recorder, the checkpointer, the plasticity shards (owned by `self`) and the sim
// loop, which is linked to the others: they end with it.
RunActors spawn_run_actors(caf::actor_system& system, caf::scoped_actor& self, const ActorRunBuilder& builder,
                           ActorRunParts& parts) {
  auto recorder = spawn_recorder(system, parts.recorder);
  checkpointer_actor checkpointer;
  if (parts.checkpointer) checkpointer = spawn_checkpointer(system, *parts.checkpointer);
  if (builder.plasticity().enabled)
    parts.plan.plasticity.shards = spawn_shards(system, self, std::move(parts.shard_setups), builder.plasticity().places);
  // The sim loop holds the only handle of the engine: a swap's old engine (its thread and
  // its pool's) ends once the sim loop lets it go.
  const EngineKind kind = builder.run().engine().kind;
  auto sim = spawn_sim_loop(system, std::move(parts.plan), spawn_engine(system, std::move(parts.engine), kind), recorder,
                            checkpointer, builder.remote_shards() ? SimLoopThread::pool : SimLoopThread::own);
  return {sim, recorder};
}

// The control API: its HTTP threads only talk to the control actor, which asks the sim
// loop. Stop it before the actor system goes.
std::unique_ptr<ControlServer> start_control_server(caf::actor_system& system, const RunActors& actors,
                                                    const ControlServerConfig& config) {
  auto control_handle = system.spawn(control_behavior, live_actor{actors.sim}, activity_actor{actors.recorder}, kStatusTimeout);
  auto control = std::make_unique<ControlServer>(system, control_handle, config);
  // The program's text carries the address (a script reads the chosen port from it): stdout,
  // or stderr when an output is written there (process/standard_output.hpp); logs go to stderr.
  std::cout << "flysim serve: control API on http://" << control->address() << std::endl;
  spdlog::info("live page: http://{}/ (files from {})", control->address(), config.page.dir);
  return control;
}

// A thread that turns a stop signal into a stop request (the epochs in flight finish,
// what was recorded is committed) and a second one into an exit (nothing kept).
class StopSignalWatcher {
 public:
  explicit StopSignalWatcher(sim_loop_actor sim) : thread_([this, sim] { watch(sim); }) {}
  ~StopSignalWatcher() { finish(); }
  StopSignalWatcher(const StopSignalWatcher&) = delete;
  StopSignalWatcher& operator=(const StopSignalWatcher&) = delete;
  // The run has ended: the thread returns.
  void finish() {
    finished_ = true;
    if (thread_.joinable()) thread_.join();
  }

 private:
  void watch(const sim_loop_actor& sim) {
    enter_role_as(ThreadRole::other, "fs-signals");
    while (!finished_.load() && stop_signal() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (stop_signal() == 0) return;
    spdlog::warn("signal {}: stopping after the epochs in flight (a second signal stops at once, writing nothing)", stop_signal());
    caf::anon_send(sim, stop_atom::value);
    while (!finished_.load() && stop_signal_count() < 2) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (!finished_.load()) caf::anon_send_exit(sim, caf::exit_reason::user_shutdown);
  }

  std::atomic<bool> finished_{false};
  std::thread thread_;
};

struct RunEnd {
  int exit_code = 0;
  // A file that could not be written: the run ends with its error once the actors are stopped.
  std::exception_ptr output_failure;
};

// Runs the plan to its end and writes the outputs.
RunEnd wait_and_report(caf::scoped_actor& self, const sim_loop_actor& sim, const RunOutputs& outputs) {
  RunEnd end;
  self->request(sim, caf::infinite, run_atom::value)
      .receive(
          [&](const RunSummary& summary) {
            try {
              write_run_outputs(outputs, summary);
            } catch (const std::exception&) {
              end.output_failure = std::current_exception();
            }
            // Stopped by a signal: 128 + the signal; by a command: a normal end.
            if (summary.stopped_early && stop_signal() != 0) end.exit_code = 128 + stop_signal();
          },
          [&](const caf::error& err) {
            if (stop_signal_count() >= 2) {
              spdlog::warn("stopped at once by a second signal: the files written at the end (rates, summary) were not "
                           "written; streamed ones (spikes, the journal) hold what was recorded up to the stop");
              end.exit_code = 128 + stop_signal();
            } else {
              spdlog::error("run failed: {}", describe_error(err));
              end.exit_code = 1;
            }
          });
  return end;
}

// The actors from start to shutdown, in the order CAF 0.17 needs (docs/CAF-0.17.md,
// "Shutdown hangs"): the signal watcher and the control server stop before the sim loop
// is told to exit, and every actor ends before the system goes.
int run_actors(const ActorRunBuilder& builder, ActorRunParts parts) {
  caf::actor_system_config cfg;
  const CredentialFiles credentials = configure_actor_system(cfg, builder, parts.plan.pace);
  // Host cores per role from here on (host/THREADS.md), the actors' threads included.
  parts.plan.cost = std::make_shared<CostSampler>(builder.realtime().window_s);
  caf::actor_system system{cfg};
  caf::scoped_actor self{system};
  const RunActors actors = spawn_run_actors(system, self, builder, parts);
  std::unique_ptr<ControlServer> control;
  if (builder.serving()) control = start_control_server(system, actors, builder.control());
  StopSignalWatcher watcher(actors.sim);
  const RunEnd end = wait_and_report(self, actors.sim, parts.outputs);
  watcher.finish();
  if (control) control->stop();
  caf::anon_send_exit(actors.sim, caf::exit_reason::user_shutdown);
  if (end.output_failure) std::rethrow_exception(end.output_failure);
  return end.exit_code;
}

}  // namespace

int run_or_serve(const std::vector<std::string>& args, RunMode mode) {
  const auto specs = mode == RunMode::serve ? serve_options() : run_options();
  if (print_run_help(args, mode, specs)) return 0;
  catch_stop_signals();
  std::optional<ReplayJournal> replay;
  const Options o = parse_run_options(specs, args, replay);
  configure_logging(o);
  RealtimeSettings realtime = place_threads(o);
  const ActorRunBuilder builder(o, specs, mode, std::move(replay), std::move(realtime));
  return run_actors(builder, builder.build());
}

}  // namespace flysim::app
