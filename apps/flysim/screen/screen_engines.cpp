#include "apps/flysim/screen/screen_engines.hpp"

#include <fmt/format.h>

namespace flysim::app {

ScreenEngines::ScreenEngines(std::vector<std::unique_ptr<Engine>> engines)
    : engines_(std::move(engines)), stopping_(std::make_shared<std::atomic<bool>>(false)) {}

bool ScreenEngines::stopping() const { return stopping_->load(std::memory_order_relaxed); }

void ScreenEngines::run(const std::vector<std::size_t>& to_run, const std::function<void(Engine&, std::size_t)>& run_one,
                        std::vector<ScreenSlot> more) {
  std::vector<ScreenSlot> slots;
  for (std::size_t k = 0; k < engines_.size(); ++k)
    slots.push_back({fmt::format("local engine {}", k + 1), [&, k](std::size_t i) {
                       run_one(*engines_[k], i);
                       return true;
                     }});
  for (ScreenSlot& slot : more) slots.push_back(std::move(slot));
  *stopping_ = false;
  run_on_slots(to_run, slots, *stopping_);
}

}  // namespace flysim::app
