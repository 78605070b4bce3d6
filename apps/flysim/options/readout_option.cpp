#include "apps/flysim/options/readout_option.hpp"

#include <algorithm>
#include <charconv>
#include <string>

namespace flysim::app {

std::vector<int64_t> readout_ids(const Options& o, const std::string& key) {
  std::vector<int64_t> ids;
  const std::string& text = o.text(key);
  // Every item between commas, the last one after a final comma too (it is empty).
  for (std::size_t pos = 0; !text.empty() && pos <= text.size();) {
    const std::size_t comma = std::min(text.find(',', pos), text.size());
    // "ID, ID" as people write lists: spaces around an item are not part of it.
    std::string item = text.substr(pos, comma - pos);
    item.erase(0, std::min(item.find_first_not_of(' '), item.size()));
    item.erase(item.find_last_not_of(' ') + 1);
    int64_t id = 0;
    const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), id);
    if (item.empty() || ec != std::errc() || end != item.data() + item.size() || id <= 0)
      o.reject(key, "has '" + item + "'; expected root IDs (positive integers) separated by commas");
    if (std::find(ids.begin(), ids.end(), id) != ids.end())
      o.reject(key, "lists root ID " + item + " twice");
    ids.push_back(id);
    pos = comma + 1;
  }
  return ids;
}

std::vector<int64_t> readouts_in(const Options& o, const std::vector<int64_t>& ids, const Network& net, const std::string& key) {
  std::vector<int64_t> present;
  for (int64_t id : ids) {
    if (std::find(net.root_ids.begin(), net.root_ids.end(), id) != net.root_ids.end())
      present.push_back(id);
    else if (o.given(key))
      o.reject(key, "lists root ID " + std::to_string(id) + ", which is not in the network (" + net.short_description() + ")");
  }
  return present;
}

std::vector<uint32_t> readout_indices(const std::vector<int64_t>& present, const Network& net) {
  std::vector<uint32_t> indices;
  for (const int64_t id : present)
    indices.push_back(static_cast<uint32_t>(std::find(net.root_ids.begin(), net.root_ids.end(), id) - net.root_ids.begin()));
  return indices;
}

}  // namespace flysim::app
