// The CPU engine's pool of listed neurons (kernels/cpu/cpu_trial.hpp): entries join,
// move and leave, the pool is swept in two passes and spread over the workers with one
// hand-off per epoch. None of that may change a bit: the spikes and the exported state
// are held to those of the plainest engine (tests/support/plain_engine.hpp: every neuron every
// epoch, the same per-neuron arithmetic the CUDA engine also runs), as hashes, at epoch
// boundaries inside and between delay cells, for 1, 2, 3 and 5 threads, straight and
// through export/import.
#include <gtest/gtest.h>
#include <xxhash.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <vector>

#include "kernels/cpu/cpu_engine.hpp"
#include "kernels/cpu/packed_rows.hpp"
#include "kernels/cpu/thread_pool.hpp"
#include "model/stimulus.hpp"
#include "plain_engine.hpp"
#include "test_support.hpp"

namespace flysim::test {
namespace {

uint64_t hash_of(uint64_t seed, const void* data, std::size_t bytes) { return XXH3_64bits_withSeed(data, bytes, seed); }

template <class T>
uint64_t hash_of(uint64_t seed, const std::vector<T>& v) {
  return hash_of(seed, v.data(), v.size() * sizeof(T));
}

// Spikes so far and the exported state, in one number.
uint64_t bits_of(const std::vector<Spike>& spikes, const EngineState& s) {
  uint64_t h = hash_of(static_cast<uint64_t>(s.next_step), spikes);
  h = hash_of(h, s.v);
  h = hash_of(h, s.g);
  h = hash_of(h, s.last_spike);
  return hash_of(h, s.pending);
}

// net2000 with its kicks, 21 Poisson-driven neurons at 150 Hz and, for a crowded pool,
// every 7th neuron Poisson-driven at 40 Hz too.
EngineSetup crowded_setup() {
  EngineSetup setup = net2000_setup();
  StimulusPlan plan = *setup.stimulus;
  for (uint32_t i = 0; i < setup.network->neuron_count(); i += 7) plan.poisson_neurons.push_back(i);
  std::sort(plan.poisson_neurons.begin(), plan.poisson_neurons.end());
  plan.poisson_neurons.erase(std::unique(plan.poisson_neurons.begin(), plan.poisson_neurons.end()),
                             plan.poisson_neurons.end());
  LifParams params;
  params.r_poi_Hz = 40.0;
  return setup_for(setup.network, plan, params);
}

// The boundaries where the bits are checked: cell ends and, by cutting there, one step
// inside a cell (the sim loop cuts epochs at cells and at a trial's end).
constexpr int32_t kCheckpoints[] = {900, 1807, 3000};

// Hash of the bits at each checkpoint for `engine` (PlainEngine or a CpuEngine), advanced
// epoch by epoch, cut as the sim loop cuts them; `handover(state)`, when given, may
// replace the engine at each checkpoint by one that imported `state`.
template <class AnEngine, class Handover>
std::vector<uint64_t> bits_at_checkpoints(std::unique_ptr<AnEngine> engine, int32_t delay_steps, Handover handover) {
  std::vector<uint64_t> bits;
  std::vector<Spike> spikes;
  int32_t step = 0;
  for (const int32_t stop : kCheckpoints) {
    for (; step < stop;) {
      const kernels::EpochSpan span = next_epoch(step, stop, delay_steps);
      const std::vector<Spike> part = engine->advance(span);
      spikes.insert(spikes.end(), part.begin(), part.end());
      step += span.steps;
    }
    const EngineState state = engine->export_state();
    bits.push_back(bits_of(spikes, state));
    handover(engine, state);
  }
  return bits;
}

std::vector<uint64_t> plain_bits(const EngineSetup& setup) {
  return bits_at_checkpoints(std::make_unique<PlainEngine>(setup), setup.constants.delay_steps,
                             [](auto&, const EngineState&) {});
}

// The CPU pool of `threads` threads, exported and imported into a fresh engine of
// `other_threads` at each checkpoint when given.
std::vector<uint64_t> pool_bits(const EngineSetup& setup, unsigned threads, unsigned other_threads = 0) {
  return bits_at_checkpoints(std::make_unique<CpuEngine>(setup, threads), setup.constants.delay_steps,
                             [&](std::unique_ptr<CpuEngine>& engine, const EngineState& state) {
                               if (other_threads == 0) return;
                               engine = std::make_unique<CpuEngine>(setup, other_threads);
                               engine->import_state(state);
                             });
}

TEST(CpuPool, Net2000BitsAreThePlainEnginesForAnyThreadCount) {
  const EngineSetup setup = net2000_setup();
  const std::vector<uint64_t> plain = plain_bits(setup);
  for (const unsigned threads : {1u, 2u, 3u, 5u}) EXPECT_EQ(pool_bits(setup, threads), plain) << threads << " threads";
}

TEST(CpuPool, CrowdedPoolBitsAreThePlainEnginesForAnyThreadCountAndThroughImports) {
  const EngineSetup setup = crowded_setup();
  const std::vector<uint64_t> plain = plain_bits(setup);
  for (const unsigned threads : {1u, 2u, 3u, 5u}) EXPECT_EQ(pool_bits(setup, threads), plain) << threads << " threads";
  EXPECT_EQ(pool_bits(setup, 2, 3), plain) << "2 threads, imported into 3 at each checkpoint";
  EXPECT_EQ(pool_bits(setup, 5, 1), plain) << "5 threads, imported into 1 at each checkpoint";
}

// A trial's epoch runs on one worker while few neurons are listed and is spread from
// EngineSetup::cpu_spread_from on; thresholds inside the crowded pool's range switch
// between the two from epoch to epoch. None of it changes a bit.
TEST(CpuPool, SpreadingOnlyLargePoolsChangesNoBit) {
  EngineSetup setup = crowded_setup();
  const std::vector<uint64_t> plain = plain_bits(setup);
  for (const std::size_t spread_from : {std::size_t{300}, std::size_t{600}, std::size_t{1000}, EngineSetup{}.cpu_spread_from}) {
    setup.cpu_spread_from = spread_from;
    EXPECT_EQ(pool_bits(setup, 2), plain) << "spread from " << spread_from << " listed neurons";
    EXPECT_EQ(pool_bits(setup, 3, 2), plain) << "spread from " << spread_from << ", 3 threads imported into 2";
  }
}

// From EngineSetup::cpu_list_all_from of the neurons listed, a trial lists every neuron at
// the entry of its index, and goes back once fewer than half that share stay active. From
// the first epoch on, never, and at shares the crowded pool crosses both ways: the same
// bits, for 1 to 3 threads and through imports.
TEST(CpuPool, ListingEveryNeuronChangesNoBit) {
  EngineSetup setup = crowded_setup();
  const std::vector<uint64_t> plain = plain_bits(setup);
  for (const double share : {0.0, 0.15, 0.3, 2.0}) {
    setup.cpu_list_all_from = share;
    for (const unsigned threads : {1u, 2u, 3u})
      EXPECT_EQ(pool_bits(setup, threads), plain) << "share " << share << ", " << threads << " threads";
    EXPECT_EQ(pool_bits(setup, 3, 1), plain) << "share " << share << ", 3 threads imported into 1";
  }
}

// Crowded, then without any input and every neuron silenced until the brain is at rest,
// then crowded again (live stimulus changes): every share gives the spikes and state of the ordinary pool, and at
// shares between the two regimes the trial lists every neuron, goes back, and lists
// them all again.
TEST(CpuPool, ListsEveryNeuronOnlyWhileCrowded) {
  const EngineSetup crowded = crowded_setup();
  auto quiet = std::make_shared<StimulusPlan>(*crowded.stimulus);
  quiet->poisson_neurons.clear();
  quiet->kicks.clear();
  quiet->groups.clear();
  for (uint32_t i = 0; i < crowded.network->neuron_count(); ++i) quiet->silenced.push_back(i);
  const uint32_t threshold = crowded.constants.poisson_threshold;
  struct Run {
    std::vector<Spike> spikes;
    EngineState state;
    int entered = 0, left = 0;
  };
  const auto run = [&](double share, unsigned threads) {
    EngineSetup setup = crowded;
    setup.cpu_list_all_from = share;
    CpuEngine engine(setup, threads);
    Run r;
    bool before = false;
    for (int32_t step = 0; step < 9900;) {
      if (step == 900) engine.set_stimulus(quiet, threshold);
      if (step == 9000) engine.set_stimulus(crowded.stimulus, threshold);
      const kernels::EpochSpan span = next_epoch(step, step < 900 ? 900 : step < 9000 ? 9000 : 9900, setup.constants.delay_steps);
      const std::vector<Spike> part = engine.advance(span);
      r.spikes.insert(r.spikes.end(), part.begin(), part.end());
      step += span.steps;
      const bool now = engine.lists_every_neuron(0);
      r.entered += now && !before;
      r.left += !now && before;
      before = now;
    }
    r.state = engine.export_state();
    return r;
  };
  const Run ordinary = run(2.0, 1);
  EXPECT_EQ(ordinary.entered, 0);
  for (const double share : {0.0, 0.3, 0.6}) {
    for (const unsigned threads : {1u, 2u, 3u}) {
      const Run r = run(share, threads);
      EXPECT_EQ(r.spikes, ordinary.spikes) << "share " << share << ", " << threads << " threads";
      EXPECT_EQ(r.state, ordinary.state) << "share " << share << ", " << threads << " threads";
      if (share > 0.0) {
        EXPECT_GE(r.entered, 2) << "share " << share;
        EXPECT_GE(r.left, 1) << "share " << share;
      }
    }
  }
}

// Every neuron listed from the first epoch on, whole cells are swept block by block
// (EngineSetup::cpu_block_neurons): blocks of one neuron, of a prime number, of a few
// dozen and one of the whole network, each worker's share cut into them, straight and
// through imports mid-cell: the plain engine's bits, and the cells did go by blocks.
TEST(CpuPool, SweepingBlockByBlockChangesNoBit) {
  EngineSetup setup = crowded_setup();
  const std::vector<uint64_t> plain = plain_bits(setup);
  setup.cpu_list_all_from = 0.0;
  for (const uint32_t block : {1u, 7u, 64u, 4096u}) {
    setup.cpu_block_neurons = block;
    for (const unsigned threads : {1u, 2u, 3u})
      EXPECT_EQ(pool_bits(setup, threads), plain) << "blocks of " << block << ", " << threads << " threads";
    EXPECT_EQ(pool_bits(setup, 3, 2), plain) << "blocks of " << block << ", 3 threads imported into 2";
    CpuEngine engine(setup, 2);
    for (int32_t step = 0; step < 900;) {
      const kernels::EpochSpan span = next_epoch(step, 900, setup.constants.delay_steps);
      engine.advance(span);
      step += span.steps;
    }
    EXPECT_EQ(engine.cells_in_blocks(0), 900 / setup.constants.delay_steps) << "blocks of " << block;
  }
}

// The blocked sweep reads packed rows (kernels/cpu/packed_rows.hpp) where the weights fit
// them, the network's arrays where they do not: with a fraction of a synapse added to
// every weight (as plastic weights have), the plain engine's bits for that network too.
TEST(CpuPool, SweepingRowsThatDoNotPackChangesNoBit) {
  const EngineSetup packs = crowded_setup();
  ASSERT_NE(PackedRows(*packs.network).words(), nullptr);
  auto net = std::make_shared<Network>(*packs.network);
  for (int32_t& w : net->out_weights) w += w > 0 ? 1 : -1;
  ASSERT_EQ(PackedRows(*net).words(), nullptr);
  EngineSetup setup = packs;
  setup.network = net;
  const std::vector<uint64_t> plain = plain_bits(setup);
  EXPECT_NE(plain, plain_bits(packs));  // the fractions reach the spikes or the state
  setup.cpu_list_all_from = 0.0;
  setup.cpu_block_neurons = 64;
  for (const unsigned threads : {1u, 3u}) EXPECT_EQ(pool_bits(setup, threads), plain) << threads << " threads";
}

// The scatter's workers find their targets by search in rows sorted by target, and filter
// every connection in rows that are not: with each row reversed, the same bits.
TEST(CpuPool, RowsOutOfTargetOrderGiveTheSameBits) {
  const EngineSetup sorted = crowded_setup();
  auto reversed = std::make_shared<Network>(*sorted.network);
  for (std::size_t pre = 0; pre < reversed->neuron_count(); ++pre) {
    const auto first = static_cast<std::ptrdiff_t>(reversed->out_offsets[pre]);
    const auto last = static_cast<std::ptrdiff_t>(reversed->out_offsets[pre + 1]);
    std::reverse(reversed->out_targets.begin() + first, reversed->out_targets.begin() + last);
    std::reverse(reversed->out_weights.begin() + first, reversed->out_weights.begin() + last);
  }
  ASSERT_TRUE(rows_sorted_by_target(*sorted.network));
  ASSERT_FALSE(rows_sorted_by_target(*reversed));
  EngineSetup setup = sorted;
  setup.network = reversed;
  const std::vector<uint64_t> plain = plain_bits(sorted);
  for (const unsigned threads : {2u, 3u}) EXPECT_EQ(pool_bits(setup, threads), plain) << threads << " threads";
}

TEST(SpinBarrier, NoWorkerPassesBeforeAllArriveRoundAfterRound) {
  for (const unsigned threads : {1u, 2u, 5u}) {
    ThreadPool pool(threads);
    SpinBarrier barrier;
    std::vector<std::atomic<int>> reached(threads);
    std::atomic<bool> early{false};
    pool.run([&](unsigned w, unsigned workers) {
      for (int round = 1; round <= 200; ++round) {
        reached[w].store(round);
        barrier.arrive_and_wait(workers);
        for (unsigned other = 0; other < workers; ++other)
          if (reached[other].load() < round) early = true;
        barrier.arrive_and_wait(workers);
      }
    });
    EXPECT_FALSE(early) << threads << " threads";
  }
}

}  // namespace
}  // namespace flysim::test
