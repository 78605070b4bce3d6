// flysim against spikes from an independent implementation (Brian2 2.5.1, float64):
// the net2000 case in tests/data/net2000 (network, kicks.csv, Brian2's spikes in brian_kicks.csv).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "io/csv_reader.hpp"
#include "io/flywire_csv.hpp"
#include "io/stimulus_files.hpp"
#include "test_support.hpp"

namespace flysim::test {
namespace {

std::vector<Spike> load_reference_spikes(const std::string& path, const Network& net) {
  const auto index = index_of_ids(net.root_ids, "network");
  CsvReader reader(path);
  reader.next_line();
  std::vector<Spike> spikes;
  while (reader.next_line())
    spikes.push_back({reader.integer<int32_t>(0, "step"), index.at(reader.integer<int64_t>(1, "neuron_id"))});
  return spikes;
}

TEST(Reference, Net2000KicksMatchBrian) {
  auto net = std::make_shared<Network>(
      load_flywire(data_path("net2000/neurons.csv"), data_path("net2000/connectivity.csv")));
  StimulusPlan plan;
  plan.kicks = load_kicks(data_path("net2000/kicks.csv"), *net);
  const auto setup = setup_for(net, plan);
  const std::vector<Spike> ours = run_cpu(setup, 10000, 2);
  const std::vector<Spike> reference = load_reference_spikes(data_path("net2000/brian_kicks.csv"), *net);
  std::printf("net2000 kicks: flysim %zu spikes, reference %zu\n", ours.size(), reference.size());
  // Every spike, in order: the first that differs says where the engine went astray.
  const auto [a, b] = std::mismatch(ours.begin(), ours.end(), reference.begin(), reference.end());
  const auto spike_at = [](auto it, auto end) {
    return it == end ? std::string("none") : "step " + std::to_string(it->step) + " neuron " + std::to_string(it->neuron);
  };
  EXPECT_TRUE(a == ours.end() && b == reference.end())
      << "spike " << (a - ours.begin()) << " differs: flysim " << spike_at(a, ours.end()) << ", reference "
      << spike_at(b, reference.end());
  EXPECT_EQ(ours.size(), 7755u);
}

}  // namespace
}  // namespace flysim::test
