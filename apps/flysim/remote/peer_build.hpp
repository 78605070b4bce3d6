#pragma once
// A worker or shard node must be this build of flysim: results may not depend on which
// process computed them. Asked first, in a message whose shape never changes.
#include <caf/all.hpp>

#include <chrono>
#include <string>

#include "apps/flysim/process/build_version.hpp"
#include "apps/flysim/remote/network_layer.hpp"
#include "messages/messages.hpp"
#include "model/errors.hpp"

namespace flysim::app {

// Throws input_error, prefixed with `option`, when `peer` (named `name`, e.g. "the shard
// node 10.0.0.2:7000") is another build, or gives no answer. A peer reached at all has this
// build's actor interface (reach_node checks it), so it understands the question; it may
// answer late while it opens another screen's session (a worker loads a network).
template <class Handle>
void refuse_other_build(caf::scoped_actor& self, const Handle& peer, const std::string& option, const std::string& name) {
  std::string theirs, problem;
  self->request(peer, std::chrono::minutes(2), version_atom::value)
      .receive([&](std::string& version) { theirs = std::move(version); }, [&](caf::error& err) { problem = describe_error(err); });
  if (!problem.empty()) throw input_error(option + ": " + name + " did not say which flysim it is: " + problem);
  const std::string other = build_mismatch("this process", name, theirs);
  if (!other.empty()) throw input_error(option + ": " + other);
}

}  // namespace flysim::app
