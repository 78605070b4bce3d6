#include "io/trial_order.hpp"

namespace flysim {

std::string TrialOrder::add(int32_t trial, std::string text, bool ends_trial) {
  if (!current_) current_ = trial;
  if (trial != *current_) {
    held_[trial] += text;
    if (ends_trial) ended_.insert(trial);
    return {};
  }
  std::string out = std::move(text);
  bool ended = ends_trial;
  while (ended) {
    ++*current_;
    if (const auto held = held_.find(*current_); held != held_.end()) {
      out += held->second;
      held_.erase(held);
    }
    ended = ended_.erase(*current_) > 0;
  }
  return out;
}

std::string TrialOrder::drain() {
  std::string out;
  for (auto& [trial, text] : held_) out += text;
  held_.clear();
  ended_.clear();
  return out;
}

}  // namespace flysim
