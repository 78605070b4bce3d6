// The stepwise pass in AVX-512 lanes (kernels/cpu/step_lanes_avx512.cpp) against
// advance_neuron_drawn entry by entry: the same spikes, the same bits of v and g, the same
// last spikes, slot flags, kicks and leaving entries, on stepwise entries that mix every
// branch of the loop (refractory stretches, quiet stretches, input of each kind, spikes),
// whole cells and parts of cells, and lists with gaps and a non-identity index.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "kernels/cpu/step_lanes_avx512.hpp"
#include "kernels/epoch_rules.hpp"
#include "model/lif_params.hpp"
#include "pool_vectors.hpp"

namespace flysim::test {
namespace {

// The pool's arrays, and per entry its model index, its Poisson draws and its delay
// ring ([slot][entry]).
struct Pool : PoolVectors {
  std::vector<uint32_t> index, draws;
  std::vector<int64_t> ring;
};

// `size` entries, every one stepwise through `span`: input in some slots (units large
// enough to fire, small, negative or zero in sum), kicks, Poisson draws, near threshold
// without input, refractory periods that end inside the span or cover it.
Pool stepwise_pool(const LifConstants& c, kernels::EpochSpan span, std::size_t size, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const uint32_t span_slots = kernels::consumed_slots(c, span);
  Pool p;
  p.ring.assign(static_cast<std::size_t>(c.delay_steps) * size, 0);
  for (std::size_t e = 0; e < size; ++e) {
    double v = c.v0 + (c.v_threshold - c.v0) * unit(rng), g = 4.0 * unit(rng) - 1.0;
    int32_t last = kNeverSpiked;
    uint8_t poisson = 0;
    uint32_t slots = 0, kicks = 0, draws = 0;
    for (int32_t t = 0; t < span.steps; ++t) {
      const int32_t slot = (span.first + t) % c.delay_steps;
      if (rng() % 3 == 0) {
        slots |= 1u << slot;
        const int64_t units = rng() % 4 == 0 ? 0 : static_cast<int64_t>(rng() % 400000) - 100000;
        p.ring[static_cast<std::size_t>(slot) * size + e] = units;
      }
      if (rng() % 9 == 0) kicks |= 1u << t;
    }
    // A flag outside the span: it must stay set.
    if (rng() % 5 == 0) slots |= ~span_slots & (1u << (rng() % c.delay_steps));
    switch (rng() % 7) {
      case 0: poisson = 1, draws = static_cast<uint32_t>(rng()) & ((1u << span.steps) - 1u); break;
      case 1: last = span.first - static_cast<int32_t>(rng() % (2 * c.ref_steps)); break;
      case 2: v = c.v_threshold - 0.01 * unit(rng), g = 0.5 * unit(rng); break;
      case 3: g = -0.0; break;
      case 4: v = c.v0, g = 0.0, poisson = 1; break;  // driven, at rest, no draws
      case 5: v = c.v0, g = 0.0; break;               // at rest: leaves if its input sums to nothing
      default: break;
    }
    if ((slots & span_slots) == 0 && kicks == 0 && !poisson) kicks = 1u;  // stepwise
    p.push_back(v, g, last, poisson, slots, kicks);
    p.draws.push_back(draws);
    p.index.push_back(static_cast<uint32_t>(3 * e + 1));
  }
  return p;
}

struct Stepped {
  std::vector<Spike> spikes;
  std::vector<uint32_t> leaving;
};

// advance_neuron_drawn on each listed entry, as CpuTrial::step_entries calls it.
Stepped step_one_by_one(const LifConstants& c, kernels::EpochSpan span, Pool& p, const std::vector<uint32_t>& list) {
  Stepped out;
  const std::size_t size = p.v.size();
  for (uint32_t e : list) {
    const kernels::NeuronInputs in{p.synaptic_slots[e], p.kick_steps[e], p.poisson[e] != 0};
    EXPECT_EQ(kernels::choose_path(c, in, span, p.v[e], p.g[e], p.last_spike[e]), kernels::EpochPath::stepwise);
    kernels::advance_neuron_drawn(c, span, in, p.draws[e], p.ring.data() + e, size, p.v[e], p.g[e], p.last_spike[e],
                                  [&](int32_t step) { out.spikes.push_back({step, p.index[e]}); });
    p.synaptic_slots[e] = in.synaptic_slots & ~kernels::consumed_slots(c, span);
    p.kick_steps[e] = 0;
    if (kernels::at_rest(c, p.v[e], p.g[e]) && !in.poisson && p.synaptic_slots[e] == 0) out.leaving.push_back(e);
  }
  return out;
}

void collect(void* to, const Spike* spikes, std::size_t count) {
  auto& out = *static_cast<std::vector<Spike>*>(to);
  out.insert(out.end(), spikes, spikes + count);
}

Stepped step_in_lanes(const LifConstants& c, kernels::EpochSpan span, Pool& p, const std::vector<uint32_t>& list,
                      bool identity) {
  const std::size_t n = list.size(), room = n + kernels::kAvx512Lanes;
  std::vector<uint32_t> entries(list), draws(room), driven(room), leaving(room);
  std::vector<int32_t> refractory(room);
  entries.resize(room);
  for (std::size_t k = 0; k < n; ++k) {
    draws[k] = p.draws[list[k]];
    driven[k] = p.poisson[list[k]];
    refractory[k] = kernels::refractory_steps(c, {0u, 0u, p.poisson[list[k]] != 0});
  }
  std::vector<double> staged_v(room), staged_g(room), finished_v(room), finished_g(room);
  std::vector<int32_t> staged_last(room), finished_last(room);
  std::vector<uint32_t> staged_slots(room), staged_kicks(room), finished_entry(room), finished_slots(room);
  const kernels::LaneRoom lane_room{staged_v.data(),      staged_g.data(),       staged_last.data(),
                                    staged_slots.data(),  staged_kicks.data(),   finished_entry.data(),
                                    finished_v.data(),    finished_g.data(),     finished_last.data(),
                                    finished_slots.data()};
  Stepped out;
  kernels::LaneFindings found{&out.spikes, collect, leaving.data(), 0};
  kernels::step_lanes_avx512(c, span, p.arrays(), identity ? nullptr : p.index.data(),
                             {entries.data(), draws.data(), refractory.data(), driven.data(), n,
                              kernels::consumed_slots(c, span)},
                             {p.ring.data(), p.v.size(), 0}, lane_room, found);
  out.leaving.assign(leaving.begin(), leaving.begin() + static_cast<std::ptrdiff_t>(found.leaving_count));
  if (identity)
    for (Spike& s : out.spikes) s.neuron = p.index[s.neuron];  // compared as the index would name them
  return out;
}

TEST(StepLanes, Avx512LanesEqualAdvanceNeuronDrawnEntryByEntry) {
  if (!kernels::cpu_has_avx512()) GTEST_SKIP() << "this CPU has no AVX-512";
  const LifConstants c = derive_constants({});
  std::size_t spikes = 0, leaving = 0, refractory = 0;
  for (const kernels::EpochSpan span : {kernels::EpochSpan{0, 18}, kernels::EpochSpan{1800, 18},
                                        kernels::EpochSpan{1805, 7}, kernels::EpochSpan{97, 1}}) {
    for (const std::size_t size : {std::size_t{1}, std::size_t{7}, std::size_t{9}, std::size_t{3000}}) {
      for (const bool identity : {true, false}) {
        Pool scalar = stepwise_pool(c, span, size, static_cast<uint32_t>(span.first * 7 + size));
        // Every entry, or every other one (a list with gaps).
        std::vector<uint32_t> list;
        for (uint32_t e = 0; e < size; e += identity ? 1 : 2) list.push_back(e);
        for (uint32_t e : list) refractory += scalar.last_spike[e] != kNeverSpiked;
        Pool lanes = scalar;
        Stepped expected = step_one_by_one(c, span, scalar, list);
        Stepped got = step_in_lanes(c, span, lanes, list, identity);
        std::sort(expected.spikes.begin(), expected.spikes.end());
        std::sort(got.spikes.begin(), got.spikes.end());
        std::sort(got.leaving.begin(), got.leaving.end());
        const std::string where = "span " + std::to_string(span.first) + "+" + std::to_string(span.steps) +
                                  ", " + std::to_string(size) + " entries";
        EXPECT_EQ(got.spikes, expected.spikes) << where;
        EXPECT_EQ(got.leaving, expected.leaving) << where;
        EXPECT_EQ(bits_of(lanes.v), bits_of(scalar.v)) << where;
        EXPECT_EQ(bits_of(lanes.g), bits_of(scalar.g)) << where;
        EXPECT_EQ(lanes.last_spike, scalar.last_spike) << where;
        EXPECT_EQ(lanes.synaptic_slots, scalar.synaptic_slots) << where;
        EXPECT_EQ(lanes.kick_steps, scalar.kick_steps) << where;
        spikes += expected.spikes.size();
        leaving += expected.leaving.size();
      }
    }
  }
  // The cases occur: spikes, refractory entries and entries that leave.
  EXPECT_GT(spikes, 1000u);
  EXPECT_GT(refractory, 1000u);
  EXPECT_GT(leaving, 0u);
}

}  // namespace
}  // namespace flysim::test
