// The STDP rule and one shard's bookkeeping (kernels/stdp/README.md), checked against
// pairings worked out by hand, and the shard split: any number of shards learns the
// same weights and traces from the same spikes.
#include <gtest/gtest.h>

#include <random>

#include "kernels/stdp/stdp_shard.hpp"
#include "io/flywire_csv.hpp"
#include "model/shard_setup.hpp"
#include "test_support.hpp"

namespace flysim::test {
namespace {

StdpParams hand_params() {
  StdpParams p;
  p.a_plus = 1000;
  p.a_minus = 500;
  p.tau_plus_ms = 10;
  p.tau_minus_ms = 20;
  p.w_min = 0;
  p.w_max = 1000000;
  return p;
}

PlasticityState initial_state(const Network& net, const std::vector<uint64_t>& edges) {
  PlasticityState s{"test", 0, empty_traces(net.neuron_count()), empty_traces(net.neuron_count()), {}};
  for (uint64_t e : edges) s.learned.push_back(net.out_weights[e]);
  return s;
}

TEST(Stdp, WeightStepKeepsTheSignAndTheBounds) {
  EXPECT_EQ(stdp::step_weight(100, false, -500, 0, 1000), 0);
  EXPECT_EQ(stdp::step_weight(0, true, 300, 0, 1000), -300);  // an inhibitory weight at 0 stays inhibitory
  EXPECT_EQ(stdp::step_weight(-900, true, 300, 0, 1000), -1000);
  EXPECT_EQ(stdp::step_weight(900, false, 50, 0, 1000), 950);
  EXPECT_EQ(stdp::step_weight(5, false, -1, 10, 1000), 10);  // below w_min: lifted at the first pairing
  EXPECT_EQ(stdp::pairing_units(1000, 0.9512294245007140), 951);
}

TEST(Stdp, TracesDecayByTableAndVanishAfterTheHorizon) {
  const StdpRule rule = derive_stdp_rule(hand_params(), 0.1);
  ASSERT_EQ(rule.pre_decay.size(), 4001u);  // 40 tau of 100 steps, plus step 0
  EXPECT_EQ(stdp::trace_at(rule.pre_decay, 2.0, 10, 10), 2.0);
  EXPECT_DOUBLE_EQ(stdp::trace_at(rule.pre_decay, 2.0, 10, 110), 2.0 * std::exp(-1.0));
  EXPECT_GT(stdp::trace_at(rule.pre_decay, 1.0, 0, 4000), 0.0);
  EXPECT_EQ(stdp::trace_at(rule.pre_decay, 1.0, 0, 4001), 0.0);
  EXPECT_EQ(stdp::trace_at(rule.pre_decay, 1.0, kNeverSpiked, 5), 0.0);
}

TEST(Stdp, DerivedRuleRefusesOutOfRangeParameters) {
  StdpParams p = hand_params();
  p.tau_plus_ms = 0.05;
  EXPECT_THROW(derive_stdp_rule(p, 0.1), std::invalid_argument);
  p = hand_params();
  p.w_min = 10;
  p.w_max = 5;
  EXPECT_THROW(derive_stdp_rule(p, 0.1), std::invalid_argument);
  p = hand_params();
  p.a_minus = -1;
  EXPECT_THROW(derive_stdp_rule(p, 0.1), std::invalid_argument);
}

// 0 -> 2 (2 synapses), 1 -> 2 (inhibitory, 1 synapse), 2 -> 0 (1 synapse); dt 0.1 ms.
TEST(Stdp, ShardLearnsThePairingsWorkedOutByHand) {
  const auto net = tiny_network(3, {{0, 2, 2}, {1, 2, -1}, {2, 0, 1}});
  PlasticSelection all;
  const std::vector<uint64_t> edges = select_plastic_edges(*net, all);
  ASSERT_EQ(edges.size(), 3u);  // plastic order = CSR order: 0->2, 1->2, 2->0
  auto setups = make_shard_setups(*net, edges, derive_stdp_rule(hand_params(), 0.1), 1, initial_state(*net, edges));
  stdp::StdpShard shard(std::move(setups[0]));

  // step 10: 0 fires. step 15: 2 fires: 0->2 potentiated by 1000 e^-0.05 = 951.2 -> 951;
  // 2->0 depressed by 500 e^-0.025 = 487.7 -> 488 (0 fired 5 steps before).
  shard.observe(0, {{10, 0}, {15, 2}});
  // step 20: 1 fires: 1->2 (inhibitory) loses 500 e^-0.025 -> 488 of its magnitude.
  shard.observe(0, {{20, 1}});
  const std::vector<WeightChange> first = shard.flush();
  const std::vector<WeightChange> expected_first = {{0, 131072 + 951}, {1, -(65536 - 488)}, {2, 65536 - 488}};
  EXPECT_EQ(first, expected_first);
  EXPECT_TRUE(shard.flush().empty());

  // step 30: 0 and 2 fire together. Depression first, with the traces before the step:
  // 0->2 by 500 e^-0.075 = 463.9 -> 464, 2->0 by 500 e^-0.1 = 452.4 -> 452; then
  // potentiation: 0->2 by 1000 e^-0.2 = 818.7 -> 819, 1->2 by 1000 e^-0.1 = 904.8 -> 905
  // (1 fired at step 20), 2->0 by 1000 e^-0.15 = 860.7 -> 861. The two spikes of step 30
  // do not pair with each other.
  shard.observe(0, {{30, 0}, {30, 2}});
  const std::vector<WeightChange> second = shard.flush();
  const std::vector<WeightChange> expected_second = {
      {0, 131072 + 951 - 464 + 819}, {1, -(65536 - 488 + 905)}, {2, 65536 - 488 - 452 + 861}};
  EXPECT_EQ(second, expected_second);

  const ShardState state = shard.state();
  EXPECT_EQ(state.pre.step[0], 30);
  EXPECT_DOUBLE_EQ(state.pre.value[0], 1.0 + std::exp(-0.2));
  EXPECT_DOUBLE_EQ(state.post.value[2], 1.0 + std::exp(-0.075));

  // A new trial starts with empty traces: a lone post spike pairs with nothing.
  shard.observe(1, {{5, 2}});
  EXPECT_TRUE(shard.flush().empty());
}

TEST(Stdp, AnyShardCountLearnsTheSameFromTheSameSpikes) {
  const auto net = std::make_shared<Network>(load_flywire(data_path("net2000/neurons.csv"),
                                                                  data_path("net2000/connectivity.csv")));
  PlasticSelection excitatory;
  excitatory.excitatory_only = true;
  const std::vector<uint64_t> edges = select_plastic_edges(*net, excitatory);
  const StdpRule rule = derive_stdp_rule(hand_params(), 0.1);
  // Random spikes, sorted by (step, neuron) in epochs of 18 steps as the engine sends them.
  std::mt19937 rng(7);
  std::vector<std::vector<Spike>> epochs(40);
  for (std::size_t e = 0; e < epochs.size(); ++e) {
    for (int k = 0; k < 200; ++k)
      epochs[e].push_back({static_cast<int32_t>(e * 18 + rng() % 18), static_cast<uint32_t>(rng() % net->neuron_count())});
    std::sort(epochs[e].begin(), epochs[e].end());
    epochs[e].erase(std::unique(epochs[e].begin(), epochs[e].end()), epochs[e].end());
  }
  const auto learn = [&](uint32_t shards) {
    std::vector<stdp::StdpShard> group;
    for (ShardSetup& s : make_shard_setups(*net, edges, rule, shards, initial_state(*net, edges))) group.emplace_back(std::move(s));
    std::vector<std::vector<WeightChange>> updates;
    for (const auto& epoch : epochs) {
      std::vector<WeightChange> merged;
      for (auto& shard : group) {
        shard.observe(0, epoch);
        const auto changes = shard.flush();
        merged.insert(merged.end(), changes.begin(), changes.end());
      }
      std::sort(merged.begin(), merged.end(), [](const WeightChange& a, const WeightChange& b) { return a.plastic < b.plastic; });
      updates.push_back(merged);
    }
    std::vector<ShardState> states;
    for (const auto& shard : group) states.push_back(shard.state());
    return std::make_pair(updates, merge_shard_states(states, edges.size(), "test"));
  };
  const auto one = learn(1);
  std::size_t changed = 0;
  for (std::size_t p = 0; p < edges.size(); ++p) changed += one.second.learned[p] != net->out_weights[edges[p]];
  EXPECT_GT(changed, 1000u);
  for (uint32_t shards : {2u, 3u, 16u}) {
    const auto many = learn(shards);
    EXPECT_EQ(many.first, one.first) << shards << " shards";
    EXPECT_EQ(many.second, one.second) << shards << " shards";
  }
}

TEST(Stdp, ShardRefusesConnectionsItDoesNotOwn) {
  const auto net = tiny_network(3, {{0, 2, 2}, {1, 2, -1}, {2, 0, 1}});
  const std::vector<uint64_t> edges = select_plastic_edges(*net, PlasticSelection{});
  const StdpRule rule = derive_stdp_rule(hand_params(), 0.1);
  const auto one = make_shard_setups(*net, edges, rule, 1, initial_state(*net, edges));
  auto two = make_shard_setups(*net, edges, rule, 2, initial_state(*net, edges));
  EXPECT_TRUE(two[1].connections.plastic.empty());  // posts 2 and 0 belong to shard 0 of 2
  two[1].connections = one[0].connections;
  EXPECT_THROW(stdp::StdpShard(std::move(two[1])), std::invalid_argument);
}

TEST(Stdp, SelectionNarrowsToExcitatoryAndNeuronSets) {
  const auto net = tiny_network(3, {{0, 2, 2}, {1, 2, -1}, {2, 0, 1}});
  PlasticSelection s;
  s.excitatory_only = true;
  EXPECT_EQ(select_plastic_edges(*net, s), (std::vector<uint64_t>{0, 2}));
  s.pre = {2};
  EXPECT_EQ(select_plastic_edges(*net, s), (std::vector<uint64_t>{2}));
  s = {};
  s.post = {2};
  EXPECT_EQ(select_plastic_edges(*net, s), (std::vector<uint64_t>{0, 1}));
}

}  // namespace
}  // namespace flysim::test
