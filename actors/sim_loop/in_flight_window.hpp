#pragma once
// The sim loop's requests to the engine and where the run stands: the next epoch to ask
// for (issued) and the end of the last one answered (done). Plain C++, no actors.
#include <cstdint>

#include "actors/schedule.hpp"

namespace flysim {

// Every request to the engine is counted while it is out; the loop decides another only
// while fewer than `size` are. Each request carries the generation of the engine it went
// to: once that engine is replaced or given up, its replies are stale and dropped.
class InFlightWindow {
 public:
  InFlightWindow() = default;
  // `start`: where the run starts; `size`: requests out at once (RunPlan::window);
  // a trial's steps and the trials of a batch, for moving `issued` past a trial's end.
  InFlightWindow(RunPosition start, int32_t size, int32_t steps_per_trial, int32_t batch);

  RunPosition issued() const { return issued_; }
  RunPosition done() const { return done_; }
  int32_t in_flight() const { return in_flight_; }
  uint64_t generation() const { return generation_; }
  // True while the engine is being replaced: nothing is issued.
  bool held() const { return held_; }
  // Whether the loop may decide another request: the engine is not being replaced and
  // fewer than `size` requests are out.
  bool has_room() const { return !held_ && in_flight_ < size_; }

  // A request goes out to the current engine; its reply passes the returned generation.
  uint64_t request() {
    ++in_flight_;
    return generation_;
  }
  // The epoch of `steps` steps from issued goes out; issued moves past it, to the next
  // batch's start at a trial's end.
  uint64_t request_epoch(int32_t steps);
  // A reply of the engine of `generation` (every request's, epochs, exports, weight and
  // stimulus updates alike): counted and true when that engine is current, false
  // (dropped) when it is stale: a failed engine that still answers counts nothing.
  bool reply(uint64_t generation);
  bool current(uint64_t generation) const { return generation == generation_; }
  // The epoch ending at `end` was answered.
  void complete(RunPosition end) { done_ = end; }

  // A swap: nothing is issued until release().
  void hold() { held_ = true; }
  void release() { held_ = false; }
  // A swap is done: the new engine is current, the old one's replies are stale.
  void replace_engine() { ++generation_; }
  // The engine failed: its replies are stale, none is awaited any more, and nothing is
  // issued until resume_from().
  void give_up_engine();
  // A new engine holds the state at `at` (at or before issued): the run goes on from there.
  void resume_from(RunPosition at);

 private:
  RunPosition issued_, done_;
  int32_t size_ = 4;
  int32_t steps_per_trial_ = 0;
  int32_t batch_ = 1;
  int32_t in_flight_ = 0;
  uint64_t generation_ = 0;
  bool held_ = false;
};

}  // namespace flysim
