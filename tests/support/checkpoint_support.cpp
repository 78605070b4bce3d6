#include "checkpoint_support.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>
#include <xxhash.h>

#include <atomic>
#include <chrono>
#include <random>
#include <thread>

#include "scratch_dir.hpp"
#include "model/lif_constants.hpp"

namespace flysim::test {

Snapshot realistic_snapshot(std::size_t neurons, std::size_t pending, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> v(-60.0, -45.0), g(0.0, 3.0);
  Snapshot s;
  s.engine.trial = 1;
  s.engine.next_step = 5004;
  s.engine.v.resize(neurons);
  s.engine.g.resize(neurons);
  s.engine.last_spike.resize(neurons);
  for (std::size_t i = 0; i < neurons; ++i) {
    s.engine.v[i] = v(rng);
    s.engine.g[i] = rng() % 4 == 0 ? g(rng) : 0.0;
    s.engine.last_spike[i] = rng() % 10 == 0 ? static_cast<int32_t>(rng() % 5004) : kNeverSpiked;
  }
  for (std::size_t k = 0; k < pending; ++k)
    s.engine.pending.push_back({static_cast<int32_t>(4986 + k * 18 / pending), static_cast<uint32_t>(rng() % neurons)});
  s.plan.trials = 3;
  s.plan.steps_per_trial = 10000;
  s.plan.stimulus_rate_Hz = 150.0;
  for (uint32_t i = 0; i < 21; ++i) s.plan.stimulus.poisson_neurons.push_back(static_cast<uint32_t>(i * 97 % neurons));
  for (int32_t step = 0; step < 200; step += 3) s.plan.stimulus.kicks.push_back({step, static_cast<uint32_t>(step % neurons)});
  s.plan.stimulus.seed = 0xfeedfacecafebeefULL;
  s.recorder.counts.assign(neurons, 0);
  for (std::size_t i = 0; i < neurons; i += 7) {
    s.recorder.counts[i] = rng() % 50;
    s.recorder.spikes += s.recorder.counts[i];
  }
  s.engine.plastic_weights = {12, -7, 30000, -32768, 0};
  s.plasticity.settings = "stdp test";
  s.plasticity.trial = 2;
  s.plasticity.pre = empty_traces(neurons);
  s.plasticity.post = empty_traces(neurons);
  s.plasticity.pre.value[1 % neurons] = 0.25;
  s.plasticity.pre.step[1 % neurons] = 4980;
  s.plasticity.post.value[2 % neurons] = 1.0000000000000002;
  s.plasticity.post.step[2 % neurons] = 4985;
  s.plasticity.learned = {13, -6, 29999, -32767, 1};
  return s;
}

void expect_same(const Snapshot& a, const Snapshot& b) {
  EXPECT_EQ(a.engine, b.engine);
  EXPECT_EQ(a.plan, b.plan);
  EXPECT_EQ(a.recorder, b.recorder);
  EXPECT_EQ(a.plasticity, b.plasticity);
  EXPECT_EQ(a.batch, b.batch);
  EXPECT_EQ(a.later_trials, b.later_trials);
}

uint64_t le_get(const std::string& bytes, std::size_t at, int width) {
  uint64_t value = 0;
  for (int b = 0; b < width; ++b) value |= uint64_t(uint8_t(bytes.at(at + b))) << (8 * b);
  return value;
}

void le_put(std::string& bytes, std::size_t at, int width, uint64_t value) {
  for (int b = 0; b < width; ++b) bytes.at(at + b) = static_cast<char>((value >> (8 * b)) & 0xff);
}

uint64_t header_length(const std::string& bytes) { return le_get(bytes, 8, 8); }
std::size_t header_checksum_at(const std::string& bytes) { return 16 + header_length(bytes); }
std::size_t payload_at(const std::string& bytes) { return header_checksum_at(bytes) + 8; }

void reseal_header(std::string& bytes) {
  const std::size_t at = header_checksum_at(bytes);
  le_put(bytes, at, 8, XXH3_64bits(bytes.data(), at));
}

std::string as_format4(std::string bytes, std::size_t seed_end) {
  bytes.erase(payload_at(bytes) + seed_end, 17);
  le_put(bytes, 17, 4, 4);
  reseal_all(bytes);
  return bytes;
}

std::size_t stimulus_seed_end(Snapshot snapshot, const std::string& path) {
  snapshot.plan.stimulus.seed = 0;
  save_checkpoint(path, snapshot, {"flysim-compat", "kernel", 1});
  const std::string zero = slurp(path);
  snapshot.plan.stimulus.seed = ~uint64_t{0};
  save_checkpoint(path, snapshot, {"flysim-compat", "kernel", 1});
  const std::string ones = slurp(path);
  std::size_t last = 0;
  for (std::size_t at = payload_at(zero); at < zero.size(); ++at)
    if (zero[at] != ones[at]) last = at;
  return last + 1 - payload_at(zero);
}

void reseal_all(std::string& bytes) {
  const std::size_t at = header_checksum_at(bytes);
  const std::size_t payload = at + 8;
  le_put(bytes, at - 16, 8, bytes.size() - payload);
  le_put(bytes, at - 8, 8, XXH3_64bits(bytes.data() + payload, bytes.size() - payload));
  reseal_header(bytes);
}

}  // namespace flysim::test

namespace flysim::test {

struct FifoUnblocker::State {
  std::string fifo;
  std::atomic<bool> done{false};
  std::atomic<bool> released{false};
  std::thread opener;
};

FifoUnblocker::FifoUnblocker(std::string fifo, double timeout_s) : state_(new State{std::move(fifo), {}, {}, {}}) {
  state_->opener = std::thread([s = state_.get(), timeout_s] {
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    while (!s->done && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    // Opening for writing without blocking succeeds only while a reader waits on it.
    if (const int fd = ::open(s->fifo.c_str(), O_WRONLY | O_NONBLOCK); fd >= 0) {
      s->released = true;
      ::close(fd);
    }
  });
}

bool FifoUnblocker::released_a_reader() {
  if (state_->opener.joinable()) {
    state_->done = true;
    state_->opener.join();
  }
  return state_->released;
}

FifoUnblocker::~FifoUnblocker() {
  state_->done = true;
  if (state_->opener.joinable()) state_->opener.join();
}

}  // namespace flysim::test
