#pragma once
// What the Python module (flysim_module.cpp) does, in plain C++: a network loaded the way
// `flysim run` loads it, and trials of a stimulus run on it batch by batch
// (kernels/trial_batches.hpp) on an engine kept between runs with the same settings.
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "kernels/engine_factory.hpp"
#include "kernels/trial_batches.hpp"
#include "model/lif_params.hpp"
#include "model/network.hpp"
#include "model/stimulus.hpp"

namespace flysim::python {

// The network of `options`, the network.* options of `flysim run` (one not given keeps
// its default: no network.connectivity is the synthetic FlyWire-scale network), through
// the network cache. `log` gets one line per stage.
std::shared_ptr<const Network> load_network(const std::map<std::string, std::string>& options,
                                            const std::function<void(const std::string&)>& log);

// A Poisson group: root IDs driven at a rate.
struct GroupRequest {
  std::string name;
  std::vector<int64_t> ids;
  double rate_Hz = 0.0;
};

struct RunRequest {
  // The first group is StimulusPlan::poisson_neurons at LifParams::r_poi_Hz; the others
  // are StimulusPlan::groups. None at all: no Poisson input.
  std::vector<GroupRequest> groups;
  std::string kicks_file;                            // a kicks CSV (step,neuron_id), or
  std::vector<std::pair<int32_t, int64_t>> kicks;    // (step, root ID) pairs
  std::vector<int64_t> silenced;
  std::string silence_mode = "outgoing";
  double duration_ms = 1000.0;
  int32_t trials = 1;
  uint64_t seed = 1;
  EngineKind kind = EngineKind::cpu;
  unsigned threads = 0;  // the CPU pool's threads; 0: one per hardware thread
  int32_t batch = 0;     // trials advanced together; 0: what fits (batch_that_fits), at most `trials`
  LifParams params;      // r_poi_Hz is set from the first group
  // Called at epoch boundaries, at most every kPollEvery of wall time: what it throws ends
  // the run there and leaves the engine kept (Python checks for Ctrl-C in it).
  std::function<void()> poll;
};

// How often a run calls RunRequest::poll: Ctrl-C answered within a blink, at no cost to the trials.
inline constexpr std::chrono::milliseconds kPollEvery{50};

// Every spike of a run, sorted by (trial, step, neuron): model indices.
struct RunSpikes {
  std::vector<int32_t> trial;
  std::vector<int32_t> step;
  std::vector<uint32_t> neuron;
  std::vector<double> t;  // each spike's time in s, as Brian2 records it (spike_time_s)
  int32_t steps_per_trial = 0;
  double trial_s = 0.0;  // a trial's length in s, as the program's rate tables take it
  int32_t batch = 0;
  double wall_s = 0.0;     // the trials alone, engine building included when it was built
  std::string engine;      // Engine::describe()
  bool engine_reused = false;
  int64_t late_kicks = 0;  // kicks at steps_per_trial or later: they fall after the end of a trial
};

class NetworkSession {
 public:
  explicit NetworkSession(std::shared_ptr<const Network> network) : network_(std::move(network)), ids_(*network_) {}
  const Network& network() const { return *network_; }
  // Model indices of root IDs, in their order; an unknown ID is an input_error naming it.
  std::vector<uint32_t> indices_of(const std::vector<int64_t>& ids) const;
  // The stimulus plan of `request` on this network (errors name the group or argument).
  StimulusPlan stimulus_plan(const RunRequest& request) const;
  // One run at a time per session (Python releases the GIL while it runs).
  RunSpikes run(const RunRequest& request);
  // Every request's run, in their order, on `engines` engines at once, each taking the next
  // request not yet taken (flysim screen's engine.per-device): the spikes of run(request)
  // each. Requests that differ in more than their stimulus run one after the other. An
  // error names the request by `names`; `poll` is called on this thread every kPollEvery
  // while they run, and what it throws stops the others at their next batch; `done`, on
  // this thread too, gets the count of finished requests each time it grows.
  std::vector<RunSpikes> run_many(const std::vector<RunRequest>& requests, const std::vector<std::string>& names,
                                  unsigned engines, const std::function<void()>& poll,
                                  const std::function<void(std::size_t)>& done = {});
  // What run(request) checks before it runs (an input_error naming the argument), nothing run.
  void check(const RunRequest& request) const { prepare(request, 1); }
  // Engines are kept for the settings of the last kKeptSettings runs (their EngineKey): a
  // sweep over seeds or model values builds engines without holding every one.
  static constexpr std::size_t kKeptSettings = 4;
  // The engines kept for later runs, and dropping them all (their memory back).
  std::size_t kept_engines();
  void release_engines();

 private:
  // What an engine is built with besides its stimulus: kind, threads, batch, seed and the
  // model's constants (their Poisson threshold aside: set_stimulus changes it).
  struct EngineKey {
    EngineKind kind;
    unsigned threads;
    int32_t batch;
    uint64_t seed;
    std::string constants;  // the bytes of LifConstants
    auto operator<=>(const EngineKey&) const = default;
  };
  // A request checked and turned into what its engine runs.
  struct Prepared {
    LifConstants constants;
    std::shared_ptr<const StimulusPlan> plan;
    TrialBatches batches;
    double dt_ms;
    EngineKey key;
    unsigned threads;
  };
  // `sharing`: engines that share the device, each with its part of what fits.
  Prepared prepare(const RunRequest& request, unsigned sharing) const;
  // The request's trials on `engine` (its stimulus already set); `after_batch` may throw to stop there.
  RunSpikes run_on(Engine& engine, const Prepared& p, const std::function<void()>& after_batch) const;
  // The first engine of `p`'s key with `p`'s stimulus, built on first use.
  Engine& engine_for(const Prepared& p, bool& reused);
  std::unique_ptr<Engine> build_engine(const Prepared& p) const;
  RunSpikes run_locked(const RunRequest& request);
  // The engines kept for `key`, now the most recently used; the least recently used
  // settings beyond kKeptSettings lose theirs.
  std::vector<std::unique_ptr<Engine>>& kept_for(const EngineKey& key);

  std::shared_ptr<const Network> network_;
  RootIdIndex ids_;  // built once: at FlyWire scale it costs more than a GPU trial
  struct KeptEngines {
    std::vector<std::unique_ptr<Engine>> engines;
    uint64_t last_used = 0;
  };
  std::map<EngineKey, KeptEngines> engines_;
  uint64_t uses_ = 0;
  std::mutex running_;
};

}  // namespace flysim::python
