#include "apps/flysim/process/build_version.hpp"

#include "flysim_build_version.h"

namespace flysim::app {

std::string build_version() { return std::string(FLYSIM_VERSION) + " (commit " + FLYSIM_COMMIT + ")"; }

std::string build_mismatch(const std::string& there, const std::string& theirs) {
  const std::string ours = build_version();
  // Two builds may compute different spikes, and results must not depend on the process
  // that computed them.
  if (theirs == ours) return "";
  return "this process is flysim " + ours + ", and " + there + " is flysim " + theirs + ": run the same build of flysim on both";
}

}  // namespace flysim::app
