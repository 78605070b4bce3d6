#pragma once
// run.batch: how many trials the engine advances together (kernels/engine.hpp).
#include <cstddef>
#include <cstdint>
#include <string>

#include "apps/flysim/options/options.hpp"
#include "kernels/engine_factory.hpp"

namespace flysim::app {

// The batch of a fresh run of `trials` trials on the engine `where`: run.batch, at most
// `trials`; 'auto' is what fits (batch_that_fits). `one_trial_only` says why this run
// must go one trial at a time (plasticity, pacing, a service or a replay; empty: it need
// not): then 'auto' is 1 and a batch above 1 is refused naming the option and the reason.
// `scripted_positions`: checkpoints or swaps are set in simulated ms, which a batched run
// counts batch after batch (actors/schedule.hpp); 'auto' then keeps one trial at a time,
// so that they fall where they fall in a run of trials one after another. A batch the
// memory does not hold (batch_beyond_memory) is refused naming run.batch.
int32_t batch_option(const Options& o, int32_t trials, EngineWhere where, std::size_t neurons, int32_t delay_steps,
                     const std::string& one_trial_only, bool scripted_positions);

// run.batch as written: a number of trials >= 1, or 0 for 'auto'; anything else is refused
// naming the option (checked with the other trial options, before the network loads).
int64_t batch_asked(const Options& o);

// run.batch=auto: the batch is what fits, not a number the user chose.
bool batch_is_auto(const Options& o);

}  // namespace flysim::app
