#pragma once
// Checkpoint files: magic, header length, a Cereal portable binary header (fixed byte
// order), a checksum of everything before it, then the payload. Layout and refusal
// rules: checkpoint/README.md.
#include <string>
#include <string_view>

#include "model/snapshot.hpp"

namespace flysim {

// The header fields of a checkpoint, readable without the payload.
struct CheckpointHeader {
  uint32_t format_version = 0;
  std::string compatibility;
  std::string kernel_version;
  uint64_t network_hash = 0;
  uint64_t payload_bytes = 0;
  uint64_t payload_checksum = 0;
};

// 2: plastic weights and traces; 3: a checksum over magic, header length and header;
// 4: a batch of trials (Snapshot::batch, later_trials); 5: Poisson groups and silenced
// neurons in the stimulus. Formats 3 (a batch of one trial) and 4 are still read, with
// neither groups nor silencing; older formats are refused by name.
inline constexpr uint32_t kCheckpointFormatVersion = 5;
inline constexpr uint32_t kOldestReadableCheckpointFormat = 3;

// What a checkpoint must match to be restored here.
struct CheckpointIdentity {
  std::string compatibility;
  std::string kernel_version;
  uint64_t network_hash = 0;
};

// Writes atomically: temporary file, fsync, rename, fsync of the folder. A failure
// leaves any earlier file of that name untouched. Throws input_error naming the path.
void save_checkpoint(const std::string& path, const Snapshot& snapshot, const CheckpointIdentity& identity);

// Reads and checks only the header (its checksum, version, and the file's size; not
// the payload's checksum): for `inspect`. Only regular files are read (a FIFO is
// refused at once, io/input_file.hpp).
CheckpointHeader read_checkpoint_header(const std::string& path);

// Reads, verifies (magic, header checksum, format version, size, payload checksum,
// then identity) and decodes.
// Each refusal is an input_error naming the file and what differs.
Snapshot load_checkpoint(const std::string& path, const CheckpointIdentity& expected);

// Throws input_error naming the file and the field when header does not match expected.
void verify_identity(const std::string& path, const CheckpointHeader& header, const CheckpointIdentity& expected);

// Decodes without the identity check (for `inspect` and `run --restore`, which checks
// the identity once its network is loaded), still verifying both checksums.
Snapshot load_checkpoint_unchecked(const std::string& path, CheckpointHeader* header = nullptr);

// The same two on a file's bytes already in memory (`path` only names them in
// messages): what the files go through, and what the mutation fuzzer calls.
CheckpointHeader checkpoint_header_of(const std::string& path, std::string_view bytes);
Snapshot decode_checkpoint(const std::string& path, std::string_view bytes, CheckpointHeader* header = nullptr);

}  // namespace flysim
