#pragma once
// The live commands whose senders wait for an answer, by id (flysim serve). A command is
// answered once, when it took effect at its boundary or was refused. `Promise` is what
// delivers an answer (the sim loop's: caf::typed_response_promise<LiveReply>).
#include <cstddef>
#include <cstdint>
#include <map>
#include <utility>

namespace flysim {

template <class Promise>
class LiveReplies {
 public:
  // The id of a command nobody waits for (a stop signal).
  uint64_t unanswered() { return next_id_++; }
  // The id of a command whose sender waits on `promise`.
  uint64_t add(Promise promise) {
    const uint64_t id = next_id_++;
    waiting_.emplace(id, std::move(promise));
    return id;
  }
  // Answers command `id`, if anyone waits for it; later answers to it go nowhere.
  template <class Reply>
  void answer(uint64_t id, Reply&& reply) {
    const auto it = waiting_.find(id);
    if (it == waiting_.end()) return;
    it->second.deliver(std::forward<Reply>(reply));
    waiting_.erase(it);
  }
  std::size_t waiting() const { return waiting_.size(); }

 private:
  std::map<uint64_t, Promise> waiting_;
  uint64_t next_id_ = 1;
};

}  // namespace flysim
