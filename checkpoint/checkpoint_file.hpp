#pragma once
// Checkpoint files: a fixed header, then a Cereal portable binary payload (fixed byte
// order). Layout and refusal rules: checkpoint/README.md.
#include <string>

#include "checkpoint/snapshot.hpp"

namespace flysim {

inline constexpr uint32_t kCheckpointFormatVersion = 2;  // 2: plastic weights and traces

// What a checkpoint must match to be restored here.
struct CheckpointIdentity {
  std::string compatibility;
  std::string kernel_version;
  uint64_t network_hash = 0;
};

// Writes atomically: temporary file, fsync, rename, fsync of the folder. A failure
// leaves any earlier file of that name untouched. Throws input_error naming the path.
void save_checkpoint(const std::string& path, const Snapshot& snapshot, const CheckpointIdentity& identity);

// Reads and checks only the header (no checksum of the payload): for `inspect`.
CheckpointHeader read_checkpoint_header(const std::string& path);

// Reads, verifies (magic, format version, checksum, then identity) and decodes.
// Each refusal is an input_error naming the file and what differs.
Snapshot load_checkpoint(const std::string& path, const CheckpointIdentity& expected);

// Throws input_error naming the file and the field when header does not match expected.
void verify_identity(const std::string& path, const CheckpointHeader& header, const CheckpointIdentity& expected);

// Decodes without the identity check (for `inspect`), still verifying the checksum.
Snapshot load_checkpoint_unchecked(const std::string& path, CheckpointHeader* header = nullptr);

}  // namespace flysim
