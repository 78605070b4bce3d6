#include "actors/caf_thread_roles.hpp"

#include <atomic>

#include "host/thread_placement.hpp"

namespace flysim {

namespace {
class CafThreadRoles : public caf::thread_hook {
 public:
  void init(caf::actor_system&) override {}
  void thread_started() override {
    const std::string name = current_thread_name();
    if (name == "caf.clock") enter_role_as(ThreadRole::caf, "fs-caf-clock");
    else if (name == "caf.multiplexer") enter_role(ThreadRole::caf, next_worker_++);
    // A detached actor's ("caf.actor"): flysim's name themselves next; CAF's own keep this.
    else enter_role_as(ThreadRole::caf, "fs-caf-actor");
  }
  void thread_terminates() override {}

 private:
  std::atomic<unsigned> next_worker_{0};
};
}  // namespace

void name_caf_threads(caf::actor_system_config& cfg) { cfg.add_thread_hook<CafThreadRoles>(); }

}  // namespace flysim
