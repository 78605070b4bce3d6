#include "actors/checkpointer.hpp"

#include <fmt/format.h>
#include <malloc.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "host/thread_placement.hpp"

namespace flysim {

std::string checkpoint_file_name(int32_t trial, int32_t step, int copy) {
  return copy > 1 ? fmt::format("flysim-trial{:04}-step{:09}_{}.ckpt", trial, step, copy)
                  : fmt::format("flysim-trial{:04}-step{:09}.ckpt", trial, step);
}

checkpointer_actor::behavior_type checkpointer_behavior(checkpointer_actor::stateful_pointer<checkpointer_state> self,
                                                        CheckpointerConfig config) {
  enter_role(ThreadRole::checkpointer);
  self->state.config = std::move(config);
  return {
      // The snapshot comes as a mutable reference so that it can be freed here, before the
      // trim (the sim loop moved it into the message: nothing is copied).
      [=](checkpoint_atom, Snapshot& snapshot, bool asked_for) -> caf::result<std::string> {
        auto& st = self->state;
        const int32_t trial = snapshot.engine.trial, step = snapshot.engine.next_step;
        int copy = trial == st.last_trial && step == st.last_step ? st.last_copy + 1 : 1;
        // A name another run's file holds (the folder is locked: none is being written) is
        // passed over: that file is not this run's to replace.
        std::error_code ec;
        while (std::filesystem::exists(std::filesystem::path(st.config.dir) / checkpoint_file_name(trial, step, copy), ec)) ++copy;
        const std::string path = (std::filesystem::path(st.config.dir) / checkpoint_file_name(trial, step, copy)).string();
        try {
          CheckpointIdentity identity = st.config.identity;
          if (st.config.compatibility_for_rate)
            identity.compatibility = st.config.compatibility_for_rate(snapshot.plan.stimulus_rate_Hz);
          save_checkpoint(path, snapshot, identity);
        } catch (const std::exception& e) {
          return fail(std::string("checkpoint not written: ") + e.what());
        }
        // Free the snapshot's copies now and trim, or the heap keeps their pages (docs/WATCH.md).
        snapshot = Snapshot();
        malloc_trim(0);
        st.last_trial = trial;
        st.last_step = step;
        st.last_copy = copy;
        if (asked_for) return path;
        st.written.push_back(path);
        while (st.written.size() > st.config.keep) {
          std::remove(st.written.front().c_str());
          st.written.pop_front();
        }
        return path;
      },
  };
}

checkpointer_actor spawn_checkpointer(caf::actor_system& system, CheckpointerConfig config) {
  return system.spawn<caf::detached>(checkpointer_behavior, std::move(config));
}

}  // namespace flysim
