#include "checkpoint/checkpoint_file.hpp"

#include <cereal/archives/portable_binary.hpp>
#include <cereal/types/string.hpp>
#include <cereal/types/vector.hpp>
#include <xxhash.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "model/atomic_file.hpp"
#include "model/errors.hpp"

namespace flysim {

// ---- Cereal serialization of the plain snapshot types (found by ADL).
template <class Archive>
void serialize(Archive& ar, Spike& s) {
  ar(s.step, s.neuron);
}
template <class Archive>
void serialize(Archive& ar, Kick& k) {
  ar(k.step, k.neuron);
}
template <class Archive>
void serialize(Archive& ar, EngineState& s) {
  ar(s.trial, s.next_step, s.v, s.g, s.last_spike, s.pending, s.plastic_weights);
}
template <class Archive>
void serialize(Archive& ar, Traces& t) {
  ar(t.value, t.step);
}
template <class Archive>
void serialize(Archive& ar, PlasticityState& p) {
  ar(p.settings, p.trial, p.pre, p.post, p.learned);
}
template <class Archive>
void serialize(Archive& ar, StimulusPlan& p) {
  ar(p.poisson_neurons, p.kicks, p.seed);
}
template <class Archive>
void serialize(Archive& ar, PlanRecord& p) {
  ar(p.trials, p.steps_per_trial, p.stimulus_rate_Hz, p.stimulus);
}
template <class Archive>
void serialize(Archive& ar, RecorderPosition& r) {
  ar(r.spikes, r.counts);
}
template <class Archive>
void serialize(Archive& ar, Snapshot& s) {
  ar(s.engine, s.plan, s.recorder, s.plasticity);
}
template <class Archive>
void serialize(Archive& ar, CheckpointHeader& h) {
  ar(h.format_version, h.compatibility, h.kernel_version, h.network_hash, h.payload_bytes, h.payload_checksum);
}

namespace {
constexpr char kMagic[8] = {'F', 'L', 'Y', 'S', 'I', 'M', 'C', 'K'};
constexpr std::size_t kMaxHeaderBytes = 1 << 16;

using Out = cereal::PortableBinaryOutputArchive;
using In = cereal::PortableBinaryInputArchive;

std::string encode_payload(const Snapshot& snapshot) {
  std::ostringstream os;
  {
    Out ar(os, Out::Options::LittleEndian());
    ar(snapshot);
  }
  return std::move(os).str();
}

std::string encode_header(const CheckpointHeader& header) {
  std::ostringstream os;
  {
    Out ar(os, Out::Options::LittleEndian());
    ar(header);
  }
  return std::move(os).str();
}

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw input_error(path + ": cannot open the checkpoint: " + std::strerror(errno));
  std::ostringstream ss;
  ss << in.rdbuf();
  return std::move(ss).str();
}

struct Parsed {
  CheckpointHeader header;
  std::string_view payload;
};

// Checks magic and format version, decodes the header, locates the payload.
Parsed parse(const std::string& path, const std::string& bytes) {
  if (bytes.empty() || std::memcmp(bytes.data(), kMagic, std::min(bytes.size(), sizeof kMagic)) != 0)
    throw input_error(path + ": not a flysim checkpoint (wrong magic bytes)");
  if (bytes.size() < sizeof kMagic + 8)
    throw input_error(path + ": truncated checkpoint (" + std::to_string(bytes.size()) + " bytes: the header length is incomplete)");
  uint64_t header_bytes = 0;
  for (int b = 0; b < 8; ++b) header_bytes |= uint64_t(uint8_t(bytes[sizeof kMagic + b])) << (8 * b);
  const std::size_t header_at = sizeof kMagic + 8;
  if (header_bytes > kMaxHeaderBytes || header_at + header_bytes > bytes.size())
    throw input_error(path + ": truncated checkpoint (the header is incomplete)");
  Parsed p;
  try {
    std::istringstream is(bytes.substr(header_at, header_bytes));
    In ar(is, In::Options::LittleEndian());
    ar(p.header.format_version);
    if (p.header.format_version > kCheckpointFormatVersion)
      throw input_error(path + ": checkpoint format version " + std::to_string(p.header.format_version) +
                        " is newer than this flysim reads (" + std::to_string(kCheckpointFormatVersion) + "): upgrade flysim");
    if (p.header.format_version < kCheckpointFormatVersion)
      throw input_error(path + ": checkpoint format version " + std::to_string(p.header.format_version) +
                        " was written by an older flysim (before plasticity); this flysim reads version " +
                        std::to_string(kCheckpointFormatVersion) + ": rerun the simulation to write a new checkpoint");
    ar(p.header.compatibility, p.header.kernel_version, p.header.network_hash, p.header.payload_bytes,
       p.header.payload_checksum);
  } catch (const cereal::Exception&) {
    throw input_error(path + ": corrupt checkpoint header");
  }
  const std::size_t payload_at = header_at + header_bytes;
  if (bytes.size() - payload_at < p.header.payload_bytes)
    throw input_error(path + ": truncated checkpoint (" + std::to_string(bytes.size() - payload_at) + " of " +
                      std::to_string(p.header.payload_bytes) + " payload bytes)");
  p.payload = std::string_view(bytes).substr(payload_at, p.header.payload_bytes);
  return p;
}

Snapshot decode(const std::string& path, const Parsed& p) {
  if (XXH3_64bits(p.payload.data(), p.payload.size()) != p.header.payload_checksum)
    throw input_error(path + ": checkpoint payload checksum mismatch (the file is damaged)");
  Snapshot s;
  try {
    std::istringstream is{std::string(p.payload)};
    In ar(is, In::Options::LittleEndian());
    ar(s);
  } catch (const cereal::Exception& e) {
    throw input_error(path + ": corrupt checkpoint payload: " + e.what());
  }
  return s;
}
}  // namespace

void save_checkpoint(const std::string& path, const Snapshot& snapshot, const CheckpointIdentity& identity) {
  const std::string payload = encode_payload(snapshot);
  CheckpointHeader header;
  header.format_version = kCheckpointFormatVersion;
  header.compatibility = identity.compatibility;
  header.kernel_version = identity.kernel_version;
  header.network_hash = identity.network_hash;
  header.payload_bytes = payload.size();
  header.payload_checksum = XXH3_64bits(payload.data(), payload.size());
  const std::string head = encode_header(header);
  char length[8];
  for (int b = 0; b < 8; ++b) length[b] = static_cast<char>((uint64_t(head.size()) >> (8 * b)) & 0xff);
  AtomicFile out(path);
  out.write(kMagic, sizeof kMagic);
  out.write(length, sizeof length);
  out.write(head.data(), head.size());
  out.write(payload.data(), payload.size());
  out.commit();
}

CheckpointHeader read_checkpoint_header(const std::string& path) { return parse(path, read_all(path)).header; }

Snapshot load_checkpoint_unchecked(const std::string& path, CheckpointHeader* header) {
  const std::string bytes = read_all(path);
  const Parsed p = parse(path, bytes);
  if (header) *header = p.header;
  return decode(path, p);
}

void verify_identity(const std::string& path, const CheckpointHeader& header, const CheckpointIdentity& expected) {
  if (header.network_hash != expected.network_hash)
    throw input_error(path + ": checkpoint of another network (hash " + std::to_string(header.network_hash) +
                      ", this run's network " + std::to_string(expected.network_hash) + ")");
  if (header.kernel_version != expected.kernel_version)
    throw input_error(path + ": kernel version differs: checkpoint '" + header.kernel_version + "', this flysim '" +
                      expected.kernel_version + "'");
  if (header.compatibility != expected.compatibility)
    throw input_error(path + ": compatibility string differs (model parameters or state layout): checkpoint '" +
                      header.compatibility + "', this run '" + expected.compatibility + "'");
}

Snapshot load_checkpoint(const std::string& path, const CheckpointIdentity& expected) {
  const std::string bytes = read_all(path);
  const Parsed p = parse(path, bytes);
  Snapshot snapshot = decode(path, p);
  verify_identity(path, p.header, expected);
  return snapshot;
}

}  // namespace flysim
