#pragma once
// Shared by the checkpoint tests: snapshots that look like a run, and the file layout
// of checkpoint/README.md as the tests see it (to damage a file, or to damage it and
// then recompute its checksums so that the damage reaches the decoder).
#include <cstdint>
#include <memory>
#include <string>

#include "checkpoint/checkpoint_file.hpp"

namespace flysim::test {

// A snapshot that looks like a run in its second trial (step 5004 of 3 x 10000, delay
// 18): v spread between reset and threshold, some conductance, recent spikes, a delay
// ring with `pending` spikes, counts, plastic weights and traces.
Snapshot realistic_snapshot(std::size_t neurons, std::size_t pending, uint64_t seed);

// Every field equal (gtest expectations, one per part).
void expect_same(const Snapshot& a, const Snapshot& b);

// Little-endian unsigned integers of `bytes` bytes at `at`.
uint64_t le_get(const std::string& bytes, std::size_t at, int width);
void le_put(std::string& bytes, std::size_t at, int width, uint64_t value);

// Offsets of the format: H (the header archive's length), where the header checksum
// is (16 + H), and where the payload starts (24 + H).
uint64_t header_length(const std::string& bytes);
std::size_t header_checksum_at(const std::string& bytes);
std::size_t payload_at(const std::string& bytes);

// The bytes of `file`, a checkpoint of the current format whose stimulus has neither
// groups nor silenced neurons, as format 4 wrote them: without the 17 bytes (two empty
// lists, the silence mode) that follow the stimulus's seed; `seed_end` is where the
// seed's bytes end in the payload of the current format.
std::string as_format4(std::string bytes, std::size_t seed_end);
// Where the stimulus seed's bytes end in the payload of `snapshot` saved at `path`
// (found by saving it with two seeds and comparing).
std::size_t stimulus_seed_end(Snapshot snapshot, const std::string& path);

// Recomputes the header checksum of `bytes` as it stands (magic, length, header).
void reseal_header(std::string& bytes);
// Sets the header's payload_bytes and payload_checksum (its last two fields) to what
// follows the header checksum, then reseals the header: damage made before is then
// only caught by decoding.
void reseal_all(std::string& bytes);

}  // namespace flysim::test

namespace flysim::test {

// Opens the writing end of a FIFO after `timeout_s` unless destroyed first, so that a
// reader that blocks on the FIFO (what the test guards against) gets EOF and the test fails instead of
// hanging forever.
class FifoUnblocker {
 public:
  FifoUnblocker(std::string fifo, double timeout_s);
  ~FifoUnblocker();
  FifoUnblocker(const FifoUnblocker&) = delete;
  FifoUnblocker& operator=(const FifoUnblocker&) = delete;
  // Stops waiting; true when a reader was blocked on the FIFO and had to be released.
  bool released_a_reader();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace flysim::test
