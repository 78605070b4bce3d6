#pragma once
// Where a screen's experiments run: slots, each running one experiment at a time (an
// engine of this process, or an engine of a worker node), each taking the next
// experiment not yet taken, so that fast and slow slots finish together. A worker's slot
// that is lost (its node died or went silent) gives its experiment back, and another
// slot runs it: no experiment is lost or run twice to the end.
#include <atomic>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace flysim::app {

struct ScreenSlot {
  std::string name;  // for the log: "127.0.0.1:7000 engine 1"
  // Runs and commits experiment `i`: true when done, false when the slot was lost first
  // (it takes nothing more; the experiment goes to another slot).
  std::function<bool(std::size_t)> run;
};

// Runs every experiment of `to_run` on `slots`, one thread per slot (the calling thread
// when there is one). The first exception of any slot sets `stopping` (the others stop
// at their next experiment or batch) and is rethrown once all have returned. When every
// slot is lost with experiments left, an input_error says how many.
void run_on_slots(const std::vector<std::size_t>& to_run, const std::vector<ScreenSlot>& slots, std::atomic<bool>& stopping);

}  // namespace flysim::app
