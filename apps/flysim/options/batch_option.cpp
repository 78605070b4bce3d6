#include "apps/flysim/options/batch_option.hpp"

#include <algorithm>
#include <charconv>

namespace flysim::app {

int64_t batch_asked(const Options& o) {
  if (batch_is_auto(o)) return 0;
  const std::string& text = o.text("run.batch");
  int64_t batch = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), batch);
  if (ec != std::errc() || end != text.data() + text.size() || batch < 1)
    o.reject("run.batch", "must be 'auto' or a number of trials >= 1");
  return batch;
}

int32_t batch_option(const Options& o, int32_t trials, EngineWhere where, std::size_t neurons, int32_t delay_steps,
                     const std::string& one_trial_only, bool scripted_positions) {
  if (batch_is_auto(o))
    return one_trial_only.empty() && !scripted_positions ? std::min(trials, batch_that_fits(where, neurons, delay_steps)) : 1;
  int64_t batch = batch_asked(o);
  if (batch > 1 && !one_trial_only.empty()) o.reject("run.batch", "must be 1 (or auto): " + one_trial_only);
  batch = std::min<int64_t>(batch, trials);
  if (const std::string problem = batch_beyond_memory(where, neurons, delay_steps, batch); !problem.empty())
    o.reject("run.batch", problem);
  return static_cast<int32_t>(batch);
}

bool batch_is_auto(const Options& o) { return o.text("run.batch") == "auto"; }

}  // namespace flysim::app
