// A network's connections by target (model/incoming.hpp): the transpose of its CSR.
#include <gtest/gtest.h>

#include <algorithm>
#include <tuple>

#include "model/incoming.hpp"
#include "test_support.hpp"

namespace flysim::test {
namespace {

TEST(IncomingConnections, HoldEveryConnectionOnceByTargetWithSourcesAscending) {
  const EngineSetup setup = net2000_setup();
  const Network& net = *setup.network;
  const IncomingConnections in = incoming_connections(net);
  const std::size_t n = net.neuron_count();
  ASSERT_EQ(in.offsets.size(), n + 1);
  ASSERT_EQ(in.offsets.back(), net.connection_count());
  ASSERT_EQ(in.sources.size(), net.connection_count());
  ASSERT_EQ(in.weights.size(), net.connection_count());

  using Edge = std::tuple<uint32_t, uint32_t, int32_t>;  // (pre, post, weight)
  std::vector<Edge> out, back;
  for (uint32_t pre = 0; pre < n; ++pre)
    for (uint64_t e = net.out_offsets[pre]; e < net.out_offsets[pre + 1]; ++e)
      out.emplace_back(pre, net.out_targets[e], net.out_weights[e]);
  for (uint32_t post = 0; post < n; ++post) {
    const auto first = in.sources.begin() + static_cast<std::ptrdiff_t>(in.offsets[post]);
    const auto last = in.sources.begin() + static_cast<std::ptrdiff_t>(in.offsets[post + 1]);
    EXPECT_TRUE(std::is_sorted(first, last)) << "neuron " << post;
    for (uint64_t e = in.offsets[post]; e < in.offsets[post + 1]; ++e)
      back.emplace_back(in.sources[e], post, in.weights[e]);
  }
  std::sort(back.begin(), back.end());
  EXPECT_EQ(out, back);
  EXPECT_GT(out.size(), 1000u);
}

}  // namespace
}  // namespace flysim::test
