#include "actors/sim_loop/in_flight_window.hpp"

namespace flysim {

InFlightWindow::InFlightWindow(RunPosition start, int32_t size, int32_t steps_per_trial, int32_t batch)
    : issued_(start), done_(start), size_(size), steps_per_trial_(steps_per_trial), batch_(batch) {}

uint64_t InFlightWindow::request_epoch(int32_t steps) {
  issued_.step += steps;
  if (issued_.step == steps_per_trial_) issued_ = {issued_.trial + batch_, 0};
  return request();
}

bool InFlightWindow::reply(uint64_t generation) {
  if (!current(generation)) return false;
  --in_flight_;
  return true;
}

void InFlightWindow::give_up_engine() {
  ++generation_;
  in_flight_ = 0;
  held_ = true;
}

void InFlightWindow::resume_from(RunPosition at) {
  issued_ = at;
  held_ = false;
}

}  // namespace flysim
