#pragma once
// A binary copy of a Network, so that loading the FlyWire-scale network a second time
// takes a fraction of a second instead of a CSV parse or a generation. Layout:
// model/GENERATOR.md, "Network cache".
#include <optional>
#include <string>
#include <vector>

#include "model/network.hpp"

namespace flysim {

// Writes net atomically (io/atomic_file.hpp): a header (magic, format version, the
// source key, counts) and an XXH3 checksum of the payload.
void save_network_cache(const Network& net, const std::string& path, const std::string& source_key);

// std::nullopt when the file is missing or was made from another source key or format
// version (a stale cache is simply rebuilt); throws input_error naming the file when it
// is truncated, malformed or its checksum fails.
std::optional<Network> load_network_cache(const std::string& path, const std::string& source_key);

// A key for file inputs: the size and XXH3-64 of each file's content, so any edit (even
// one that keeps the size and the modification time) misses the cache, and a moved or
// copied file still hits it; hashing the content costs little against parsing it.
// Throws input_error when a file is missing or not a regular file.
std::string file_source_key(const std::vector<std::string>& paths);

}  // namespace flysim
