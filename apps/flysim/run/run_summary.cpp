#include "apps/flysim/run/run_summary.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <iostream>

#include "apps/flysim/options/common_options.hpp"
#include "apps/flysim/service/cost_table.hpp"
#include "messages/field_json.hpp"
#include "kernels/version.hpp"
#include "io/atomic_file.hpp"
#include "model/lif_params.hpp"
#include "io/printed_times.hpp"

namespace flysim::app {

namespace {
using ordered_json = nlohmann::ordered_json;

// The figures derived from the measured ones, computed once for text and JSON.
struct Speed {
  double wall_per_simulated_s = 0.0;
  double faster_than_real_time = 0.0;
  double cpu_per_simulated_s = 0.0;
};

// "3.1x faster than real time", or "1.02x slower than real time".
std::string against_real_time(double wall_per_simulated_s) {
  if (!(wall_per_simulated_s > 0)) return "no simulated time";
  if (wall_per_simulated_s <= 1.0) return fmt::format("{:.1f}x faster than real time", 1.0 / wall_per_simulated_s);
  return fmt::format("{:.2f}x slower than real time", wall_per_simulated_s);
}

Speed speed_of(const RunSummary& s) {
  const double simulated = s.simulated_this_run_s;
  Speed speed;
  // Time paused by a command is no measure of speed.
  speed.wall_per_simulated_s = simulated > 0 ? (s.wall_s - s.paused_s) / simulated : 0.0;
  speed.faster_than_real_time = speed.wall_per_simulated_s > 0 ? 1.0 / speed.wall_per_simulated_s : 0.0;
  speed.cpu_per_simulated_s = simulated > 0 ? s.cpu_s / simulated : 0.0;
  return speed;
}

// Root IDs as strings: they exceed 2^53, which JSON readers that hold numbers as
// doubles (JavaScript, jq) would round.
ordered_json responder_json(const Responder& r) {
  return {{"root_id", std::to_string(r.root_id)}, {"index", r.index}, {"spikes", r.spikes}, {"rate_hz", r.rate_Hz}};
}

ordered_json responders_json(const std::vector<Responder>& responders) {
  ordered_json list = ordered_json::array();
  for (const Responder& r : responders) list.push_back(responder_json(r));
  return list;
}

ordered_json position_json(int32_t trial, int32_t step) { return {{"trial", trial}, {"step", step}}; }

ordered_json applied_json(const std::vector<AppliedWeights>& applied) {
  ordered_json list = ordered_json::array();
  for (const AppliedWeights& a : applied)
    list.push_back(
        {{"period", position_json(a.trial, a.first)}, {"at", position_json(a.at_trial, a.at_step)}, {"changes", a.changes}});
  return list;
}

// The plan's trials: "3 trial(s) x 100.0 ms", or the one trial of a run until stopped.
std::string trials_text(const RunSummary& s, const SummaryContext& c) {
  if (c.endless) return "one endless trial ('forever')";
  return fmt::format("{} trial(s) x {:.1f} ms", s.trials, reported_ms(s.simulated_s));
}

// Lag (paced runs) and host cores per role over the whole run.
void print_realtime_summary(const RunSummary& s, bool paced) {
  if (paced)
    std::cout << "  lag         " << lag_text(s.lag.now_ms, s.lag.p99_ms, s.lag.max_ms, s.max_lag_ms) << ", over the whole run\n";
  if (s.cost.roles.empty()) return;
  // No second reading (taken each second) means no span to divide by: no figures.
  if (s.cost.window_s > 0)
    std::cout << "  host cores per role, over the whole run:\n" << cost_table(s.cost, "    ");
  else
    std::cout << "  host cores  not measured: the run ended before the first reading, which comes 1 s after the start\n";
}
}  // namespace

void print_summary(const RunSummary& s, const SummaryContext& c) {
  const Network& net = c.network;
  const StimulusPlan& plan = c.stimulus;
  std::cout << fmt::format(
      "flysim {}: {}\n"
      "  network     {} ({} neurons, {} connections, {} synapses)\n"
      "  stimulus    {} Poisson neurons at {} Hz, {} timed kicks, seed {}\n"
      "  simulated   {} ({:.1f} ms in this run)\n"
      "  spikes      {} from {} active neurons\n",
      c.command, s.stopped_early ? "stopped" : "done", net.description, net.neuron_count(), net.connection_count(), net.synapse_count(),
      plan.poisson_neurons.size(), c.stimulus_rate_Hz, plan.kicks.size(), plan.seed, trials_text(s, c),
      reported_ms(s.simulated_this_run_s), s.recorded.spikes, s.recorded.active_neurons);
  for (const PoissonGroup& group : plan.groups)
    std::cout << fmt::format("  group       {}: {} Poisson neurons at {} Hz\n", group.name, group.neurons.size(), group.rate_Hz);
  if (!plan.silenced.empty())
    std::cout << fmt::format("  silenced    {} neurons ({} synapses carry no weight)\n", plan.silenced.size(),
                             plan.silence_mode == SilenceMode::both ? "their outgoing and incoming" : "their outgoing");
  if (s.stimulus_changes > 0)
    std::cout << fmt::format("  live        {} stimulus change(s) after the start above; the last: {}\n", s.stimulus_changes,
                             s.last_stimulus);
  if (!s.recorded.top.empty()) std::cout << "  top responders (mean rate over trials):\n";
  for (std::size_t k = 0; k < s.recorded.top.size(); ++k) {
    const Responder& r = s.recorded.top[k];
    std::cout << fmt::format("    {:2}. {:>18}  index {:>6}  {:8.1f} Hz{}\n", k + 1, r.root_id, r.index, r.rate_Hz,
                             r.root_id == kMn9RootId ? "  (MN9)" : "");
  }
  for (const Responder& r : s.recorded.readouts)
    std::cout << fmt::format("  readout     {} ({}index {}): {:.1f} Hz\n", r.root_id, r.root_id == kMn9RootId ? "MN9, " : "",
                             r.index, r.rate_Hz);
  for (const std::string& swap : s.swaps) std::cout << fmt::format("  swap        {}\n", swap);
  if (s.swaps_done > s.swaps.size())
    std::cout << fmt::format("  swaps       {} in all, the first {} listed\n", s.swaps_done, s.swaps.size());
  if (s.stopped_early)
    std::cout << fmt::format("  stopped     early, by a stop signal, at trial {} step {}: the outputs hold everything up to there\n",
                             s.stopped_trial, s.stopped_step);
  if (s.plasticity_shards > 0)
    std::cout << fmt::format("  plasticity  {} shard(s), {} weight changes applied in {} updates\n", s.plasticity_shards,
                             s.weight_changes, s.weight_updates);
  if (!s.checkpoints.empty())
    std::cout << fmt::format("  checkpoints {} written, the last {}\n", s.checkpoints_written, s.checkpoints.back());
  if (s.checkpoints_failed > 0)
    std::cout << fmt::format("  checkpoints {} could not be written (the log says why)\n", s.checkpoints_failed);
  print_realtime_summary(s, c.paced);
  const Speed speed = speed_of(s);
  std::cout << fmt::format(
      "  wall time   {:.3f} s{}, {:.4f} wall s per simulated s ({})\n"
      "  host cpu    {:.3f} s, {:.4f} cpu s per simulated s\n"
      "  memory      {:.0f} MiB peak\n"
      "  engine      {}\n"
      "  compat      {}\n"
      "  kernel      {}\n",
      s.wall_s, s.paused_s > 0 ? fmt::format(" ({:.3f} s of it paused)", s.paused_s) : std::string(), speed.wall_per_simulated_s,
      against_real_time(speed.wall_per_simulated_s), s.cpu_s, speed.cpu_per_simulated_s,
      s.peak_memory_MiB, s.engine, c.compatibility, kKernelVersion);
  if (!c.weights_path.empty())
    std::cout << fmt::format("  weights     {} plastic connections written to {}\n", c.plastic_connections, c.weights_path);
}

std::string summary_json(const RunSummary& s, const SummaryContext& c) {
  const Speed speed = speed_of(s);
  ordered_json j;
  j["status"] = s.stopped_early ? "stopped" : "done";
  j["network"] = {{"description", c.network.description},
                  {"neurons", c.network.neuron_count()},
                  {"connections", c.network.connection_count()},
                  {"synapses", c.network.synapse_count()}};
  j["stimulus"] = {{"poisson_neurons", c.stimulus.poisson_neurons.size()},
                   {"rate_hz", c.stimulus_rate_Hz},
                   {"kicks", c.stimulus.kicks.size()},
                   {"seed", c.stimulus.seed},
                   {"groups", nlohmann::json::array()},
                   {"silenced", c.stimulus.silenced.size()},
                   {"silence_mode", silence_mode_name(c.stimulus.silence_mode)}};
  for (const PoissonGroup& group : c.stimulus.groups)
    j["stimulus"]["groups"].push_back({{"name", group.name}, {"neurons", group.neurons.size()}, {"rate_hz", group.rate_Hz}});
  j["stimulus_changes"] = s.stimulus_changes;
  j["last_stimulus_change"] = s.last_stimulus;
  j["trials"] = s.trials;
  j["endless"] = c.endless;
  j["ms_per_trial"] = c.endless ? ordered_json(nullptr) : ordered_json(reported_ms(s.simulated_s));
  j["simulated_ms_this_run"] = reported_ms(s.simulated_this_run_s);
  j["spikes"] = s.recorded.spikes;
  j["active_neurons"] = s.recorded.active_neurons;
  j["top"] = responders_json(s.recorded.top);
  j["readouts"] = responders_json(s.recorded.readouts);
  j["swaps"] = s.swaps;
  j["swaps_done"] = s.swaps_done;
  j["stopped_at"] = s.stopped_early ? position_json(s.stopped_trial, s.stopped_step) : ordered_json();
  j["plasticity"] = {{"shards", s.plasticity_shards},
                     {"weight_changes", s.weight_changes},
                     {"updates", s.weight_updates},
                     {"applied", applied_json(s.applied)},
                     {"weights_out", c.weights_path},
                     {"plastic_connections", c.plastic_connections}};
  j["checkpoints"] = s.checkpoints;
  j["checkpoints_written"] = s.checkpoints_written;
  j["checkpoints_failed"] = s.checkpoints_failed;
  j["paced"] = c.paced;
  j["lag"] = {{"now_ms", s.lag.now_ms}, {"p99_ms", s.lag.p99_ms}, {"max_ms", s.lag.max_ms}, {"max_lag_ms", s.max_lag_ms}};
  j["cost"] = field_json::object_json(s.cost);
  j["wall_s"] = s.wall_s;
  j["paused_s"] = s.paused_s;
  j["wall_s_per_simulated_s"] = speed.wall_per_simulated_s;
  j["faster_than_real_time"] = speed.faster_than_real_time;
  j["cpu_s"] = s.cpu_s;
  j["cpu_s_per_simulated_s"] = speed.cpu_per_simulated_s;
  j["peak_memory_mib"] = s.peak_memory_MiB;
  j["engine"] = s.engine;
  j["compatibility"] = c.compatibility;
  j["kernel"] = kKernelVersion;
  // Paths and descriptions may hold any bytes; the JSON written must be valid UTF-8.
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

void write_summary_json(const std::string& path, const RunSummary& s, const SummaryContext& c) {
  const std::string text = summary_json(s, c);
  AtomicFile out(path);
  out.write(text.data(), text.size());
  out.commit();
}

}  // namespace flysim::app
