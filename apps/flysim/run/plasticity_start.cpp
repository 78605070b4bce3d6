#include "apps/flysim/run/plasticity_start.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <string>

#include "model/errors.hpp"

namespace flysim::app {

namespace {

// A fresh run's initial weights and empty traces, or a checkpoint's learned state.
PlasticityState starting_state(const RunInputs& in, const std::vector<uint64_t>& edges, const std::string& settings,
                               int32_t period_steps, const std::string& path) {
  const std::size_t n = in.network->neuron_count();
  if (!in.restored) {
    PlasticityState fresh{settings, 0, empty_traces(n), empty_traces(n), {}};
    for (uint64_t e : edges) fresh.learned.push_back(in.network->out_weights[e]);
    return fresh;
  }
  const Snapshot& s = *in.restored;
  if (s.plasticity.settings.empty())
    throw input_error(path + " was written without plasticity; restore it without plasticity.enabled=true");
  if (s.plasticity.settings != settings)
    throw input_error(path + ": the checkpoint's plasticity settings differ from the plasticity.* options (only plasticity.shards, "
                      "plasticity.nodes and plasticity.weights-out may change):\n  checkpoint: " +
                      s.plasticity.settings + "\n  options:    " + settings);
  // Trace sizes and steps were checked with the rest of the snapshot (validate_snapshot).
  if (s.engine.next_step % period_steps != 0 || s.engine.plastic_weights.size() != edges.size() ||
      s.plasticity.learned.size() != edges.size())
    throw input_error(path + ": the checkpoint's plasticity state does not fit its settings (step " +
                      std::to_string(s.engine.next_step) + ", period " + std::to_string(period_steps) + " steps)");
  return s.plasticity;
}

// Plastic connections whose magnitude lies outside [w_min, w_max] keep it until their
// first update, which clamps it at once: said before the run, with the way out.
void warn_of_weights_beyond_bounds(const Network& net, const std::vector<uint64_t>& edges, const StdpParams& p) {
  std::size_t above = 0, below = 0;
  int64_t largest = 0, smallest = std::numeric_limits<int64_t>::max();
  for (uint64_t e : edges) {
    const int64_t magnitude = std::abs(static_cast<int64_t>(net.out_weights[e]));
    largest = std::max(largest, magnitude);
    smallest = std::min(smallest, magnitude);
    above += magnitude > p.w_max;
    below += magnitude < p.w_min;
  }
  if (above > 0)
    spdlog::warn("plasticity: {} of {} plastic connections weigh more than plasticity.w-max ({} units; the largest weighs "
                 "{}): each is clamped to it at its first update, a step of its own; give plasticity.w-max={} to keep them",
                 above, edges.size(), p.w_max, largest, largest);
  if (below > 0)
    spdlog::warn("plasticity: {} of {} plastic connections weigh less than plasticity.w-min ({} units; the smallest weighs "
                 "{}): each is raised to it at its first update, a step of its own; give plasticity.w-min={} to keep them",
                 below, edges.size(), p.w_min, smallest, smallest);
}

// The weights learned before a checkpoint that the engine had not applied yet.
std::vector<WeightChange> unapplied_weights(const PlasticityState& learned, const std::vector<int32_t>& applied) {
  std::vector<WeightChange> changes;
  for (std::size_t p = 0; p < applied.size(); ++p)
    if (learned.learned[p] != applied[p]) changes.push_back({static_cast<uint32_t>(p), learned.learned[p]});
  return changes;
}

}  // namespace

PlasticStart plasticity_start(const Options& o, const PlasticityRequest& request, const RunInputs& in) {
  if (in.restored && !request.enabled && !in.restored->plasticity.settings.empty())
    throw input_error(o.text("restore") + ": the checkpoint was written with plasticity (" + in.restored->plasticity.settings +
                      "); restore it with plasticity.enabled=true and the same plasticity.* options");
  PlasticStart start;
  if (!request.enabled) return start;
  start.edges = std::make_shared<const std::vector<uint64_t>>(plastic_edges_from_options(o, *in.network));
  start.learned = starting_state(in, *start.edges, describe_plasticity(request.params, *start.edges), request.params.period_steps,
                                 o.text("restore"));
  if (!in.restored) warn_of_weights_beyond_bounds(*in.network, *start.edges, request.params);
  spdlog::info("plasticity: {} plastic connections, {} shard(s), weights applied {} steps after each period", start.edges->size(),
               request.shards, request.params.period_steps);
  return start;
}

PlasticityPlan plasticity_plan(const PlasticityRequest& request, const PlasticStart& start, const RunInputs& in) {
  PlasticityPlan plan;
  if (!request.enabled) return plan;
  for (const ShardPlace& place : request.places) plan.places.push_back(place.name());
  plan.period_steps = request.params.period_steps;
  plan.plastic_count = start.edges->size();
  plan.settings = start.learned.settings;
  if (in.restored) plan.restored_pending = unapplied_weights(start.learned, in.restored->engine.plastic_weights);
  plan.want_final_weights = !request.weights_out.empty();
  return plan;
}

}  // namespace flysim::app
