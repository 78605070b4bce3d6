#pragma once
// Output of trials that run together (a batch, run.batch) in the order of trials run
// one after another: the text of the trial being written passes straight through, the
// later trials' text waits until every trial before it has ended. So a spike file is
// the same bytes whatever the batch size.
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>

namespace flysim {

class TrialOrder {
 public:
  // The next part of `trial`'s text (its parts come in order; the first trial seen is
  // the first written); `ends_trial`: the trial's last part. Returns what may be written
  // now, in order.
  std::string add(int32_t trial, std::string text, bool ends_trial);
  // Everything still held, in trial order: the end of a run (stopped early or not).
  std::string drain();

 private:
  std::optional<int32_t> current_;       // the trial whose text passes through
  std::map<int32_t, std::string> held_;  // later trials' text so far
  std::set<int32_t> ended_;              // later trials that have ended
};

}  // namespace flysim
