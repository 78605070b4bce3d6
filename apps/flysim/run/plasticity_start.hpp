#pragma once
// What plasticity starts from in flysim run and serve: the plastic connections on the
// loaded network, the state the shards begin with, and the sim loop's plasticity plan.
#include <cstdint>
#include <memory>
#include <vector>

#include "actors/sim_loop.hpp"
#include "apps/flysim/options/plasticity_options.hpp"
#include "apps/flysim/run/run_inputs.hpp"
#include "model/plasticity.hpp"

namespace flysim::app {

struct PlasticStart {
  std::shared_ptr<const std::vector<uint64_t>> edges;  // null: plasticity off
  PlasticityState learned;
};

// With plasticity.enabled, the plastic edges of the options and a fresh run's initial
// weights and empty traces, or a restored checkpoint's learned state (refused when its
// plasticity settings differ). A checkpoint written with plasticity is refused without
// it. Throws input_error.
PlasticStart plasticity_start(const Options& o, const PlasticityRequest& request, const RunInputs& in);

// The sim loop's plasticity plan, all but the shards (actors, spawned as the run starts).
PlasticityPlan plasticity_plan(const PlasticityRequest& request, const PlasticStart& start, const RunInputs& in);

}  // namespace flysim::app
