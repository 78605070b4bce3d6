#include "apps/flysim/remote/screen_nodes.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <exception>
#include <optional>

#include "apps/flysim/process/build_version.hpp"
#include "apps/flysim/remote/token_certificate.hpp"
#include "apps/flysim/remote/user_token.hpp"
#include "model/errors.hpp"

namespace flysim::app {

namespace {
// How often a waiting coordinator looks at the stop check.
constexpr std::chrono::milliseconds kWaitStep{200};
// How long the actor system gets to stop once the screen is over.
constexpr std::chrono::seconds kShutdownLimit{10};
}  // namespace

std::vector<OptionSpec> screen_node_options() {
  return {
      {"screen.nodes", OptionType::text, "",
       "where the experiments run: 'HOST:PORT,...' of `flysim worker` nodes and 'local' (this process's engines), "
       "each engine taking the next experiment; a node that dies or goes silent has its experiment run elsewhere. "
       "Empty: this process only"},
      {"screen.token-file", OptionType::path, "",
       "the secret file the workers were started with (flysim worker --token-file): connections to them use TLS and "
       "authenticate both sides. Empty: this user's own token (~/.cache/flysim/shard-token), as a worker without "
       "token-file takes"},
  };
}

// A worker's session: the actor that opened it (the worker ends the session when it
// goes down) and its slots.
struct ScreenNodes::Worker {
  NodeAddress at;
  std::unique_ptr<caf::scoped_actor> owner;
  std::vector<screen_slot_actor> slots;
  std::string description;
};

// One engine of a worker, with the actor that waits for its answers.
struct ScreenNodes::Slot {
  std::string name;
  screen_slot_actor handle;
  std::unique_ptr<caf::scoped_actor> self;
  bool lost = false;
};

namespace {

// Waits for a message that `handlers` take, checking `stopped` every kWaitStep.
// `down` is set when a monitored actor goes down first.
template <class... Handlers>
void wait_for(caf::scoped_actor& self, const std::function<void()>& stopped, std::optional<caf::error>& down, bool& got,
              Handlers&&... handlers) {
  while (!got && !down) {
    self->receive(std::forward<Handlers>(handlers)..., [&](caf::down_msg& msg) { down = msg.reason; },
                  caf::after(kWaitStep) >> [] {});
    if (!got && !down) stopped();
  }
}

// The message types and the network layer with screen.token-file's token (or this user's).
CredentialFiles setup_network_layer(caf::actor_system_config& cfg, const Options& o) {
  register_message_types(cfg);
  const std::string& file = o.text("screen.token-file");
  return load_network_layer(cfg, file.empty() ? user_token() : read_token_file(file, "screen.token-file"));
}

// What is wrong with a worker's answer to `run` (its error, counts that do not parse, or
// counts of another experiment, trial count or network), or empty; `counts` gets them.
std::string answer_problem(const ScreenWorkResult& answer, const ScreenRun& run, int32_t trials, const RootIdIndex& ids,
                           const std::string& source, ExperimentCounts& counts) {
  if (!answer.error.empty()) return answer.error;
  try {
    counts = parse_counts_part(source, answer.counts_text, PartSource::worker).counts;
  } catch (const std::exception& e) {
    return e.what();
  }
  if (counts.name != run.name || counts.trials != trials)
    return fmt::format("answered experiment '{}' of {} trials for '{}' of {}", counts.name, counts.trials, run.name, trials);
  for (const auto& [id, n] : counts.spikes)
    if (!ids.find(id)) return fmt::format("answered root ID {}, which is not in the network", id);
  return "";
}

}  // namespace

ScreenNodes::ScreenNodes(const Options& o, const std::vector<NodeAddress>& nodes, const std::vector<std::string>& options,
                         const Network& net, const std::function<void()>& stopped)
    : credentials_(setup_network_layer(cfg_, o)), ids_(net) {
  system_ = std::make_unique<caf::actor_system>(cfg_);
  const ScreenWorkerSetup setup{options, net.content_hash(), net.description};
  for (const NodeAddress& at : nodes) {
    if (at.host.empty()) continue;
    auto reached = reach_node<screen_worker_actor>(*system_, at.host, at.port);
    if (!reached)
      throw input_error("screen.nodes: cannot reach the worker " + at.name() + ": " +
                        why_unreachable(*system_, reached.error(), "flysim worker --port=" + std::to_string(at.port),
                                        "screen.token-file"));
    auto worker = std::make_unique<Worker>(Worker{at, std::make_unique<caf::scoped_actor>(*system_), {}, ""});
    caf::scoped_actor& self = *worker->owner;
    self->monitor(*reached);
    // Which build it is, first: asked as the hello is waited for (a worker opening another
    // screen's session answers late; a stop signal ends the wait).
    self->send(*reached, version_atom::value);
    std::string theirs;
    bool told = false;
    std::optional<caf::error> gone;
    wait_for(self, stopped, gone, told, [&](std::string& version) {
      theirs = std::move(version);
      told = true;
    });
    if (gone) throw input_error("screen.nodes: the worker " + at.name() + " went down before it said which flysim it is: " + system_->render(*gone));
    if (const std::string other = build_mismatch("the worker " + at.name(), theirs); !other.empty())
      throw input_error("screen.nodes: " + other);
    self->send(*reached, hello_atom::value, setup);
    spdlog::info("screen: worker {} is opening a session (it loads the network)", at.name());
    ScreenWorkerReady ready;
    bool got = false;
    std::optional<caf::error> down;
    wait_for(self, stopped, down, got, [&](hello_atom, ScreenWorkerReady& r) {
      ready = std::move(r);
      got = true;
    });
    if (down) throw input_error("screen.nodes: the worker " + at.name() + " went down while opening its session: " + system_->render(*down));
    if (!ready.refusal.empty()) throw input_error("screen.nodes: the worker " + at.name() + " refused the screen: " + ready.refusal);
    if (ready.slots.empty()) throw input_error("screen.nodes: the worker " + at.name() + " has no engine");
    self->demonitor(caf::actor_cast<caf::actor>(*reached));
    for (const caf::actor& slot : ready.slots) worker->slots.push_back(caf::actor_cast<screen_slot_actor>(slot));
    worker->description = ready.description;
    spdlog::info("screen: worker {}: {}", at.name(), ready.description);
    workers_.push_back(std::move(worker));
  }
}

ScreenNodes::~ScreenNodes() {
  deadline_.arm(kShutdownLimit, "screen", std::uncaught_exceptions() > 0 ? 2 : 0);
  // The workers end the sessions when these actors go down.
  slots_.clear();
  workers_.clear();
}

std::string ScreenNodes::describe() const {
  std::vector<std::string> parts;
  for (const auto& w : workers_) parts.push_back(w->at.name() + " (" + w->description + ")");
  return fmt::format("{}", fmt::join(parts, "; "));
}

std::vector<ScreenSlot> ScreenNodes::slots(const std::vector<ScreenRun>& runs, int32_t trials, bool keep_spikes, const Commit& commit,
                                           const std::function<void()>& stopped) {
  std::vector<ScreenSlot> made;
  for (const auto& w : workers_)
    for (std::size_t k = 0; k < w->slots.size(); ++k) {
      auto slot = std::make_unique<Slot>(
          Slot{fmt::format("{} engine {}", w->at.name(), k + 1), w->slots[k], std::make_unique<caf::scoped_actor>(*system_), false});
      (*slot->self)->monitor(slot->handle);
      Slot* s = slot.get();
      made.push_back({s->name, [this, s, &runs, trials, keep_spikes, commit, stopped](std::size_t i) {
                        if (s->lost) return false;
                        caf::scoped_actor& self = *s->self;
                        const ScreenRun& run = runs[i];
                        self->send(s->handle, work_atom::value, ScreenWorkItem{i, run.name, run.plan, run.rate_Hz, keep_spikes});
                        ScreenWorkResult result;
                        bool got = false;
                        std::optional<caf::error> down;
                        wait_for(self, stopped, down, got, [&](work_atom, ScreenWorkResult& r) {
                          if (r.index != i) return;  // an answer to an experiment given up on
                          result = std::move(r);
                          got = true;
                        });
                        ExperimentCounts counts;
                        const std::string problem = down ? "went down (" + system_->render(*down) + ")"
                                                         : answer_problem(result, run, trials, ids_, "the answer of " + s->name, counts);
                        if (!problem.empty()) {
                          spdlog::warn("screen: {} {}: experiment {} goes to another engine; this one takes no more", s->name,
                                       problem, run.name);
                          s->lost = true;
                          return false;
                        }
                        commit(i, counts, keep_spikes ? &result.spike_lines : nullptr);
                        return true;
                      }});
      slots_.push_back(std::move(slot));
    }
  return made;
}

}  // namespace flysim::app
