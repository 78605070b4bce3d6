#include "model/snapshot.hpp"

#include <stdexcept>

namespace flysim {

std::vector<EngineState> batch_states(const Snapshot& s) {
  std::vector<EngineState> states{s.engine};
  states.insert(states.end(), s.later_trials.begin(), s.later_trials.end());
  return states;
}

void set_batch_states(Snapshot& s, std::vector<EngineState> states) {
  if (states.empty()) throw std::logic_error("a snapshot holds at least one trial");
  s.engine = std::move(states.front());
  s.later_trials.assign(std::make_move_iterator(states.begin() + 1), std::make_move_iterator(states.end()));
}

}  // namespace flysim
