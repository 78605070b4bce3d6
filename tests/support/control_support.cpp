#include "control_support.hpp"

#include "actors/control.hpp"
#include "messages/messages.hpp"

namespace flysim::test {

ServiceStatus fake_status() {
  ServiceStatus s;
  s.state = "running";
  s.trial = 1;
  s.step = 360;
  s.trials = 3;
  s.simulated_s = 12.5;
  s.wall_s = 12.75;
  s.wall_per_simulated = 1.02;
  s.pace = "realtime";
  s.lag_ms = 0.5;
  s.engine = "cpu pool, 2 threads";
  s.threads = 2;
  s.host_cpu_s = 3.5;
  s.host_cores = 0.28;
  s.spikes = 123456789012ull;
  s.spikes_per_simulated_s = 9876.5;
  s.shards = 4;
  s.last_checkpoint = "ckpt/flysim-trial0001-step000000360.ckpt";
  s.stimulus_rate_Hz = 150;
  s.poisson_neurons = 21;
  s.groups = {{"bitter", 5, 80.0}};
  s.silenced_neurons = 3;
  s.silence_mode = "both";
  s.lag_p99_ms = 1.5;
  s.lag_max_ms = 4.25;
  s.max_lag_ms = 100;
  s.window_s = 10;
  s.engine_cores_needed = 0.75;
  s.warnings = {"a warning"};
  s.cpus_engine = "2-5";
  s.cpus_plasticity = "6";
  s.cpus_other = "0-1";
  s.cpus_freed = "2-5";
  s.cost.at_s = 12.5;
  s.cost.window_s = 10;
  s.cost.process_cores = 0.3;
  s.cost.process_cpu_s = 3.75;
  s.cost.exited_cores = 0.01;
  s.cost.roles = {{"engine", 2, 0.25, 0.125, 3.0}};
  s.cost.threads = {{4242, "fs-engine-0", 0.125, 1.5}};
  s.gpu_note = "on the GPU flysim uses: GPU 0";
  s.gpu_neighbours = {{0, 4343, "python3", 2048.0}};
  return s;
}

live_actor::behavior_type fake_sim_behavior(live_actor::stateful_pointer<fake_sim_state> self, std::shared_ptr<FakeSimLog> log) {
  self->state.log = std::move(log);
  return {
      [=](status_atom) { return fake_status(); },
      [=](command_atom, const LiveCommand& command) -> caf::result<LiveReply> {
        auto& log = *self->state.log;
        std::lock_guard<std::mutex> lock(log.mutex);
        log.commands.push_back(command);
        log.arrived.notify_all();
        if (!log.answer_commands) {
          self->state.held.push_back(self->make_response_promise<LiveReply>());
          return self->state.held.back();
        }
        if (const auto* swap = std::get_if<SwapCommand>(&command); swap && swap->engine == "cuda")
          return LiveReply{false, "cuda cannot run here: no CUDA device", 0, 0, ""};
        return LiveReply{true, std::string("applied ") + action_name(command), 1, 360,
                         std::holds_alternative<CheckpointCommand>(command) ? "ckpt/flysim-trial0001-step000000360.ckpt" : ""};
      },
  };
}

namespace {
ActivitySpan fake_span() { return {40, 153, 20.0, 500}; }

// MN9's root ID: beyond 2^53, where a JSON number read by JavaScript would lose digits.
ActivityNeuron fake_neuron() { return {720575940660219265, 17, 42, 4.2, true, true}; }

void note(FakeSimLog& log, const std::string& question) {
  std::lock_guard<std::mutex> lock(log.mutex);
  log.questions.push_back(question);
}
}  // namespace

RasterReport fake_raster() { return {fake_span(), {fake_neuron(), {820475940600000023, 3, 7, 0.7, false, false}}, {{151, 3020.0, {2, 0}}, {152, 3040.0, {1, 3}}}}; }

RatesReport fake_rates() { return {fake_span(), 2000, true, fake_neuron(), {{152, 3040.0, 1234, 321, 30.85, 50.0}}}; }

TopReport fake_top() { return {fake_span(), 10000.0, {fake_neuron()}}; }

activity_actor::behavior_type fake_activity_behavior(activity_actor::stateful_pointer<fake_activity_state> self,
                                                     std::shared_ptr<FakeSimLog> log) {
  self->state.log = std::move(log);
  return {
      [=](raster_atom, int64_t since, uint32_t neurons) {
        note(*self->state.log, "raster " + std::to_string(since) + " " + std::to_string(neurons));
        return fake_raster();
      },
      [=](rates_atom, int64_t since) {
        note(*self->state.log, "rates " + std::to_string(since));
        return fake_rates();
      },
      [=](top_atom, uint32_t neurons) {
        note(*self->state.log, "top " + std::to_string(neurons));
        return fake_top();
      },
  };
}

ControlFixture::ControlFixture() {
  register_message_types(config_);
  system_ = std::make_unique<caf::actor_system>(config_);
}

ControlFixture::~ControlFixture() {
  // The server first (its handlers hold scoped actors of the system), then the actors:
  // the actor system waits for every actor before it ends.
  server_.reset();
  if (sim_) caf::anon_send_exit(sim_, caf::exit_reason::user_shutdown);
  if (activity_) caf::anon_send_exit(activity_, caf::exit_reason::user_shutdown);
  if (control_) caf::anon_send_exit(control_, caf::exit_reason::user_shutdown);
  system_.reset();
}

void ControlFixture::start(app::ControlServerConfig config) {
  sim_ = system_->spawn(fake_sim_behavior, log_);
  activity_ = system_->spawn(fake_activity_behavior, log_);
  control_ = system_->spawn(control_behavior, sim_, activity_, kStatusTimeout);
  server_ = std::make_unique<app::ControlServer>(*system_, control_, std::move(config));
}

httplib::Result ControlFixture::get(const std::string& path, const httplib::Headers& headers) {
  httplib::Client client("127.0.0.1", server_->port());
  return client.Get(path.c_str(), headers);
}

httplib::Result ControlFixture::post(const std::string& path, const std::string& body, const httplib::Headers& headers) {
  httplib::Client client("127.0.0.1", server_->port());
  return client.Post(path.c_str(), headers, body, "application/json");
}

}  // namespace flysim::test
