#include "actors/engine_actor.hpp"

#include <malloc.h>
#include <spdlog/spdlog.h>

#include "host/thread_placement.hpp"

namespace flysim {

namespace {
// Runs one engine call; an exception becomes an error reply instead of killing the actor
// with a message nobody reads.
// An engine_failure (the device is lost) gets its own error, which the sim loop answers
// by falling back to the CPU; anything else ends the run.
template <class F>
auto guarded(F&& f) -> caf::result<decltype(f())> {
  try {
    return f();
  } catch (const engine_failure& e) {
    return engine_failed(e.what());
  } catch (const std::exception& e) {
    return fail(e.what());
  }
}
}  // namespace

engine_state::~engine_state() {
  engine.reset();
  malloc_trim(0);
}

engine_actor::behavior_type engine_behavior(engine_actor::stateful_pointer<engine_state> self,
                                            std::shared_ptr<Engine> engine) {
  self->state.engine = std::move(engine);
  return {
      [=](advance_atom, const EpochRequest& r) -> caf::result<std::vector<EpochSpikes>> {
        return guarded([&] {
          BatchSpikes batch = self->state.engine->advance_cells({r.first, r.steps});
          std::vector<EpochSpikes> epochs;
          for (std::size_t k = 0; k < batch.size(); ++k)
            epochs.push_back({r.trial + static_cast<int32_t>(k), r.first, r.steps, std::move(batch[k])});
          return epochs;
        });
      },
      [=](export_atom) -> caf::result<std::vector<EngineState>> {
        return guarded([&] { return self->state.engine->export_batch(); });
      },
      [=](import_atom, const std::vector<EngineState>& states) -> caf::result<import_atom> {
        return guarded([&] {
          self->state.engine->import_batch(states);
          return import_atom::value;
        });
      },
      [=](rest_atom, int32_t first_trial, int32_t count) -> caf::result<rest_atom> {
        return guarded([&] {
          self->state.engine->start_at_rest(first_trial, count);
          return rest_atom::value;
        });
      },
      [=](weights_atom, const WeightUpdate& u) -> caf::result<weights_atom> {
        return guarded([&] {
          self->state.engine->apply_weights(u.changes);
          return weights_atom::value;
        });
      },
      [=](stimulus_atom, StimulusPlan& plan, uint32_t poisson_threshold) -> caf::result<stimulus_atom> {
        return guarded([&] {
          self->state.engine->set_stimulus(std::make_shared<const StimulusPlan>(std::move(plan)), poisson_threshold);
          return stimulus_atom::value;
        });
      },
      [=](describe_atom) { return self->state.engine->describe(); },
  };
}

engine_actor spawn_engine(caf::actor_system& system, std::shared_ptr<Engine> engine, EngineKind kind, EngineThread thread) {
  if (thread == EngineThread::pool) return system.spawn(engine_behavior, std::move(engine));
  // The thread names itself before the behavior runs (which CAF does on that thread).
  return system.spawn<caf::detached>(
      [](engine_actor::stateful_pointer<engine_state> self, std::shared_ptr<Engine> engine, EngineKind kind) {
        if (const std::string problem = enter_role(kind == EngineKind::cpu ? ThreadRole::engine : ThreadRole::gpu);
            !problem.empty())
          spdlog::warn("{}", problem);
        return engine_behavior(self, std::move(engine));
      },
      std::move(engine), kind);
}

}  // namespace flysim
