#pragma once
// The worker nodes of a screen (screen.nodes): this process connects to each `flysim
// worker`, opens a session with the options that decide what a trial computes and the
// network's hash, and gets one slot per engine of the worker (screen_slots.hpp). A slot
// sends one experiment at a time and waits for its counts or for the worker to go down
// (a closed connection, or kRemoteSilenceLimitSeconds of silence): then the experiment
// goes to another slot.
#include <caf/all.hpp>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "apps/flysim/screen/screen_experiments.hpp"
#include "apps/flysim/screen/screen_slots.hpp"
#include "apps/flysim/options/options.hpp"
#include "apps/flysim/process/shutdown_deadline.hpp"
#include "apps/flysim/remote/network_layer.hpp"
#include "apps/flysim/remote/node_list.hpp"
#include "io/screen_results.hpp"
#include "messages/interfaces.hpp"
#include "model/network.hpp"

namespace flysim::app {

// The options of a coordinator: screen.nodes and screen.token-file.
std::vector<OptionSpec> screen_node_options();

class ScreenNodes {
 public:
  // Connects to every node of `nodes` that is not 'local' and opens its session; waits
  // while the workers load the network. `options` decide what a trial computes.
  // input_error names a node that cannot be reached, refuses (its network differs) or
  // goes down while loading; `stopped` (the stop check) is called while waiting.
  ScreenNodes(const Options& o, const std::vector<NodeAddress>& nodes, const std::vector<std::string>& options, const Network& net,
              const std::function<void()>& stopped);
  ~ScreenNodes();
  ScreenNodes(const ScreenNodes&) = delete;
  ScreenNodes& operator=(const ScreenNodes&) = delete;

  // "127.0.0.1:7001 (2 engine(s), cpu pool ...)", one per worker.
  std::string describe() const;

  // Receives a worker's experiment: its counts (checked against the experiment) and spike lines.
  using Commit = std::function<void(std::size_t, const ExperimentCounts&, const std::string* spike_lines)>;
  // One slot per engine of every worker. `stopped` is called while a slot waits.
  std::vector<ScreenSlot> slots(const std::vector<ScreenRun>& runs, int32_t trials, bool keep_spikes, const Commit& commit,
                                const std::function<void()>& stopped);

 private:
  struct Worker;
  struct Slot;
  // Declared first: it outlives the actor system, whose shutdown it bounds.
  ShutdownDeadline deadline_;
  caf::actor_system_config cfg_;
  CredentialFiles credentials_;
  std::unique_ptr<caf::actor_system> system_;
  std::vector<std::unique_ptr<Worker>> workers_;
  std::vector<std::unique_ptr<Slot>> slots_;
  RootIdIndex ids_;  // of the coordinator's network: a worker's answer names only its neurons
};

}  // namespace flysim::app
