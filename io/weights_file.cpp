#include "io/weights_file.hpp"

#include <fmt/format.h>

#include <iterator>
#include <stdexcept>

#include "io/atomic_file.hpp"
#include "model/plasticity.hpp"

namespace flysim {

void write_plastic_weights_csv(const std::string& path, const Network& net, const std::vector<uint64_t>& edges,
                               const std::vector<int32_t>& final_weights) {
  if (final_weights.size() != edges.size())
    throw std::invalid_argument("final weights for " + std::to_string(final_weights.size()) + " of " +
                                std::to_string(edges.size()) + " plastic connections");
  const std::vector<uint32_t> pre_of = presynaptic_of(net, edges);
  AtomicFile file(path);
  fmt::memory_buffer text;
  fmt::format_to(std::back_inserter(text), "pre_id,post_id,initial_units,final_units\n");
  for (std::size_t p = 0; p < edges.size(); ++p) {
    fmt::format_to(std::back_inserter(text), "{},{},{},{}\n", net.root_ids[pre_of[p]], net.root_ids[net.out_targets[edges[p]]],
                   net.out_weights[edges[p]], final_weights[p]);
    if (text.size() > (1 << 20)) {
      file.write(text.data(), text.size());
      text.clear();
    }
  }
  file.write(text.data(), text.size());
  file.commit();
}

}  // namespace flysim
