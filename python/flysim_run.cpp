#include "python/flysim_run.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <future>
#include <cstring>
#include <thread>
#include <type_traits>

#include <fmt/format.h>

#include "apps/flysim/options/cuda_devices_option.hpp"
#include "apps/flysim/options/network_options.hpp"
#include "apps/flysim/options/options.hpp"
#include "io/stimulus_files.hpp"
#include "kernels/trial_batches.hpp"
#include "model/errors.hpp"
#include "model/snapshot.hpp"

namespace flysim::python {

std::shared_ptr<const Network> load_network(const std::map<std::string, std::string>& options,
                                            const std::function<void(const std::string&)>& log) {
  const app::Options o = app::Options::parse(app::network_options(), {}, options, "flysim.load_network()", {});
  return obtain_network(app::network_source(o), log);
}

std::vector<uint32_t> NetworkSession::indices_of(const std::vector<int64_t>& ids) const {
  std::vector<uint32_t> out;
  out.reserve(ids.size());
  for (std::size_t k = 0; k < ids.size(); ++k) {
    const uint32_t* found = ids_.find(ids[k]);
    if (!found)
      throw input_error("root ID " + std::to_string(ids[k]) + " (item " + std::to_string(k) + ") is not in the network (" +
                        network_->short_description() + ")");
    out.push_back(*found);
  }
  return out;
}

StimulusPlan NetworkSession::stimulus_plan(const RunRequest& r) const {
  const Network& net = *network_;
  StimulusPlan plan;
  plan.seed = r.seed;
  for (std::size_t g = 0; g < r.groups.size(); ++g) {
    const GroupRequest& group = r.groups[g];
    const std::string where = "stimulus group '" + group.name + "'";
    if (!is_group_name(group.name))
      throw input_error("stimulus group name '" + group.name + "': letters, digits, '_' and '-' only (as stimulus.group.NAME)");
    std::vector<uint32_t> neurons =
        root_ids_as_indices(group.ids, ids_, [&](std::size_t k) { return where + ", item " + std::to_string(k); });
    uint32_t threshold = 0;
    try {
      threshold = poisson_threshold(group.rate_Hz, r.params.dt_ms);
    } catch (const input_error& e) {
      throw input_error(where + ": " + e.what());
    }
    if (g == 0)
      plan.poisson_neurons = std::move(neurons);
    else
      plan.groups.push_back({group.name, std::move(neurons), group.rate_Hz, threshold});
  }
  if (const std::optional<SharedNeuron> shared = neuron_in_two_groups(plan)) {
    const auto name = [&](int g) { return r.groups[static_cast<std::size_t>(g + 1)].name; };  // group 0 is the plan's default
    throw input_error("neuron ID " + std::to_string(net.root_ids[shared->neuron]) + " is in stimulus groups '" +
                      name(shared->first_group) + "' and '" + name(shared->second_group) + "': a neuron belongs to one Poisson group");
  }
  if (!r.kicks_file.empty()) plan.kicks = load_kicks(r.kicks_file, net);
  if (!r.kicks.empty()) {
    std::vector<int64_t> ids;
    for (const auto& kick : r.kicks) ids.push_back(kick.second);
    const std::vector<uint32_t> neurons = indices_of(ids);
    std::vector<Kick> kicks;
    for (std::size_t k = 0; k < r.kicks.size(); ++k) {
      if (r.kicks[k].first < 0)
        throw input_error("kicks, item " + std::to_string(k) + ": step " + std::to_string(r.kicks[k].first) + " is negative");
      kicks.push_back({r.kicks[k].first, neurons[k]});
    }
    plan.kicks = sorted_kicks(kicks, net, [](std::size_t k) { return "kicks: item " + std::to_string(k); });
  }
  plan.silenced = root_ids_as_indices(r.silenced, ids_, [](std::size_t k) { return "silence, item " + std::to_string(k); });
  const auto mode = parse_silence_mode(r.silence_mode);
  if (!mode) throw input_error("silence_mode='" + r.silence_mode + "' must be 'outgoing' or 'both'");
  plan.silence_mode = *mode;
  return plan;
}

namespace {
// duration_ms in steps of dt, 1..kMaxRunSteps (the bounds of run.duration-ms).
int32_t trial_steps(double duration_ms, double dt_ms) {
  if (const std::string problem = duration_problem(duration_ms, dt_ms, "model dt_ms"); !problem.empty())
    throw input_error(fmt::format("duration_ms={} {}", duration_ms, problem));
  return run_steps(duration_ms, dt_ms);
}

// The batch of `r` on `where`: what fits (its part of it, for each of `sharing` engines on
// the device), or r.batch when it fits; at most r.trials.
int32_t chosen_batch(const RunRequest& r, EngineWhere where, std::size_t neurons, int32_t delay_steps, unsigned sharing) {
  if (r.batch == 0)
    return std::min(r.trials, batch_that_fits_beside(where, neurons, delay_steps, static_cast<int32_t>(sharing)));
  if (r.batch < 0) throw input_error("batch=" + std::to_string(r.batch) + " must be positive (or None: what fits)");
  const int64_t held = int64_t{std::min(r.trials, r.batch)} * sharing;
  if (const std::string beyond = batch_beyond_memory(where, neurons, delay_steps, held); !beyond.empty())
    throw input_error("batch=" + std::to_string(r.batch) + (sharing > 1 ? " on each of " + std::to_string(sharing) + " engines" : "") +
                      ": " + beyond);
  return std::min(r.trials, r.batch);
}
}  // namespace

NetworkSession::Prepared NetworkSession::prepare(const RunRequest& r, unsigned sharing) const {
  static_assert(std::is_trivially_copyable_v<LifConstants>);
  if (r.trials < 1 || r.trials > kMaxTrials)
    throw input_error("trials=" + std::to_string(r.trials) + " must be 1.." + std::to_string(kMaxTrials));
  if (r.kind == EngineKind::cuda && !cuda_compiled_in())
    throw input_error("engine='cuda': this flysim module was built without CUDA (no nvcc when it was configured); "
                      "use engine='cpu', or rebuild with `make python` where nvcc is installed");
  Prepared p;
  p.threads = r.threads > 0 ? r.threads : std::max(1u, std::thread::hardware_concurrency());
  if (p.threads > kMaxPoolThreads)
    throw input_error("threads=" + std::to_string(p.threads) + " must be 1.." + std::to_string(kMaxPoolThreads));
  LifParams params = r.params;
  // The model's parameters checked first, then the stimulus (a bad rate named with its group).
  params.r_poi_Hz = 0.0;
  derive_constants(params);
  p.plan = std::make_shared<const StimulusPlan>(stimulus_plan(r));
  params.r_poi_Hz = r.groups.empty() ? r.params.r_poi_Hz : r.groups.front().rate_Hz;
  p.constants = derive_constants(params);

  p.batches.trials = r.trials;
  p.batches.steps_per_trial = trial_steps(r.duration_ms, params.dt_ms);
  p.dt_ms = params.dt_ms;
  p.batches.delay_steps = p.constants.delay_steps;
  p.batches.neurons = network_->neuron_count();
  p.batches.batch = chosen_batch(r, {r.kind, 0, p.threads}, p.batches.neurons, p.batches.delay_steps, sharing);

  // Keyed by the constants' bytes before the stimulus' threshold: no padding among them
  // (the struct's tail padding has no defined value).
  static_assert(offsetof(LifConstants, poisson_threshold) == offsetof(LifConstants, delay_steps) + sizeof(int32_t));
  p.key = {r.kind, p.threads, p.batches.batch, r.seed,
           std::string(reinterpret_cast<const char*>(&p.constants), offsetof(LifConstants, poisson_threshold))};
  return p;
}

std::vector<std::unique_ptr<Engine>>& NetworkSession::kept_for(const EngineKey& key) {
  KeptEngines& kept = engines_[key];
  kept.last_used = ++uses_;
  while (engines_.size() > kKeptSettings) {
    auto oldest = engines_.begin();
    for (auto it = engines_.begin(); it != engines_.end(); ++it)
      if (it->second.last_used < oldest->second.last_used) oldest = it;
    engines_.erase(oldest);
  }
  return kept.engines;
}

std::size_t NetworkSession::kept_engines() {
  const std::lock_guard<std::mutex> one_at_a_time(running_);
  std::size_t count = 0;
  for (const auto& [key, kept] : engines_)
    for (const auto& engine : kept.engines) count += engine != nullptr;
  return count;
}

void NetworkSession::release_engines() {
  const std::lock_guard<std::mutex> one_at_a_time(running_);
  engines_.clear();
}

Engine& NetworkSession::engine_for(const Prepared& p, bool& reused) {
  auto& engines = kept_for(p.key);
  if (engines.empty()) engines.resize(1);
  auto& engine = engines.front();
  reused = engine != nullptr;
  if (engine) {
    engine->set_stimulus(p.plan, p.constants.poisson_threshold);
  } else {
    engine = build_engine(p);
  }
  return *engine;
}

std::unique_ptr<Engine> NetworkSession::build_engine(const Prepared& p) const {
  EngineSetup setup{network_, p.plan, p.constants, nullptr, HostWait::poll, 0, p.batches.batch};
  return make_engine(p.key.kind, setup, p.threads);
}

RunSpikes NetworkSession::run_on(Engine& engine, const Prepared& p, const std::function<void()>& after_batch) const {
  const auto started = std::chrono::steady_clock::now();
  std::vector<std::vector<Spike>> per_trial(static_cast<std::size_t>(p.batches.trials));
  const auto keep = [&](int32_t first, const BatchSpikes& spikes) {
    for (std::size_t k = 0; k < spikes.size(); ++k) {
      auto& trial = per_trial[static_cast<std::size_t>(first) + k];
      trial.insert(trial.end(), spikes[k].begin(), spikes[k].end());
    }
    after_batch();
  };
  run_trial_batches(engine, p.batches, keep, [](int32_t) {});
  RunSpikes out;
  out.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::size_t total = 0;
  for (const auto& spikes : per_trial) total += spikes.size();
  out.trial.reserve(total);
  out.step.reserve(total);
  out.neuron.reserve(total);
  out.t.reserve(total);
  for (std::size_t t = 0; t < per_trial.size(); ++t)
    for (const Spike& s : per_trial[t]) {
      out.trial.push_back(static_cast<int32_t>(t));
      out.step.push_back(s.step);
      out.neuron.push_back(s.neuron);
      out.t.push_back(spike_time_s(s.step, p.dt_ms));
    }
  out.steps_per_trial = p.batches.steps_per_trial;
  out.trial_s = steps_to_seconds(p.batches.steps_per_trial, p.dt_ms);
  out.batch = p.batches.batch;
  out.engine = engine.describe();
  out.late_kicks = std::count_if(p.plan->kicks.begin(), p.plan->kicks.end(),
                                 [&](const Kick& k) { return k.step >= p.batches.steps_per_trial; });
  return out;
}

RunSpikes NetworkSession::run(const RunRequest& r) {
  const std::lock_guard<std::mutex> one_at_a_time(running_);
  return run_locked(r);
}

RunSpikes NetworkSession::run_locked(const RunRequest& r) {
  const auto started = std::chrono::steady_clock::now();
  const Prepared p = prepare(r, 1);
  bool reused = false;
  Engine& engine = engine_for(p, reused);
  auto polled = started;
  bool polling = false;  // an exception thrown now is the caller's, not the engine's
  const auto poll = [&] {
    if (const auto now = std::chrono::steady_clock::now(); r.poll && now - polled >= kPollEvery) {
      polled = now;
      polling = true;
      r.poll();
      polling = false;
    }
  };
  RunSpikes out;
  try {
    out = run_on(engine, p, poll);
  } catch (...) {
    // The engine stopped between epochs when the caller ended the run: it is kept (each batch
    // starts at rest). A failed engine's state is unknown: the next run builds another.
    if (!polling) engines_.erase(p.key);
    throw;
  }
  out.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  out.engine_reused = reused;
  return out;
}

std::vector<RunSpikes> NetworkSession::run_many(const std::vector<RunRequest>& requests,
                                                const std::vector<std::string>& names, unsigned engines,
                                                const std::function<void()>& poll,
                                                const std::function<void(std::size_t)>& done) {
  if (names.size() != requests.size()) throw std::invalid_argument("run_many: one name per request");
  if (engines < 1 || engines > app::kMaxEnginesPerDevice)
    throw input_error("engines=" + std::to_string(engines) + " must be 1.." + std::to_string(app::kMaxEnginesPerDevice));
  const std::lock_guard<std::mutex> one_at_a_time(running_);
  std::vector<Prepared> prepared;
  for (std::size_t k = 0; k < requests.size(); ++k) {
    try {
      prepared.push_back(prepare(requests[k], engines));
    } catch (const input_error& e) {
      throw input_error("experiment '" + names[k] + "': " + e.what());
    }
  }
  const bool alike = std::all_of(prepared.begin(), prepared.end(), [&](const Prepared& p) { return p.key == prepared.front().key; });
  std::vector<RunSpikes> out(requests.size());
  if (!alike || engines == 1 || requests.size() < 2) {
    for (std::size_t k = 0; k < requests.size(); ++k) {
      RunRequest r = requests[k];
      r.poll = poll;
      out[k] = run_locked(r);
      if (done) done(k + 1);
    }
    return out;
  }
  // The engines this key lacks, built side by side (a CUDA engine's buffers and warm-up take
  // a while each); then one thread per engine takes the next request.
  const std::size_t count = std::min<std::size_t>(engines, requests.size());
  const Prepared& first = prepared.front();
  auto& kept = kept_for(first.key);
  if (kept.size() < count) kept.resize(count);
  std::vector<bool> reused(count);
  std::vector<std::future<std::unique_ptr<Engine>>> building(count);
  for (std::size_t e = 0; e < count; ++e) {
    reused[e] = kept[e] != nullptr;
    if (!reused[e])
      building[e] = std::async(std::launch::async, [&] { return build_engine(first); });
  }
  std::vector<Engine*> pool(count);
  for (std::size_t e = 0; e < count; ++e) {
    if (!reused[e]) kept[e] = building[e].get();
    pool[e] = kept[e].get();
  }
  std::atomic<std::size_t> next{0}, running{count}, finished{0};
  std::atomic<bool> stop{false};
  struct Stopped {};
  std::exception_ptr failure;
  std::mutex failure_lock;
  std::vector<std::thread> workers;
  for (std::size_t e = 0; e < count; ++e)
    workers.emplace_back([&, e] {
      bool used = reused[e];
      try {
        for (std::size_t k; !stop && (k = next.fetch_add(1)) < requests.size(); used = true) {
          const auto started = std::chrono::steady_clock::now();
          pool[e]->set_stimulus(prepared[k].plan, prepared[k].constants.poisson_threshold);
          out[k] = run_on(*pool[e], prepared[k], [&] {
            if (stop) throw Stopped{};
          });
          out[k].wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
          out[k].engine_reused = used;
          out[k].engine += ", engine " + std::to_string(e + 1) + " of " + std::to_string(count);
          ++finished;
        }
      } catch (const Stopped&) {
      } catch (...) {
        const std::lock_guard<std::mutex> locked(failure_lock);
        if (!failure) failure = std::current_exception();
        stop = true;
      }
      --running;
    });
  // This thread polls the caller (Ctrl-C) and reports progress while the engines run.
  std::exception_ptr interrupted;
  std::size_t reported = 0;
  const auto call = [&](const std::function<void()>& f) {
    try {
      f();
    } catch (...) {
      interrupted = std::current_exception();
      stop = true;
    }
  };
  for (auto polled = std::chrono::steady_clock::now(); running > 0;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    if (const auto now = std::chrono::steady_clock::now(); poll && !interrupted && now - polled >= kPollEvery) {
      polled = now;
      call(poll);
    }
    if (const std::size_t n = finished; done && !interrupted && n > reported) call([&] { done(reported = n); });
  }
  for (std::thread& t : workers) t.join();
  if (const std::size_t n = finished; done && !interrupted && !failure && n > reported) call([&] { done(n); });
  // A failed engine's state is unknown: the next run builds others.
  if (failure) engines_.erase(prepared.front().key);
  if (interrupted) std::rethrow_exception(interrupted);
  if (failure) std::rethrow_exception(failure);
  return out;
}

}  // namespace flysim::python
