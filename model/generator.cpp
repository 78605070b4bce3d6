#include "model/generator.hpp"

#include <fmt/format.h>
#include <xxhash.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>

#include "model/deterministic_math.hpp"
#include "model/errors.hpp"
#include "model/lif_constants.hpp"

// The algorithm, its constants and why they are what they are: model/GENERATOR.md.
// Bump kAlgorithmVersion whenever the output for given params changes: it is part of
// generator_signature() and so of every cache key.

namespace flysim {

namespace {

constexpr int kAlgorithmVersion = 1;

// ---------------------------------------------------------------------------
// Deterministic randomness: std::mt19937_64 is fully specified by the standard; every
// conversion to an integer range or a real is written here, with IEEE +, -, *, /, sqrt
// only (no libm exp/log/pow, whose last bit may differ between C libraries).

// One independent stream per phase, so changing one phase leaves the others alone.
enum class Stream : uint64_t { pathway = 1, classes, out_degrees, in_degrees, matching, signs, weights };

class Random {
 public:
  Random(uint64_t seed, Stream stream) : engine_(splitmix64(seed ^ splitmix64(static_cast<uint64_t>(stream)))) {}
  // Uniform in [0, 1), 53 random bits.
  double unit() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }
  // Uniform in [0, n), n > 0, without modulo bias (Lemire's multiply-and-reject).
  uint64_t below(uint64_t n) {
    unsigned __int128 m = static_cast<unsigned __int128>(engine_()) * n;
    if (static_cast<uint64_t>(m) < n) {
      const uint64_t reject_under = (0 - n) % n;
      while (static_cast<uint64_t>(m) < reject_under) m = static_cast<unsigned __int128>(engine_()) * n;
    }
    return static_cast<uint64_t>(m >> 64);
  }
  // Uniform in [lo, hi].
  uint32_t between(uint32_t lo, uint32_t hi) { return lo + static_cast<uint32_t>(below(uint64_t{hi} - lo + 1)); }
  template <class T>
  void shuffle(std::vector<T>& v) {
    for (std::size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[below(i)]);
  }

 private:
  std::mt19937_64 engine_;
};

// A standard normal deviate (Marsaglia's polar method).
double normal(Random& rng) {
  for (;;) {
    const double a = 2.0 * rng.unit() - 1.0, b = 2.0 * rng.unit() - 1.0;
    const double s = a * a + b * b;
    if (s > 0.0 && s < 1.0) return a * std::sqrt(-2.0 * det_log(s) / s);
  }
}

// ---------------------------------------------------------------------------
// The sensory-to-motor pathway (GENERATOR.md, "Structure 2: the sensory-to-motor pathway").

// One layer after the sensory neurons. Every neuron of the layer draws its inputs
// from the previous layer: `min..max_inputs` of its excitatory neurons with
// `min..max_synapses` synapses each, and `inhibitory_inputs` of its inhibitory neurons
// with `inhibitory_synapses` each. Inhibitory neurons of a layer take the same inputs
// as the excitatory ones, so inhibition grows with the drive (feed-forward inhibition).
struct LayerSpec {
  uint32_t size;
  uint32_t inhibitory;
  uint32_t min_inputs, max_inputs;
  uint32_t min_synapses, max_synapses;
  uint32_t inhibitory_inputs, inhibitory_synapses;
};

constexpr LayerSpec kLayers[] = {
    {60, 12, 8, 16, 6, 14, 0, 0},
    {120, 24, 6, 20, 8, 20, 3, 6},
    {150, 30, 6, 20, 8, 20, 3, 6},
    {80, 0, 6, 20, 8, 20, 3, 6},
};
// The motor neurons (MN9) get the strongest convergence of the last layer.
constexpr uint32_t kMotorInputs = 64, kMotorMinSynapses = 10, kMotorMaxSynapses = 16;

struct Pathway {
  std::vector<Connection> connections;
  std::vector<int8_t> sign;  // per neuron: +1, -1, or 0 for neurons outside the pathway
};

// The layer sizes, scaled down when the network is too small for them (a quarter of
// the neurons at most), never below one neuron per layer.
std::vector<LayerSpec> scaled_layers(std::size_t n, std::size_t fixed_neurons) {
  uint64_t full = 0;
  for (const LayerSpec& l : kLayers) full += l.size;
  const double room = static_cast<double>(n) / 4.0 - static_cast<double>(fixed_neurons);
  const double scale = room >= static_cast<double>(full) ? 1.0 : std::max(room, 0.0) / static_cast<double>(full);
  std::vector<LayerSpec> layers;
  for (LayerSpec l : kLayers) {
    if (scale < 1.0) {
      l.size = std::max<uint32_t>(1, static_cast<uint32_t>(l.size * scale));
      l.inhibitory = static_cast<uint32_t>(l.inhibitory * scale);
      if (l.inhibitory >= l.size) l.inhibitory = l.size - 1;
    }
    layers.push_back(l);
  }
  return layers;
}

// `count` distinct picks from `pool` (partial Fisher-Yates; pool is reordered).
std::vector<uint32_t> pick(std::vector<uint32_t>& pool, std::size_t count, Random& rng) {
  count = std::min(count, pool.size());
  for (std::size_t i = 0; i < count; ++i) std::swap(pool[i], pool[i + rng.below(pool.size() - i)]);
  return {pool.begin(), pool.begin() + static_cast<std::ptrdiff_t>(count)};
}

Pathway build_pathway(const GeneratorParams& p, Random& rng) {
  const std::size_t n = p.root_ids.size();
  Pathway pathway;
  pathway.sign.assign(n, 0);
  if (p.sensory.empty()) return pathway;
  for (uint32_t s : p.sensory) pathway.sign[s] = 1;
  for (uint32_t m : p.motor) pathway.sign[m] = 1;

  std::vector<uint32_t> candidates;
  for (uint32_t i = 0; i < n; ++i)
    if (pathway.sign[i] == 0) candidates.push_back(i);
  const std::vector<LayerSpec> layers = scaled_layers(n, p.sensory.size() + p.motor.size());

  std::vector<uint32_t> prev_excitatory = p.sensory, prev_inhibitory;
  for (std::size_t l = 0; l < layers.size(); ++l) {
    const LayerSpec& spec = layers[l];
    const bool last = l + 1 == layers.size();
    std::vector<uint32_t> chosen = pick(candidates, spec.size, rng);
    candidates.erase(candidates.begin(), candidates.begin() + static_cast<std::ptrdiff_t>(chosen.size()));
    std::vector<uint32_t> excitatory(chosen.begin() + spec.inhibitory, chosen.end());
    std::vector<uint32_t> inhibitory(chosen.begin(), chosen.begin() + spec.inhibitory);
    for (uint32_t i : excitatory) pathway.sign[i] = 1;
    for (uint32_t i : inhibitory) pathway.sign[i] = -1;
    std::vector<uint32_t> members = chosen;
    if (last) members.insert(members.end(), p.motor.begin(), p.motor.end());

    for (uint32_t post : members) {
      const bool motor = std::find(p.motor.begin(), p.motor.end(), post) != p.motor.end();
      const uint32_t inputs = motor ? kMotorInputs : rng.between(spec.min_inputs, spec.max_inputs);
      for (uint32_t pre : pick(prev_excitatory, inputs, rng)) {
        const uint32_t synapses = motor ? rng.between(kMotorMinSynapses, kMotorMaxSynapses)
                                        : rng.between(spec.min_synapses, spec.max_synapses);
        pathway.connections.push_back({pre, post, static_cast<int32_t>(synapses)});
      }
      for (uint32_t pre : pick(prev_inhibitory, spec.inhibitory_inputs, rng))
        pathway.connections.push_back({pre, post, -static_cast<int32_t>(spec.inhibitory_synapses)});
    }
    prev_excitatory = excitatory;
    if (last) prev_excitatory.insert(prev_excitatory.end(), p.motor.begin(), p.motor.end());
    prev_inhibitory = inhibitory;
  }
  return pathway;
}

// ---------------------------------------------------------------------------
// Degrees: lognormal (sigma kDegreeSigma) shapes, scaled to the exact total; the
// largest gets exactly the cap, so the published maximum is reached, not exceeded.

constexpr double kDegreeSigma = 1.2;

std::vector<uint32_t> heavy_tailed_degrees(std::size_t n, uint64_t total, uint32_t cap,
                                           const std::vector<uint32_t>& lower, Random& rng, const char* what) {
  std::vector<double> shape(n);
  for (double& x : shape) x = det_exp(kDegreeSigma * normal(rng));
  const std::size_t top = static_cast<std::size_t>(std::max_element(shape.begin(), shape.end()) - shape.begin());
  uint64_t lower_sum = 0;
  for (std::size_t i = 0; i < n; ++i) lower_sum += i == top ? cap : lower[i];
  if (lower_sum > total || uint64_t{cap} * n < total)
    throw input_error("generator: " + std::to_string(total) + " connections cannot be spread over " + std::to_string(n) +
                      " neurons with a largest " + what + " of " + std::to_string(cap));

  std::vector<uint32_t> degree(n);
  auto fill = [&](double scale) {
    uint64_t sum = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const double scaled = std::min(std::floor(scale * shape[i] + 0.5), static_cast<double>(cap));
      degree[i] = i == top ? cap : std::max(lower[i], static_cast<uint32_t>(scaled));
      sum += degree[i];
    }
    return sum;
  };
  double lo = 0.0, hi = 1.0;
  while (fill(hi) < total) hi *= 2.0;
  for (int iteration = 0; iteration < 100 && lo < hi; ++iteration) {
    const double mid = 0.5 * (lo + hi);
    (fill(mid) < total ? lo : hi) = mid;
  }
  uint64_t sum = fill(hi);
  // The last few connections, one at a time on random neurons within their bounds.
  while (sum != total) {
    const std::size_t i = rng.below(n);
    if (i == top) continue;
    if (sum > total && degree[i] > lower[i]) --degree[i], --sum;
    else if (sum < total && degree[i] < cap) ++degree[i], ++sum;
  }
  return degree;
}

// ---------------------------------------------------------------------------
// Weights: a power law p(w) ~ w^-alpha on 1..max_w, alpha fitted to the mean.
// Connections of kStrongSynapses or more go only from strong senders to non-senders
// (GENERATOR.md, "Structure 1: strong connections never chain").

constexpr uint32_t kStrongSynapses = 10;

class WeightDistribution {
 public:
  WeightDistribution(uint32_t max_w, double mean) : max_w_(max_w) {
    double lo = 0.0, hi = 16.0;
    for (int iteration = 0; iteration < 80; ++iteration) {
      const double alpha = 0.5 * (lo + hi);
      (mean_for(alpha) > mean ? lo : hi) = alpha;
    }
    const std::vector<double> p = probabilities(0.5 * (lo + hi));
    double cumulative = 0.0;
    cdf_.resize(max_w + 1, 0);
    for (uint32_t w = 1; w <= max_w; ++w) {
      cumulative += p[w];
      cdf_[w] = static_cast<uint64_t>(std::min(cumulative, 1.0) * 0x1.0p53);
    }
    cdf_[max_w] = uint64_t{1} << 53;
  }
  // P(w >= kStrongSynapses).
  double strong_share() const {
    return max_w_ < kStrongSynapses ? 0.0 : 1.0 - static_cast<double>(cdf_[kStrongSynapses - 1]) * 0x1.0p-53;
  }
  // A weight below kStrongSynapses (all of 1..max_w when max_w is smaller).
  uint32_t weak(Random& rng) const { return draw(0, cdf_[std::min(max_w_, kStrongSynapses - 1)], rng); }
  uint32_t strong(Random& rng) const { return draw(cdf_[kStrongSynapses - 1], cdf_[max_w_], rng); }

 private:
  std::vector<double> probabilities(double alpha) const {
    std::vector<double> p(max_w_ + 1, 0.0);
    double total = 0.0;
    for (uint32_t w = 1; w <= max_w_; ++w) total += p[w] = det_exp(-alpha * det_log(w));
    for (double& x : p) x /= total;
    return p;
  }
  double mean_for(double alpha) const {
    const std::vector<double> p = probabilities(alpha);
    double mean = 0.0;
    for (uint32_t w = 1; w <= max_w_; ++w) mean += w * p[w];
    return mean;
  }
  // Inverse CDF on 53-bit integer thresholds: u in [from, to) -> the first w with u < cdf[w].
  uint32_t draw(uint64_t from, uint64_t to, Random& rng) const {
    const uint64_t u = from + rng.below(to - from);
    return static_cast<uint32_t>(std::upper_bound(cdf_.begin() + 1, cdf_.end(), u) - cdf_.begin());
  }
  uint32_t max_w_;
  std::vector<uint64_t> cdf_;  // cdf_[w] = P(W <= w) * 2^53
};

// ---------------------------------------------------------------------------

void validate(const GeneratorParams& p) {
  const uint64_t n = p.root_ids.size();
  auto fail = [](const std::string& what) { throw input_error("generator: " + what); };
  if (n < 2) fail("needs at least 2 neurons, got " + std::to_string(n));
  if (n > std::numeric_limits<uint32_t>::max()) fail("too many neurons for 32-bit indices");
  index_of_ids(p.root_ids, "generator root IDs");
  if (p.connections > n * (n - 1)) fail("more connections than neuron pairs");
  if (p.synapses < p.connections) fail("fewer synapses than connections (every connection has at least one)");
  if (p.max_synapses_per_connection < 1 || p.max_synapses_per_connection > uint32_t{kMaxSynapsesPerConnection})
    fail("max synapses per connection must be 1.." + std::to_string(kMaxSynapsesPerConnection));
  if (p.synapses > p.connections * p.max_synapses_per_connection) fail("more synapses than the caps allow");
  if (!(p.excitatory_fraction >= 0.0 && p.excitatory_fraction <= 1.0)) fail("excitatory fraction must be in [0, 1]");
  std::vector<uint8_t> seen(n, 0);
  for (const auto* list : {&p.sensory, &p.motor})
    for (uint32_t i : *list) {
      if (i >= n) fail("pathway neuron index " + std::to_string(i) + " is out of range");
      if (seen[i]++) fail("neuron index " + std::to_string(i) + " is listed twice among sensory and motor neurons");
    }
  if (p.sensory.empty() && !p.motor.empty()) fail("motor neurons need sensory neurons to start the pathway");
}

// Random target positions are swapped until no row holds a self-connection or a
// repeated target. Pathway entries (each row's first pathway_out[i]) never move.
void remove_repeats(const std::vector<uint64_t>& offsets, std::vector<uint32_t>& targets,
                    const std::vector<uint32_t>& pathway_out, Random& rng) {
  const std::size_t n = offsets.size() - 1;
  constexpr uint32_t kUnmarked = std::numeric_limits<uint32_t>::max();
  std::vector<uint32_t> row_of_mark(n, kUnmarked);
  auto row_holds = [&](std::size_t row, uint32_t t) {
    return std::find(targets.begin() + static_cast<std::ptrdiff_t>(offsets[row]),
                     targets.begin() + static_cast<std::ptrdiff_t>(offsets[row + 1]), t) !=
           targets.begin() + static_cast<std::ptrdiff_t>(offsets[row + 1]);
  };
  for (uint32_t i = 0; i < n; ++i) {
    for (uint64_t e = offsets[i]; e < offsets[i + 1]; ++e) {
      if (targets[e] != i && row_of_mark[targets[e]] != i) {
        row_of_mark[targets[e]] = i;
        continue;
      }
      for (uint64_t attempt = 0;; ++attempt) {
        if (attempt == 1'000'000)
          throw input_error("generator: cannot place " + std::to_string(targets.size()) + " connections among " +
                            std::to_string(n) + " neurons without repeated pairs; the network is too dense");
        const uint64_t q = rng.below(targets.size());
        const auto other = static_cast<std::size_t>(std::upper_bound(offsets.begin(), offsets.end(), q) - offsets.begin() - 1);
        if (other == i || q < offsets[other] + pathway_out[other]) continue;
        const uint32_t incoming = targets[q], outgoing = targets[e];
        if (incoming == i || row_of_mark[incoming] == i) continue;
        if (outgoing == other || row_holds(other, outgoing)) continue;
        targets[e] = incoming;
        targets[q] = outgoing;
        row_of_mark[incoming] = i;
        break;
      }
    }
  }
}

// Signs per presynaptic neuron: pathway neurons keep theirs; the others, in random
// order, are excitatory while their out-degree still fits the excitatory target.
std::vector<int8_t> assign_signs(const GeneratorParams& p, const std::vector<uint32_t>& out_degree,
                                 const std::vector<int8_t>& pathway_sign, Random& rng) {
  const std::size_t n = out_degree.size();
  const auto target = static_cast<uint64_t>(std::floor(p.excitatory_fraction * static_cast<double>(p.connections) + 0.5));
  std::vector<int8_t> sign = pathway_sign;
  uint64_t excitatory = 0;
  std::vector<uint32_t> order;
  for (uint32_t i = 0; i < n; ++i) {
    if (sign[i] > 0) excitatory += out_degree[i];
    if (sign[i] == 0) order.push_back(i);
  }
  rng.shuffle(order);
  for (uint32_t i : order) {
    const bool fits = excitatory + out_degree[i] <= target;
    sign[i] = fits ? 1 : -1;
    if (fits) excitatory += out_degree[i];
  }
  return sign;
}

uint64_t hash_of(const void* data, std::size_t bytes) { return XXH3_64bits(data, bytes); }

}  // namespace

std::string generator_signature(const GeneratorParams& p) {
  // {} prints a double as its shortest decimal that reads back exactly: readable, and
  // two fractions that differ still give two keys.
  return fmt::format(
      "synthetic v{} seed={} n={} connections={} synapses={} excitatory={} max_out={} max_in={} max_w={} ids={:016x} "
      "sensory={}:{:016x} motor={}:{:016x}",
      kAlgorithmVersion, p.seed, p.root_ids.size(), p.connections, p.synapses, p.excitatory_fraction, p.max_out_degree,
      p.max_in_degree, p.max_synapses_per_connection, hash_of(p.root_ids.data(), p.root_ids.size() * sizeof(int64_t)),
      p.sensory.size(), hash_of(p.sensory.data(), p.sensory.size() * 4), p.motor.size(),
      hash_of(p.motor.data(), p.motor.size() * 4));
}

Network generate_network(const GeneratorParams& p, const std::function<void(uint64_t, uint64_t)>& progress) {
  validate(p);
  constexpr uint64_t kPhases = 6;
  auto report = [&](uint64_t phase) {
    if (progress) progress(phase, kPhases);
  };
  const std::size_t n = p.root_ids.size();
  const uint64_t total = p.connections;

  Random pathway_rng(p.seed, Stream::pathway);
  const Pathway pathway = build_pathway(p, pathway_rng);
  std::vector<uint32_t> pathway_out(n, 0), pathway_in(n, 0);
  uint64_t pathway_synapses = 0;
  for (const Connection& c : pathway.connections) {
    ++pathway_out[c.pre];
    ++pathway_in[c.post];
    pathway_synapses += static_cast<uint64_t>(std::abs(c.signed_synapses));
  }
  const uint64_t background = total - std::min<uint64_t>(total, pathway.connections.size());
  if (pathway.connections.size() > total / 2 || pathway_synapses + background > p.synapses)
    throw input_error("generator: " + std::to_string(total) + " connections and " + std::to_string(p.synapses) +
                      " synapses are too few for the sensory-to-motor pathway (" +
                      std::to_string(pathway.connections.size()) + " connections)");

  // Strong senders: half of the neurons outside the pathway (GENERATOR.md).
  Random class_rng(p.seed, Stream::classes);
  std::vector<uint8_t> strong_sender(n, 0);
  for (std::size_t i = 0; i < n; ++i) strong_sender[i] = pathway.sign[i] == 0 && class_rng.unit() < 0.5;

  const uint32_t out_cap = static_cast<uint32_t>(std::min<uint64_t>(p.max_out_degree, n - 1));
  const uint32_t in_cap = static_cast<uint32_t>(std::min<uint64_t>(p.max_in_degree, n - 1));
  Random out_rng(p.seed, Stream::out_degrees), in_rng(p.seed, Stream::in_degrees);
  const std::vector<uint32_t> out_degree = heavy_tailed_degrees(n, total, out_cap, pathway_out, out_rng, "out-degree");
  const std::vector<uint32_t> in_degree = heavy_tailed_degrees(n, total, in_cap, pathway_in, in_rng, "in-degree");
  report(1);

  Network net;
  net.root_ids = p.root_ids;
  net.description = generator_signature(p);
  net.out_offsets.assign(n + 1, 0);
  for (std::size_t i = 0; i < n; ++i) net.out_offsets[i + 1] = net.out_offsets[i] + out_degree[i];
  net.out_targets.resize(total);
  net.out_weights.assign(total, 0);

  // Pathway entries first in each row, then the background's in-stubs, shuffled.
  std::vector<uint64_t> cursor(net.out_offsets.begin(), net.out_offsets.end() - 1);
  for (const Connection& c : pathway.connections) {
    net.out_targets[cursor[c.pre]] = c.post;
    net.out_weights[cursor[c.pre]++] = c.signed_synapses * kUnitsPerSynapse;
  }
  {
    Random matching_rng(p.seed, Stream::matching);
    std::vector<uint32_t> stubs;
    stubs.reserve(background);
    for (uint32_t j = 0; j < n; ++j) stubs.insert(stubs.end(), in_degree[j] - pathway_in[j], j);
    matching_rng.shuffle(stubs);
    uint64_t next = 0;
    for (std::size_t i = 0; i < n; ++i)
      for (uint64_t e = cursor[i]; e < net.out_offsets[i + 1]; ++e) net.out_targets[e] = stubs[next++];
    report(2);
    remove_repeats(net.out_offsets, net.out_targets, pathway_out, matching_rng);
  }
  report(3);

  Random sign_rng(p.seed, Stream::signs);
  const std::vector<int8_t> sign = assign_signs(p, out_degree, pathway.sign, sign_rng);

  // Background weights: strong ones only from strong senders to non-senders, with the
  // share that keeps the overall distribution the fitted power law.
  Random weight_rng(p.seed, Stream::weights);
  const WeightDistribution weights(p.max_synapses_per_connection,
                                   static_cast<double>(p.synapses - pathway_synapses) / static_cast<double>(background));
  uint64_t eligible = 0;
  for (std::size_t i = 0; i < n; ++i)
    if (strong_sender[i])
      for (uint64_t e = cursor[i]; e < net.out_offsets[i + 1]; ++e) eligible += !strong_sender[net.out_targets[e]];
  const double strong_chance =
      eligible == 0 ? 0.0 : std::min(1.0, weights.strong_share() * static_cast<double>(background) / static_cast<double>(eligible));
  std::vector<uint32_t> synapses(total, 0);
  uint64_t synapse_sum = pathway_synapses;
  uint64_t largest = total;  // position of the largest background weight
  for (std::size_t i = 0; i < n; ++i)
    for (uint64_t e = cursor[i]; e < net.out_offsets[i + 1]; ++e) {
      const bool may_be_strong = strong_sender[i] && !strong_sender[net.out_targets[e]];
      synapses[e] = may_be_strong && weight_rng.unit() < strong_chance ? weights.strong(weight_rng) : weights.weak(weight_rng);
      synapse_sum += synapses[e];
      if (may_be_strong && (largest == total || synapses[e] > synapses[largest])) largest = e;
    }
  // The published maximum is reached exactly once the top weight is raised to it.
  if (largest != total) {
    synapse_sum += p.max_synapses_per_connection - synapses[largest];
    synapses[largest] = p.max_synapses_per_connection;
  }
  report(4);
  // The exact synapse total, by +-1 on random weak background weights.
  const uint32_t weak_max = std::min(p.max_synapses_per_connection, kStrongSynapses - 1);
  // Weak weights first; only where they cannot reach the total (small networks, whose few
  // strong weights outweigh the rest) may strong ones move too, the top weight kept.
  const uint64_t weak_attempts = 64 * total + 1'000'000;
  for (uint64_t attempt = 0; synapse_sum != p.synapses; ++attempt) {
    const bool strong_too = attempt > weak_attempts;
    if (attempt > 2 * weak_attempts)
      throw input_error("generator: cannot reach " + std::to_string(p.synapses) + " synapses with these caps");
    const uint64_t e = weight_rng.below(total);
    if (net.out_weights[e] != 0 || e == largest) continue;
    const uint32_t up_to = strong_too ? p.max_synapses_per_connection : weak_max;
    if (synapse_sum < p.synapses && synapses[e] < up_to) ++synapses[e], ++synapse_sum;
    else if (synapse_sum > p.synapses && synapses[e] > 1 && (strong_too || synapses[e] < kStrongSynapses))
      --synapses[e], --synapse_sum;
  }
  report(5);

  // Signed fixed-point weights; rows sorted by target like build_csr's.
  std::vector<std::pair<uint32_t, int32_t>> row;
  for (std::size_t i = 0; i < n; ++i) {
    row.clear();
    for (uint64_t e = net.out_offsets[i]; e < net.out_offsets[i + 1]; ++e) {
      const int32_t w = net.out_weights[e] != 0 ? net.out_weights[e]
                                                : sign[i] * static_cast<int32_t>(synapses[e]) * kUnitsPerSynapse;
      row.emplace_back(net.out_targets[e], w);
    }
    std::sort(row.begin(), row.end());
    for (std::size_t k = 0; k < row.size(); ++k) {
      net.out_targets[net.out_offsets[i] + k] = row[k].first;
      net.out_weights[net.out_offsets[i] + k] = row[k].second;
    }
  }
  report(kPhases);
  return net;
}

}  // namespace flysim
