#include "messages/messages.hpp"

#include "messages/interfaces.hpp"

namespace flysim {

void register_message_types(caf::actor_system_config& cfg) {
  cfg.add_message_type<Spike>("flysim.spike");
  cfg.add_message_type<std::vector<Spike>>("flysim.spikes");
  cfg.add_message_type<EngineState>("flysim.engine_state");
  cfg.add_message_type<std::vector<EngineState>>("flysim.engine_states");
  cfg.add_message_type<EpochRequest>("flysim.epoch_request");
  cfg.add_message_type<EpochSpikes>("flysim.epoch_spikes");
  cfg.add_message_type<std::vector<EpochSpikes>>("flysim.batch_epoch_spikes");
  cfg.add_message_type<Responder>("flysim.responder");
  cfg.add_message_type<std::vector<Responder>>("flysim.responders");
  cfg.add_message_type<RecorderSummary>("flysim.recorder_summary");
  cfg.add_message_type<AppliedWeights>("flysim.applied_weights");
  cfg.add_message_type<std::vector<AppliedWeights>>("flysim.applied_weights_list");
  cfg.add_message_type<RunSummary>("flysim.run_summary");
  cfg.add_message_type<Kick>("flysim.kick");
  cfg.add_message_type<StimulusPlan>("flysim.stimulus_plan");
  cfg.add_message_type<TrialPlan>("flysim.trial_plan");
  cfg.add_message_type<RecorderPosition>("flysim.recorder_position");
  cfg.add_message_type<Snapshot>("flysim.snapshot");
  cfg.add_message_type<WeightChange>("flysim.weight_change");
  cfg.add_message_type<std::vector<WeightChange>>("flysim.weight_changes");
  cfg.add_message_type<WeightUpdate>("flysim.weight_update");
  cfg.add_message_type<Traces>("flysim.traces");
  cfg.add_message_type<StdpRule>("flysim.stdp_rule");
  cfg.add_message_type<ShardConnections>("flysim.shard_connections");
  cfg.add_message_type<ShardSetup>("flysim.shard_setup");
  cfg.add_message_type<ShardState>("flysim.shard_state");
  cfg.add_message_type<PlasticityState>("flysim.plasticity_state");
  cfg.add_message_type<LiveKick>("flysim.live_kick");
  cfg.add_message_type<std::vector<LiveKick>>("flysim.live_kicks");
  cfg.add_message_type<LiveCommand>("flysim.live_command");
  cfg.add_message_type<LiveReply>("flysim.live_reply");
  cfg.add_message_type<LagFigures>("flysim.lag_figures");
  cfg.add_message_type<RoleCost>("flysim.role_cost");
  cfg.add_message_type<std::vector<RoleCost>>("flysim.role_costs");
  cfg.add_message_type<ThreadCost>("flysim.thread_cost");
  cfg.add_message_type<std::vector<ThreadCost>>("flysim.thread_costs");
  cfg.add_message_type<CostReport>("flysim.cost_report");
  cfg.add_message_type<GpuProcess>("flysim.gpu_process");
  cfg.add_message_type<std::vector<GpuProcess>>("flysim.gpu_processes");
  cfg.add_message_type<StatusGroup>("flysim.status_group");
  cfg.add_message_type<std::vector<StatusGroup>>("flysim.status_groups");
  cfg.add_message_type<ServiceStatus>("flysim.service_status");
  cfg.add_message_type<ScreenWorkerSetup>("flysim.screen_worker_setup");
  cfg.add_message_type<ScreenWorkerReady>("flysim.screen_worker_ready");
  cfg.add_message_type<ScreenWorkItem>("flysim.screen_work_item");
  cfg.add_message_type<ScreenWorkResult>("flysim.screen_work_result");
  // A shard node replies with the handle of the shard it spawned.
  cfg.add_message_type<plasticity_shard_actor>("flysim.plasticity_shard_actor");
}

caf::error fail(const std::string& message) { return caf::make_error(caf::sec::runtime_error, message); }

namespace {
// flysim's own error category: only the engine failure, which the sim loop must tell
// apart from every other error (it falls back to the CPU instead of stopping).
constexpr uint8_t kEngineFailedCode = 1;
const caf::atom_value kFlysimCategory = caf::atom("flysim");
}  // namespace

caf::error engine_failed(const std::string& message) {
  return caf::error(kEngineFailedCode, kFlysimCategory, caf::make_message(message));
}

bool is_engine_failure(const caf::error& err) {
  return err.category() == kFlysimCategory && err.code() == kEngineFailedCode;
}

std::string describe_error(const caf::error& err) {
  if (((err.category() == caf::atom("system") && err.code() == static_cast<uint8_t>(caf::sec::runtime_error)) ||
       is_engine_failure(err)) &&
      err.context().match_elements<std::string>())
    return err.context().get_as<std::string>(0);
  return caf::to_string(err);
}

}  // namespace flysim
