#include "kernels/engine_group.hpp"

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
  std::vector<int32_t> held(engines_.size(), 0);
  for (std::size_t j = 0; j < engines_.size() && count > 0; ++j) {
    held[j] = std::min(count, engines_[j]->batch_capacity());
    count -= held[j];
  }
  return held;
}

BatchSpikes EngineGroup::advance_each(const std::function<BatchSpikes(Engine&)>& advance) {
  std::vector<BatchSpikes> parts(engines_.size());
  threads_.run([&](unsigned j, unsigned) {
    if (held_[j] > 0) parts[j] = advance(*engines_[j]);
  });
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
  auto from = states.begin();
  for (std::size_t j = 0; j < engines_.size(); ++j) {
    if (held[j] == 0) continue;
    engines_[j]->import_batch(std::vector<EngineState>(from, from + held[j]));
    from += held[j];
  }
  held_ = held;
}

void EngineGroup::start_at_rest(int32_t first_trial, int32_t count) {
  check_rest_batch(first_trial, count, capacity_);
  const std::vector<int32_t> held = split(count);
  for (std::size_t j = 0; j < engines_.size(); ++j) {
    if (held[j] == 0) continue;
    engines_[j]->start_at_rest(first_trial, held[j]);
    first_trial += held[j];
  }
  held_ = held;
}

void EngineGroup::apply_weights(const std::vector<WeightChange>& changes) {
  for (auto& engine : engines_) engine->apply_weights(changes);
}

void EngineGroup::set_stimulus(std::shared_ptr<const StimulusPlan> stimulus, uint32_t poisson_threshold) {
  for (auto& engine : engines_) engine->set_stimulus(stimulus, poisson_threshold);
}

}  // namespace flysim
