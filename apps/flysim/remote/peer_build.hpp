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

// Throws input_error, prefixed with `option`, when `peer` (named `name`, e.g. "the worker
// 10.0.0.2:7100") is another build, or does not answer (a build from before the question).
template <class Handle>
void refuse_other_build(caf::scoped_actor& self, const Handle& peer, const std::string& option, const std::string& name) {
  std::string theirs, problem;
  self->request(peer, std::chrono::seconds(30), version_atom::value)
      .receive([&](std::string& version) { theirs = std::move(version); }, [&](caf::error& err) { problem = describe_error(err); });
  if (!problem.empty())
    throw input_error(option + ": " + name + " does not say which flysim it is (" + problem + "): it is another build than this one (" +
                      build_version() + "); run the same build of flysim on both");
  const std::string other = build_mismatch("this process", name, theirs);
  if (!other.empty()) throw input_error(option + ": " + other);
}

}  // namespace flysim::app
