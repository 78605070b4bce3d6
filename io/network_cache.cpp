#include "io/network_cache.hpp"

#include <sys/stat.h>

#include <fmt/format.h>
#include <xxhash.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>

#include "io/atomic_file.hpp"
#include "model/errors.hpp"
#include "io/input_file.hpp"

namespace flysim {

namespace {

// File layout (host byte order; the byte-order mark refuses a file from another
// kind of machine):
//   Header                      fixed size, below
//   key                         key_bytes
//   description                 description_bytes
//   root_ids      int64  x neurons
//   out_offsets   uint64 x (neurons + 1)
//   out_targets   uint32 x connections
//   out_weights   int32  x connections
// `checksum` is XXH3-64 of everything after the header, key included.
constexpr char kMagic[8] = {'F', 'L', 'Y', 'S', 'N', 'E', 'T', '\0'};
constexpr uint32_t kFormatVersion = 1;
constexpr uint32_t kByteOrderMark = 0x01020304;

struct Header {
  char magic[8];
  uint32_t format_version;
  uint32_t byte_order;
  uint64_t key_bytes;
  uint64_t description_bytes;
  uint64_t neurons;
  uint64_t connections;
  uint64_t checksum;
};

template <class T>
std::size_t bytes_of(const std::vector<T>& v) {
  return v.size() * sizeof(T);
}

uint64_t payload_checksum(const std::string& key, const Network& net) {
  XXH3_state_t* state = XXH3_createState();
  XXH3_64bits_reset(state);
  XXH3_64bits_update(state, key.data(), key.size());
  XXH3_64bits_update(state, net.description.data(), net.description.size());
  XXH3_64bits_update(state, net.root_ids.data(), bytes_of(net.root_ids));
  XXH3_64bits_update(state, net.out_offsets.data(), bytes_of(net.out_offsets));
  XXH3_64bits_update(state, net.out_targets.data(), bytes_of(net.out_targets));
  XXH3_64bits_update(state, net.out_weights.data(), bytes_of(net.out_weights));
  const uint64_t hash = XXH3_64bits_digest(state);
  XXH3_freeState(state);
  return hash;
}

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};

// Reads exactly `bytes` or throws naming the file: a short read means a truncated file.
void read_exactly(std::FILE* file, void* data, std::size_t bytes, const std::string& path) {
  if (bytes && std::fread(data, 1, bytes, file) != bytes)
    throw input_error(path + ": network cache is truncated or unreadable (delete it to rebuild)");
}

template <class T>
void read_vector(std::FILE* file, std::vector<T>& v, std::size_t count, const std::string& path) {
  v.resize(count);
  read_exactly(file, v.data(), bytes_of(v), path);
}

// The CSR must be usable by the engines even if a checksum collision let damage through.
void check_structure(const Network& net, const std::string& path) {
  const std::size_t n = net.neuron_count();
  auto fail = [&](const std::string& what) { throw input_error(path + ": network cache is malformed: " + what); };
  if (net.out_offsets.front() != 0 || net.out_offsets.back() != net.connection_count()) fail("offsets do not span the connections");
  for (std::size_t i = 0; i < n; ++i)
    if (net.out_offsets[i] > net.out_offsets[i + 1]) fail("offsets decrease at neuron " + std::to_string(i));
  for (uint32_t t : net.out_targets)
    if (t >= n) fail("target " + std::to_string(t) + " is out of range");
}

}  // namespace

void save_network_cache(const Network& net, const std::string& path, const std::string& source_key) {
  Header header{};
  std::memcpy(header.magic, kMagic, sizeof kMagic);
  header.format_version = kFormatVersion;
  header.byte_order = kByteOrderMark;
  header.key_bytes = source_key.size();
  header.description_bytes = net.description.size();
  header.neurons = net.neuron_count();
  header.connections = net.connection_count();
  header.checksum = payload_checksum(source_key, net);

  AtomicFile out(path);
  out.write(&header, sizeof header);
  out.write(source_key.data(), source_key.size());
  out.write(net.description.data(), net.description.size());
  out.write(net.root_ids.data(), bytes_of(net.root_ids));
  out.write(net.out_offsets.data(), bytes_of(net.out_offsets));
  out.write(net.out_targets.data(), bytes_of(net.out_targets));
  out.write(net.out_weights.data(), bytes_of(net.out_weights));
  out.commit();
}

std::optional<Network> load_network_cache(const std::string& path, const std::string& source_key) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 && errno == ENOENT) return std::nullopt;
  // Through open_input_file: a FIFO or device planted in the cache folder is refused, never waited on.
  std::unique_ptr<std::FILE, FileCloser> file(open_input_file(path, "the network cache"));
  Header header{};
  read_exactly(file.get(), &header, sizeof header, path);
  if (std::memcmp(header.magic, kMagic, sizeof kMagic) != 0) throw input_error(path + ": is not a flysim network cache");
  if (header.format_version != kFormatVersion || header.byte_order != kByteOrderMark) return std::nullopt;
  if (header.key_bytes != source_key.size()) return std::nullopt;
  std::string key(header.key_bytes, '\0');
  read_exactly(file.get(), key.data(), key.size(), path);
  if (key != source_key) return std::nullopt;

  // The sizes the header promises must be the file's size, before anything large is allocated.
  const uint64_t expected = sizeof header + header.key_bytes + header.description_bytes + header.neurons * sizeof(int64_t) +
                            (header.neurons + 1) * sizeof(uint64_t) +
                            header.connections * (sizeof(uint32_t) + sizeof(int32_t));
  std::error_code ec;
  const uint64_t actual = std::filesystem::file_size(path, ec);
  if (ec || actual != expected || header.neurons > UINT32_MAX || header.description_bytes > (1u << 20))
    throw input_error(path + ": network cache is truncated or malformed: " + std::to_string(actual) + " bytes, the header promises " +
                      std::to_string(expected) + " (delete it to rebuild)");

  Network net;
  net.description.resize(header.description_bytes);
  read_exactly(file.get(), net.description.data(), net.description.size(), path);
  read_vector(file.get(), net.root_ids, header.neurons, path);
  read_vector(file.get(), net.out_offsets, header.neurons + 1, path);
  read_vector(file.get(), net.out_targets, header.connections, path);
  read_vector(file.get(), net.out_weights, header.connections, path);
  if (payload_checksum(key, net) != header.checksum)
    throw input_error(path + ": network cache checksum mismatch: the file is damaged (delete it to rebuild)");
  check_structure(net, path);
  return net;
}

std::string file_source_key(const std::vector<std::string>& paths) {
  std::string key;
  std::vector<char> block(4u << 20);
  for (const std::string& p : paths) {
    std::unique_ptr<std::FILE, FileCloser> file(open_input_file(p, "a network file"));
    XXH3_state_t* state = XXH3_createState();
    XXH3_64bits_reset(state);
    uint64_t size = 0;
    for (std::size_t got; (got = std::fread(block.data(), 1, block.size(), file.get())) > 0;) {
      XXH3_64bits_update(state, block.data(), got);
      size += got;
    }
    const uint64_t hash = XXH3_64bits_digest(state);
    XXH3_freeState(state);
    if (std::ferror(file.get())) throw input_error(p + ": read error: " + std::strerror(errno));
    if (!key.empty()) key += ' ';
    key += fmt::format("size={} xxh3={:016x}", size, hash);
  }
  return key;
}

}  // namespace flysim
