#include "actors/recorder.hpp"

#include <algorithm>

#include "host/thread_placement.hpp"
#include "model/rate_stats.hpp"

namespace flysim {

namespace {
// The answer of a recorder without an activity window (flysim run) to the page's questions.
caf::error no_activity_window() {
  return fail("this run keeps no activity window: the live page's figures come from flysim serve");
}

// The spike writer, begun, and the rate writer of `config` (null where no path is given).
void open_writers(recorder_state& st) {
  const RecorderConfig& c = st.config;
  if (!c.rates.path.empty()) st.rates = make_rate_writer(c.rates);
  if (c.spikes.path.empty()) return;
  st.spikes = make_spike_writer(c.spikes);
  st.spikes->begin({c.network, c.dt_ms, c.steps_per_trial});
}
}  // namespace

std::vector<Responder> rank_responders(const Network& net, const std::vector<uint64_t>& counts, double seconds) {
  std::vector<Responder> ranked;
  for (uint32_t i = 0; i < counts.size(); ++i)
    if (counts[i] > 0)
      ranked.push_back({net.root_ids[i], i, counts[i], rate_Hz(counts[i], seconds)});
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
  if (st.config.activity) {
    const auto& readouts = st.config.readout_root_ids;
    st.activity.emplace(st.config.network, *st.config.activity, readouts.empty() ? 0 : readouts.front());
    st.activity->set_stimulated(st.config.stimulated);
  }
  try {
    open_writers(st);
  } catch (const std::exception& e) {
    st.open_failure = e.what();
  }
  return {
      [=](record_atom, const EpochSpikes& epoch) {
        auto& st = self->state;
        if (!st.open_failure.empty()) return self->quit(fail(st.open_failure));
        st.total += epoch.spikes.size();
        if (st.activity) st.activity->record(epoch.trial, epoch.first, epoch.steps, epoch.spikes);
        for (const Spike& s : epoch.spikes) ++st.counts[s.neuron];
        try {
          if (st.spikes) st.spikes->write({epoch.trial, epoch.first, epoch.steps, epoch.spikes});
        } catch (const std::exception& e) {
          // A full disk: end with the reason; the sim loop (linked) passes it on.
          st.spikes->abort();
          self->quit(fail(e.what()));
        }
      },
      [=](flush_atom) {
        auto& st = self->state;
        if (!st.open_failure.empty()) return self->quit(fail(st.open_failure));
        try {
          if (st.spikes) st.spikes->flush();
        } catch (const std::exception& e) {
          st.spikes->abort();
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
          if (st.spikes) st.spikes->finish();
          st.spikes.reset();
          std::vector<Responder> ranked = rank_responders(*st.config.network, st.counts, seconds);
          if (st.rates) st.rates->write(ranked);
          RecorderSummary summary;
          summary.spikes = st.total;
          summary.active_neurons = static_cast<uint32_t>(ranked.size());
          const auto& ids = st.config.network->root_ids;
          for (const int64_t readout : st.config.readout_root_ids)
            if (const auto it = std::find(ids.begin(), ids.end(), readout); it != ids.end()) {
              const auto index = static_cast<uint32_t>(it - ids.begin());
              summary.readouts.push_back({readout, index, st.counts[index], rate_Hz(st.counts[index], seconds)});
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
