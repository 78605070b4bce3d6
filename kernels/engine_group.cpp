#include "kernels/engine_group.hpp"

#include <algorithm>
#include <exception>
#include <stdexcept>
#include <string>

namespace flysim {

namespace {
std::size_t engine_count(const std::vector<std::unique_ptr<Engine>>& engines) {
  if (engines.empty()) throw std::invalid_argument("an engine group holds at least one engine");
  for (const auto& engine : engines)
    if (!engine) throw std::invalid_argument("an engine group's engines must not be null");
  return engines.size();
}
}  // namespace

EngineGroup::EngineGroup(std::vector<std::unique_ptr<Engine>> engines)
    : engines_(std::move(engines)), held_(engine_count(engines_), 0), threads_(static_cast<unsigned>(engines_.size())) {
  for (const auto& engine : engines_) {
    if (engine->cell_steps() != engines_.front()->cell_steps())
      throw std::invalid_argument("an engine group's engines must share one delay cell");
    capacity_ += engine->batch_capacity();
  }
  held_.front() = std::min(1, engines_.front()->batch_capacity());
}

std::string EngineGroup::describe() const {
  std::string text = std::to_string(engines_.size()) + " engines: ";
  for (std::size_t j = 0; j < engines_.size(); ++j) text += (j ? "; " : "") + engines_[j]->describe();
  return text;
}

std::vector<int32_t> EngineGroup::split(int32_t count) const {
  // As even as the capacities allow: each engine takes its share of what is left, at least
  // what the engines after it cannot hold.
  std::vector<int32_t> held(engines_.size(), 0);
  int32_t after = capacity_;
  for (std::size_t j = 0; j < engines_.size() && count > 0; ++j) {
    const int32_t capacity = engines_[j]->batch_capacity();
    after -= capacity;
    const auto left = static_cast<int32_t>(engines_.size() - j);
    held[j] = std::min(capacity, std::max((count + left - 1) / left, count - after));
    count -= held[j];
  }
  return held;
}

BatchSpikes EngineGroup::advance_each(const std::function<BatchSpikes(Engine&)>& advance) {
  std::vector<BatchSpikes> parts(engines_.size());
  std::vector<std::exception_ptr> failures(engines_.size());
  threads_.run([&](unsigned j, unsigned) {
    try {
      if (held_[j] > 0) parts[j] = advance(*engines_[j]);
    } catch (...) {
      failures[j] = std::current_exception();
    }
  });
  // A lost engine first: the caller falls back from it as from one engine.
  std::exception_ptr first;
  for (const std::exception_ptr& failure : failures) {
    if (!failure) continue;
    try {
      std::rethrow_exception(failure);
    } catch (const engine_failure&) {
      throw;
    } catch (...) {
      if (!first) first = failure;
    }
  }
  if (first) std::rethrow_exception(first);
  BatchSpikes joined;
  for (BatchSpikes& part : parts)
    for (std::vector<Spike>& trial : part) joined.push_back(std::move(trial));
  return joined;
}

BatchSpikes EngineGroup::advance_batch(kernels::EpochSpan span) {
  return advance_each([&](Engine& engine) { return engine.advance_batch(span); });
}

BatchSpikes EngineGroup::advance_cells(kernels::EpochSpan span) {
  return advance_each([&](Engine& engine) { return engine.advance_cells(span); });
}

std::vector<EngineState> EngineGroup::export_batch() const {
  std::vector<EngineState> states;
  for (std::size_t j = 0; j < engines_.size(); ++j) {
    if (held_[j] == 0) continue;
    std::vector<EngineState> part = engines_[j]->export_batch();
    for (EngineState& s : part) states.push_back(std::move(s));
  }
  return states;
}

void EngineGroup::import_batch(const std::vector<EngineState>& states) {
  check_batch(states, capacity_, states.empty() ? 0 : states.front().v.size());
  const std::vector<int32_t> held = split(static_cast<int32_t>(states.size()));
  // Each engine counts once it holds its part: one that throws leaves the group holding
  // the parts before it, never another batch's trials.
  std::fill(held_.begin(), held_.end(), 0);
  auto from = states.begin();
  for (std::size_t j = 0; j < engines_.size(); ++j) {
    if (held[j] == 0) continue;
    engines_[j]->import_batch(std::vector<EngineState>(from, from + held[j]));
    held_[j] = held[j];
    from += held[j];
  }
}

void EngineGroup::start_at_rest(int32_t first_trial, int32_t count) {
  check_rest_batch(first_trial, count, capacity_);
  const std::vector<int32_t> held = split(count);
  std::fill(held_.begin(), held_.end(), 0);
  for (std::size_t j = 0; j < engines_.size(); ++j) {
    if (held[j] == 0) continue;
    engines_[j]->start_at_rest(first_trial, held[j]);
    held_[j] = held[j];
    first_trial += held[j];
  }
}

void EngineGroup::apply_weights(const std::vector<WeightChange>& changes) {
  for (auto& engine : engines_) engine->apply_weights(changes);
}

void EngineGroup::set_stimulus(std::shared_ptr<const StimulusPlan> stimulus, uint32_t poisson_threshold) {
  for (auto& engine : engines_) engine->set_stimulus(stimulus, poisson_threshold);
}

}  // namespace flysim
