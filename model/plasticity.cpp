#include "model/plasticity.hpp"

#include <fmt/format.h>
#include <xxhash.h>

#include <iterator>
#include <stdexcept>

#include "model/lif_constants.hpp"

namespace flysim {

namespace {
// Membership flags for a neuron set; an empty set admits everyone.
std::vector<uint8_t> member_flags(const std::vector<uint32_t>& set, std::size_t neurons) {
  std::vector<uint8_t> flags(neurons, set.empty() ? 1 : 0);
  for (uint32_t i : set) flags.at(i) = 1;
  return flags;
}
}  // namespace

std::vector<uint64_t> select_plastic_edges(const Network& net, const PlasticSelection& selection) {
  const std::size_t n = net.neuron_count();
  const std::vector<uint8_t> pre_ok = member_flags(selection.pre, n), post_ok = member_flags(selection.post, n);
  std::vector<uint64_t> edges;
  for (std::size_t pre = 0; pre < n; ++pre) {
    if (!pre_ok[pre]) continue;
    for (uint64_t e = net.out_offsets[pre]; e < net.out_offsets[pre + 1]; ++e)
      if (post_ok[net.out_targets[e]] && (!selection.excitatory_only || net.out_weights[e] > 0)) edges.push_back(e);
  }
  return edges;
}

std::vector<uint32_t> presynaptic_of(const Network& net, const std::vector<uint64_t>& edges) {
  std::vector<uint32_t> pre_of(edges.size());
  uint32_t pre = 0;
  for (std::size_t p = 0; p < edges.size(); ++p) {
    while (net.out_offsets[pre + 1] <= edges[p]) ++pre;
    pre_of[p] = pre;
  }
  return pre_of;
}

Traces empty_traces(std::size_t neurons) { return {std::vector<double>(neurons, 0.0), std::vector<int32_t>(neurons, kNeverSpiked)}; }

std::string describe_plasticity(const StdpParams& p, const std::vector<uint64_t>& plastic_edges) {
  return fmt::format("stdp a+ {:a} a- {:a} tau+ {:a} ms tau- {:a} ms w {}..{} period {} steps; {} plastic edges {:016x}",
                     p.a_plus, p.a_minus, p.tau_plus_ms, p.tau_minus_ms, p.w_min, p.w_max, p.period_steps,
                     plastic_edges.size(), XXH3_64bits(plastic_edges.data(), plastic_edges.size() * sizeof(uint64_t)));
}

}  // namespace flysim
