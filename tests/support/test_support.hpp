#pragma once
// Helpers shared by the tests: tiny hand-built networks and the reference data path.
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "kernels/engine.hpp"
#include "model/errors.hpp"
#include "model/lif_params.hpp"

namespace flysim::test {

// tests/data of the source tree, or $FLYSIM_TEST_DATA_DIR (the GPU machine runs a
// bundled copy of the tests, away from the source tree).
inline std::string data_path(const std::string& relative) {
  const char* dir = std::getenv("FLYSIM_TEST_DATA_DIR");
  return std::string(dir && *dir ? dir : FLYSIM_TEST_DATA) + "/" + relative;
}

// The message of the input_error that `f` throws ("" when none).
template <class F>
std::string input_error_of(F f) {
  try {
    f();
  } catch (const input_error& e) {
    return e.what();
  }
  return "";
}

// A network of `n` neurons with IDs 1000+i and the given (pre, post, signed synapses).
std::shared_ptr<Network> tiny_network(std::size_t n, const std::vector<Connection>& connections);

// An engine setup with default parameters (overridable) over the given network.
EngineSetup setup_for(std::shared_ptr<const Network> net, StimulusPlan plan, const LifParams& params = {});

// net2000 (tests/data/net2000) with its kicks and 21 Poisson-driven neurons at 150 Hz,
// seed 7.
EngineSetup net2000_setup();

// Spikes of `steps` steps of the CPU engine with `threads` threads.
std::vector<Spike> run_cpu(const EngineSetup& setup, int32_t steps, unsigned threads = 1);

}  // namespace flysim::test
