#pragma once
// Which flysim this is: the project's version and the commit it was built from.
#include <string>

namespace flysim::app {

// e.g. "0.1.0 (commit 1a2b3c4d5e6f)", "0.1.0 (commit 1a2b3c4d5e6f-dirty-89abcdef)" for a
// tree with changes; "(commit unknown)" when built outside a git checkout.
std::string build_version();

// Why this process may not work with a peer (`there`, e.g. "the worker 10.0.0.2:7100")
// whose build_version is `theirs`; empty when both are the same build.
std::string build_mismatch(const std::string& there, const std::string& theirs);

}  // namespace flysim::app
