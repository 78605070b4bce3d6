#include "checkpoint/checkpoint_file.hpp"

#include <fmt/format.h>
#include <cereal/archives/portable_binary.hpp>
#include <xxhash.h>

#include <algorithm>
#include <cstring>
#include <istream>
#include <optional>
#include <sstream>
#include <streambuf>

#include "checkpoint/bounded_load.hpp"
#include "io/atomic_file.hpp"
#include "model/errors.hpp"
#include "io/input_file.hpp"

namespace flysim {

// ---- Cereal serialization of the plain snapshot types (found by ADL), from their one
// field list (fields() beside each type). Every vector and string goes through
// bounded(): same bytes as Cereal's own, bounded reads.
using checkpoint_io::bounded_if_sequence;

template <class Archive, class T>
  requires requires(T& x) { fields(x, [](auto&...) {}); }
void serialize(Archive& ar, T& x) {
  fields(x, [&](auto&... member) { ar(bounded_if_sequence(member)...); });
}
// Formats 3 and 4: a stimulus without groups and silencing, and the plan around it.
struct StimulusBeforeGroups {
  StimulusPlan& stimulus;
};
template <class F>
decltype(auto) fields(StimulusBeforeGroups& x, F&& f) {
  return f(x.stimulus.poisson_neurons, x.stimulus.kicks, x.stimulus.seed);
}
struct PlanBeforeGroups {
  TrialPlan& plan;
};
template <class F>
decltype(auto) fields(PlanBeforeGroups& x, F&& f) {
  StimulusBeforeGroups stimulus{x.plan.stimulus};
  return f(x.plan.trials, x.plan.steps_per_trial, x.plan.stimulus_rate_Hz, stimulus);
}
// Format 3's payload: a snapshot of one trial, without the batch fields at the end.
struct SingleTrialSnapshot {
  Snapshot& snapshot;
};
template <class F>
decltype(auto) fields(SingleTrialSnapshot& x, F&& f) {
  PlanBeforeGroups plan{x.snapshot.plan};
  return f(x.snapshot.engine, plan, x.snapshot.recorder, x.snapshot.plasticity);
}
// Format 4's payload: a batch, with the stimulus before groups.
struct BatchSnapshotBeforeGroups {
  Snapshot& snapshot;
};
template <class F>
decltype(auto) fields(BatchSnapshotBeforeGroups& x, F&& f) {
  PlanBeforeGroups plan{x.snapshot.plan};
  return f(x.snapshot.engine, plan, x.snapshot.recorder, x.snapshot.plasticity, x.snapshot.batch,
           x.snapshot.later_trials);
}
template <class Archive>
void serialize(Archive& ar, CheckpointHeader& h) {
  ar(h.format_version, checkpoint_io::bounded(h.compatibility), checkpoint_io::bounded(h.kernel_version), h.network_hash, h.payload_bytes,
     h.payload_checksum);
}

namespace {
constexpr char kMagic[8] = {'F', 'L', 'Y', 'S', 'I', 'M', 'C', 'K'};
constexpr std::size_t kPrefixBytes = sizeof kMagic + 8;  // magic, header length
constexpr std::size_t kSumBytes = 8;                      // an XXH3-64 checksum
constexpr std::size_t kMaxHeaderBytes = 1 << 16;
// The header archive's byte-order flag and format version, the least it can hold.
constexpr std::size_t kMinHeaderBytes = 1 + 4;

using Out = cereal::PortableBinaryOutputArchive;
using In = cereal::PortableBinaryInputArchive;

// The little-endian unsigned integer of type T at byte `at` (inside `bytes`).
template <class T>
T le_at(std::string_view bytes, std::size_t at) {
  T value = 0;
  for (std::size_t b = 0; b < sizeof(T); ++b) value |= T(uint8_t(bytes[at + b])) << (8 * b);
  return value;
}

void append_u64(std::string& out, uint64_t value) {
  for (int b = 0; b < 8; ++b) out += static_cast<char>((value >> (8 * b)) & 0xff);
}

uint64_t checksum(std::string_view bytes) { return XXH3_64bits(bytes.data(), bytes.size()); }

template <class T>
std::string encode(const T& value) {
  std::ostringstream os;
  {
    Out ar(os, Out::Options::LittleEndian());
    ar(value);
  }
  return std::move(os).str();
}

// Reads straight from the file's bytes in memory, and says how many were not read.
class ViewBuffer : public std::streambuf {
 public:
  explicit ViewBuffer(std::string_view bytes) {
    char* begin = const_cast<char*>(bytes.data());  // only read: the get area is never written
    setg(begin, begin, begin + bytes.size());
  }
  std::size_t left() const { return static_cast<std::size_t>(egptr() - gptr()); }
};

// Decodes one archive that must fill `bytes` exactly; the cereal::Exception of a
// short read, or "N bytes left after ...", is the caller's to report.
template <class T>
void decode_exactly(std::string_view bytes, T& into, const char* what) {
  ViewBuffer buffer(bytes);
  std::istream is(&buffer);
  {
    In ar(is, In::Options::LittleEndian());
    ar(into);
  }
  if (buffer.left() != 0) throw cereal::Exception(std::to_string(buffer.left()) + " bytes left after the " + what);
}

input_error damaged(const std::string& path, const std::string& why) {
  return input_error(path + ": checkpoint is damaged (" + why + ")");
}

// The version of a file in an older format (magic, length, header, payload: no header
// checksum), when the whole file is consistent with it, so that a damaged file of this
// format is never mistaken for an old one. `header_bytes` is within the file.
std::optional<uint32_t> older_format_version(std::string_view bytes, std::size_t header_bytes) {
  CheckpointHeader h;
  try {
    decode_exactly(bytes.substr(kPrefixBytes, header_bytes), h, "header");
  } catch (const cereal::Exception&) {
    return std::nullopt;
  }
  const std::size_t payload_at = kPrefixBytes + header_bytes;
  if (h.format_version >= kOldestReadableCheckpointFormat || bytes.size() - payload_at != h.payload_bytes ||
      checksum(bytes.substr(payload_at)) != h.payload_checksum)
    return std::nullopt;
  return h.format_version;
}

struct Parsed {
  CheckpointHeader header;
  std::string_view payload;
};

// Magic, header length, then the header checksum, before any header field is read;
// then the format version, the header, and the file's size against it.
Parsed parse(const std::string& path, std::string_view bytes) {
  if (bytes.empty() || std::memcmp(bytes.data(), kMagic, std::min(bytes.size(), sizeof kMagic)) != 0)
    throw input_error(path + ": not a flysim checkpoint (wrong magic bytes)");
  if (bytes.size() < kPrefixBytes)
    throw damaged(path, "truncated: " + std::to_string(bytes.size()) + " bytes, the header length is incomplete");
  const uint64_t header_bytes = le_at<uint64_t>(bytes, sizeof kMagic);
  if (header_bytes < kMinHeaderBytes || header_bytes > kMaxHeaderBytes)
    throw damaged(path, "header length " + std::to_string(header_bytes) + " is out of range");
  const std::size_t sum_at = kPrefixBytes + header_bytes;
  const std::size_t payload_at = sum_at + kSumBytes;
  if (bytes.size() < payload_at)
    throw damaged(path, "truncated: " + std::to_string(bytes.size()) + " bytes, the header ends at byte " +
                            std::to_string(payload_at));
  if (checksum(bytes.substr(0, sum_at)) != le_at<uint64_t>(bytes, sum_at)) {
    if (const auto older = older_format_version(bytes, header_bytes))
      throw input_error(path + ": checkpoint format version " + std::to_string(*older) +
                        " was written by an older flysim; this flysim reads versions " +
                        std::to_string(kOldestReadableCheckpointFormat) + " to " +
                        std::to_string(kCheckpointFormatVersion) + ": rerun the simulation to write a new checkpoint");
    throw damaged(path, "checksum mismatch in the header");
  }
  const std::string_view header_archive = bytes.substr(kPrefixBytes, header_bytes);
  // The version is the header's first field (after the archive's byte-order flag) and
  // is read alone: a newer format may change everything after it.
  const auto version = le_at<uint32_t>(header_archive, 1);
  if (version > kCheckpointFormatVersion)
    throw input_error(path + ": checkpoint format version " + std::to_string(version) + " is newer than this flysim reads (" +
                      std::to_string(kCheckpointFormatVersion) + "): upgrade flysim");
  // Formats before this one had no header checksum (older_format_version above).
  if (version < kOldestReadableCheckpointFormat)
    throw damaged(path, "format version " + std::to_string(version) + " with a header checksum");
  Parsed p;
  try {
    decode_exactly(header_archive, p.header, "header");
  } catch (const cereal::Exception& e) {
    throw damaged(path, std::string("the header does not decode: ") + e.what());
  }
  const std::size_t present = bytes.size() - payload_at;
  if (present < p.header.payload_bytes)
    throw damaged(path, "truncated: " + std::to_string(present) + " of " + std::to_string(p.header.payload_bytes) +
                            " payload bytes");
  if (present > p.header.payload_bytes)
    throw damaged(path, std::to_string(present - p.header.payload_bytes) + " unexpected bytes after the payload");
  p.payload = bytes.substr(payload_at);
  return p;
}

Snapshot decode(const std::string& path, const Parsed& p) {
  if (checksum(p.payload) != p.header.payload_checksum) throw damaged(path, "checksum mismatch in the payload");
  Snapshot s;
  try {
    if (p.header.format_version == 3) {
      SingleTrialSnapshot single{s};
      decode_exactly(p.payload, single, "snapshot");
    } else if (p.header.format_version == 4) {
      BatchSnapshotBeforeGroups before_groups{s};
      decode_exactly(p.payload, before_groups, "snapshot");
    } else {
      decode_exactly(p.payload, s, "snapshot");
    }
  } catch (const cereal::Exception& e) {
    throw damaged(path, std::string("the payload does not decode: ") + e.what());
  }
  return s;
}

std::string read_checkpoint_file(const std::string& path) { return read_input_file(path, "the checkpoint"); }
}  // namespace

void save_checkpoint(const std::string& path, const Snapshot& snapshot, const CheckpointIdentity& identity) {
  const std::string payload = encode(snapshot);
  CheckpointHeader header;
  header.format_version = kCheckpointFormatVersion;
  header.compatibility = identity.compatibility;
  header.kernel_version = identity.kernel_version;
  header.network_hash = identity.network_hash;
  header.payload_bytes = payload.size();
  header.payload_checksum = checksum(payload);
  const std::string head = encode(header);
  std::string front(kMagic, sizeof kMagic);
  append_u64(front, head.size());
  front += head;
  append_u64(front, checksum(front));
  AtomicFile out(path);
  out.write(front.data(), front.size());
  out.write(payload.data(), payload.size());
  out.commit();
}

CheckpointHeader checkpoint_header_of(const std::string& path, std::string_view bytes) { return parse(path, bytes).header; }

Snapshot decode_checkpoint(const std::string& path, std::string_view bytes, CheckpointHeader* header) {
  const Parsed p = parse(path, bytes);
  if (header) *header = p.header;
  return decode(path, p);
}

CheckpointHeader read_checkpoint_header(const std::string& path) {
  return checkpoint_header_of(path, read_checkpoint_file(path));
}

Snapshot load_checkpoint_unchecked(const std::string& path, CheckpointHeader* header) {
  return decode_checkpoint(path, read_checkpoint_file(path), header);
}

namespace {
// Whether two compatibility strings differ only in their "parameters HASH" field (the
// format kernels/version.cpp's compatibility_string writes).
bool only_parameters_differ(const std::string& a, const std::string& b) {
  const auto without_parameters = [](const std::string& text) {
    const std::size_t at = text.find("; parameters ");
    if (at == std::string::npos) return text;
    return text.substr(0, at) + text.substr(std::min(text.size(), text.find(';', at + 1)));
  };
  return a != b && without_parameters(a) == without_parameters(b);
}
}  // namespace

void verify_identity(const std::string& path, const CheckpointHeader& header, const CheckpointIdentity& expected) {
  if (header.network_hash != expected.network_hash)
    throw input_error(fmt::format("{}: checkpoint of another network (hash {:016x}, this run's network {:016x})", path,
                                  header.network_hash, expected.network_hash));
  if (header.kernel_version != expected.kernel_version)
    throw input_error(path + ": kernel version differs: checkpoint '" + printable(header.kernel_version) +
                      "', this flysim '" + expected.kernel_version + "'");
  if (header.compatibility != expected.compatibility)
    throw input_error(path + ": compatibility string differs (" +
                      (only_parameters_differ(header.compatibility, expected.compatibility)
                           ? "the model parameters: a restore takes its model from the options, so give the model.* "
                             "options of the run that wrote the checkpoint"
                           : "model parameters or state layout") +
                      "): checkpoint '" + printable(header.compatibility) + "', this run '" + expected.compatibility + "'");
}

Snapshot load_checkpoint(const std::string& path, const CheckpointIdentity& expected) {
  CheckpointHeader header;
  Snapshot snapshot = load_checkpoint_unchecked(path, &header);
  verify_identity(path, header, expected);
  return snapshot;
}

}  // namespace flysim
