#include "actors/recorder.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "host/thread_placement.hpp"
#include "model/time_decimals.hpp"

namespace flysim {

namespace {
// The answer of a recorder without an activity window (flysim run) to the page's questions.
caf::error no_activity_window() {
  return fail("this run keeps no activity window: the live page's figures come from flysim serve");
}

// Spikes per second of recorded time (0 before any time was recorded).
double rate_of(uint64_t spikes, double seconds) { return seconds > 0 ? static_cast<double>(spikes) / seconds : 0.0; }

void write_rates(const std::string& path, const std::vector<Responder>& ranked) {
  AtomicFile out(path);
  std::string text = "neuron_id,index,spikes,rate_hz\n";
  for (const Responder& r : ranked) fmt::format_to(std::back_inserter(text), "{},{},{},{:.3f}\n", r.root_id, r.index, r.spikes, r.rate_Hz);
  out.write(text.data(), text.size());
  out.commit();
}
}  // namespace

std::vector<Responder> rank_responders(const Network& net, const std::vector<uint64_t>& counts, double seconds) {
  std::vector<Responder> ranked;
  for (uint32_t i = 0; i < counts.size(); ++i)
    if (counts[i] > 0)
      ranked.push_back({net.root_ids[i], i, counts[i], rate_of(counts[i], seconds)});
  std::stable_sort(ranked.begin(), ranked.end(), [](const Responder& a, const Responder& b) { return a.spikes > b.spikes; });
  return ranked;
}

recorder_actor::behavior_type recorder_behavior(recorder_actor::stateful_pointer<recorder_state> self,
                                                RecorderConfig config) {
  enter_role(ThreadRole::recorder);
  auto& st = self->state;
  st.config = std::move(config);
  st.counts.assign(st.config.network->neuron_count(), 0);
  if (!st.config.start.counts.empty()) st.counts = st.config.start.counts;
  st.total = st.config.start.spikes;
  st.time_decimals = time_decimals(st.config.dt_ms);
  if (st.config.activity) {
    const auto& readouts = st.config.readout_root_ids;
    st.activity.emplace(st.config.network, *st.config.activity, readouts.empty() ? 0 : readouts.front());
    st.activity->set_stimulated(st.config.stimulated);
  }
  static constexpr char header[] = "trial,step,t_ms,neuron_id\n";
  try {
    if (!st.config.spikes_path.empty() && st.config.stream) {
      st.spikes_stream.emplace(st.config.spikes_path);
      st.spikes_stream->write(header, sizeof header - 1);
      st.spikes_stream->flush();
      st.last_flush = std::chrono::steady_clock::now();
    } else if (!st.config.spikes_path.empty()) {
      st.spikes_file.emplace(st.config.spikes_path);
      st.spikes_file->write(header, sizeof header - 1);
    }
  } catch (const std::exception& e) {
    st.open_failure = e.what();
  }
  return {
      [=](record_atom, const EpochSpikes& epoch) {
        auto& st = self->state;
        if (!st.open_failure.empty()) return self->quit(fail(st.open_failure));
        st.total += epoch.spikes.size();
        if (st.activity) st.activity->record(epoch.trial, epoch.first, epoch.steps, epoch.spikes);
        st.line_buffer.clear();
        for (const Spike& s : epoch.spikes) {
          ++st.counts[s.neuron];
          if (st.spikes_file || st.spikes_stream)
            fmt::format_to(std::back_inserter(st.line_buffer), "{},{},{:.{}f},{}\n", epoch.trial, s.step,
                           s.step * st.config.dt_ms, st.time_decimals, st.config.network->root_ids[s.neuron]);
        }
        const std::string lines =
            st.order.add(epoch.trial, std::move(st.line_buffer), epoch.first + epoch.steps == st.config.steps_per_trial);
        try {
          if (st.spikes_file) st.spikes_file->write(lines.data(), lines.size());
          if (st.spikes_stream) {
            st.spikes_stream->write(lines.data(), lines.size());
            const auto now = std::chrono::steady_clock::now();
            if (now - st.last_flush >= kStreamFlushEvery) {
              st.spikes_stream->flush();
              st.last_flush = now;
            }
          }
        } catch (const std::exception& e) {
          // A full disk: end with the reason; the sim loop (linked) passes it on.
          self->quit(fail(e.what()));
        }
      },
      [=](flush_atom) {
        auto& st = self->state;
        if (!st.open_failure.empty()) return self->quit(fail(st.open_failure));
        try {
          if (st.spikes_stream) st.spikes_stream->flush();
        } catch (const std::exception& e) {
          self->quit(fail(e.what()));
        }
      },
      [=](position_atom) { return RecorderPosition{self->state.total, self->state.counts}; },
      [=](stimulus_atom, const std::vector<uint32_t>& neurons) {
        if (self->state.activity) self->state.activity->set_stimulated(neurons);
      },
      [=](raster_atom, int64_t since, uint32_t neurons) -> caf::result<RasterReport> {
        if (!self->state.activity) return no_activity_window();
        return self->state.activity->raster(since, neurons);
      },
      [=](rates_atom, int64_t since) -> caf::result<RatesReport> {
        if (!self->state.activity) return no_activity_window();
        return self->state.activity->rates(since);
      },
      [=](top_atom, uint32_t neurons) -> caf::result<TopReport> {
        if (!self->state.activity) return no_activity_window();
        return self->state.activity->top(neurons);
      },
      [=](finish_atom, double seconds) -> caf::result<RecorderSummary> {
        auto& st = self->state;
        if (!st.open_failure.empty()) return fail(st.open_failure);
        try {
          const std::string held = st.order.drain();
          if (st.spikes_file) st.spikes_file->write(held.data(), held.size());
          if (st.spikes_stream) st.spikes_stream->write(held.data(), held.size());
          if (st.spikes_file) st.spikes_file->commit();
          st.spikes_file.reset();
          if (st.spikes_stream) st.spikes_stream->commit();
          st.spikes_stream.reset();
          std::vector<Responder> ranked = rank_responders(*st.config.network, st.counts, seconds);
          if (!st.config.rates_path.empty()) write_rates(st.config.rates_path, ranked);
          RecorderSummary summary;
          summary.spikes = st.total;
          summary.active_neurons = static_cast<uint32_t>(ranked.size());
          const auto& ids = st.config.network->root_ids;
          for (const int64_t readout : st.config.readout_root_ids)
            if (const auto it = std::find(ids.begin(), ids.end(), readout); it != ids.end()) {
              const auto index = static_cast<uint32_t>(it - ids.begin());
              summary.readouts.push_back({readout, index, st.counts[index], rate_of(st.counts[index], seconds)});
            }
          ranked.resize(std::min(ranked.size(), st.config.top_count));
          summary.top = std::move(ranked);
          return summary;
        } catch (const std::exception& e) {
          return fail(e.what());
        }
      },
  };
}

recorder_actor spawn_recorder(caf::actor_system& system, RecorderConfig config) {
  return system.spawn<caf::detached>(recorder_behavior, std::move(config));
}

}  // namespace flysim
