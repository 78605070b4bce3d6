#include "test_support.hpp"

#include "kernels/cpu/cpu_engine.hpp"
#include "io/flywire_csv.hpp"
#include "io/stimulus_files.hpp"

namespace flysim::test {

std::shared_ptr<Network> tiny_network(std::size_t n, const std::vector<Connection>& connections) {
  auto net = std::make_shared<Network>();
  for (std::size_t i = 0; i < n; ++i) net->root_ids.push_back(static_cast<int64_t>(1000 + i));
  net->description = "tiny test network";
  build_csr(*net, connections, "tiny test network");
  return net;
}

EngineSetup setup_for(std::shared_ptr<const Network> net, StimulusPlan plan, const LifParams& params) {
  EngineSetup setup{std::move(net), std::make_shared<const StimulusPlan>(std::move(plan)), derive_constants(params), nullptr};
  // Every epoch spread over the threads, however few neurons are listed: the tests of
  // thread counts must exercise the shares, the barrier and the joined lists.
  setup.cpu_spread_from = 0;
  return setup;
}

EngineSetup net2000_setup() {
  auto net = std::make_shared<Network>(
      load_flywire(data_path("net2000/neurons.csv"), data_path("net2000/connectivity.csv")));
  StimulusPlan plan;
  plan.kicks = load_kicks(data_path("net2000/kicks.csv"), *net);
  plan.poisson_neurons = load_id_list_as_indices(data_path("net2000/stimulated.txt"), *net);
  plan.seed = 7;
  return setup_for(net, plan);
}

std::vector<Spike> run_cpu(const EngineSetup& setup, int32_t steps, unsigned threads) {
  CpuEngine engine(setup, threads);
  return run_until(engine, 0, steps);
}

}  // namespace flysim::test
