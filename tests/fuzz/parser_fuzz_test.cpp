// A deterministic mutation fuzzer for every parser of outside input that lives in
// model/ and apps/ (network CSV, edge lists and their node files, ID lists, kick files,
// config files, the network cache, journals replayed). Checkpoint files and the shard wire format have
// their own fuzzers beside their tests.
//
// Each case mutates a small valid seed file (bit flips, structural bytes, deletions,
// duplications, huge and negative numbers, truncation) with a fixed-seed generator and
// hands it to the parser, which must either accept it or throw flysim::input_error:
// any other exception, a crash or a case slower than kSlowCase fails the test.
// FLYSIM_FUZZ_ITERATIONS sets the cases per parser (bench/fuzz.sh runs many more).
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <random>
#include <set>
#include <sstream>

#include "apps/flysim/options/options.hpp"
#include "apps/flysim/service/control_json.hpp"
#include "apps/flysim/service/replay_journal.hpp"
#include "scratch_dir.hpp"
#include "io/edge_list.hpp"
#include "model/errors.hpp"
#include "io/flywire_csv.hpp"
#include "io/network_cache.hpp"
#include "io/stimulus_files.hpp"
#include "model/stimulus.hpp"
#include "test_support.hpp"

namespace flysim::test {
namespace {

namespace fs = std::filesystem;
constexpr auto kSlowCase = std::chrono::seconds(2);

int iterations() {
  const char* env = std::getenv("FLYSIM_FUZZ_ITERATIONS");
  return env && *env ? std::atoi(env) : 1500;
}

uint64_t fuzz_seed() {
  const char* env = std::getenv("FLYSIM_FUZZ_SEED");
  return env && *env ? std::strtoull(env, nullptr, 10) : 20261202;
}

class Mutator {
 public:
  explicit Mutator(uint64_t seed) : rng_(seed) {}

  std::string mutate(std::string bytes) {
    const int count = 1 + static_cast<int>(below(4));
    for (int k = 0; k < count; ++k) mutate_once(bytes);
    return bytes;
  }

 private:
  uint64_t below(uint64_t n) { return n == 0 ? 0 : rng_() % n; }

  void mutate_once(std::string& b) {
    static const std::vector<std::string> kTokens = {
        ",", "\n", "\r\n", std::string(1, '\0'), "-", " ", "#", "\xEF\xBB\xBF", "\xff", "[", "]", "=", "True", "False",
        "-1", "0", "99999999999999999999", "9223372036854775807", "-9223372036854775808", "2147483648", "1e308", "nan",
        "16385", "720575940660219265", "step,neuron_id", ",Completed", "node_id"};
    const std::size_t at = below(b.size() + 1);
    switch (below(9)) {
      case 0:  // flip a bit
        if (!b.empty()) b[below(b.size())] ^= static_cast<char>(1u << below(8));
        break;
      case 1:  // a structural byte or token
        b.insert(at, kTokens[below(kTokens.size())]);
        break;
      case 2:  // overwrite with a token
        if (!b.empty()) {
          const std::string& t = kTokens[below(kTokens.size())];
          b.replace(below(b.size()), t.size(), t);
        }
        break;
      case 3:  // delete a range
        b.erase(at, below(64) + 1);
        break;
      case 4:  // duplicate a range (repeated rows, IDs, keys)
        if (!b.empty()) {
          const std::size_t from = below(b.size());
          b.insert(at, b.substr(from, below(200) + 1));
        }
        break;
      case 5:  // truncate
        b.resize(below(b.size() + 1));
        break;
      case 6: {  // replace a number with an extreme one
        const std::size_t digit = b.find_first_of("0123456789", at);
        if (digit != std::string::npos) {
          const std::size_t end = b.find_first_not_of("0123456789", digit);
          b.replace(digit, (end == std::string::npos ? b.size() : end) - digit, kTokens[16 + below(9)]);
        }
        break;
      }
      case 7:  // random bytes
        for (uint64_t n = below(8) + 1; n > 0; --n) b.insert(below(b.size() + 1), 1, static_cast<char>(below(256)));
        break;
      default: {  // swap two lines
        const std::size_t a = b.find('\n', at), c = a == std::string::npos ? a : b.find('\n', a + 1);
        if (c != std::string::npos) {
          const std::size_t line_start = b.rfind('\n', at == 0 ? 0 : at - 1);
          const std::size_t s = line_start == std::string::npos ? 0 : line_start + 1;
          std::string first = b.substr(s, a - s), second = b.substr(a + 1, c - a - 1);
          b.replace(s, c - s, second + "\n" + first);
        }
      }
    }
  }

  std::mt19937_64 rng_;
};

class ParserFuzz : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("flysim-fuzz-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  // Parses each seed as it is (a seed the parser refuses fails the test: its mutants
  // would test nothing), then mutates each in turn `iterations()` times, writes it to
  // `file` and parses. Returns how many mutants were accepted (the rest were refused
  // with input_error).
  int fuzz(const std::string& file, const std::vector<std::string>& seeds, const std::function<void()>& parse,
           uint64_t salt) {
    for (std::size_t k = 0; k < seeds.size(); ++k) {
      spit(path(file), seeds[k]);
      try {
        parse();
      } catch (const std::exception& e) {
        ADD_FAILURE() << file << ": seed " << k << " is refused: " << e.what();
        return 0;
      }
    }
    Mutator mutator(fuzz_seed() ^ salt);
    int accepted = 0;
    for (int i = 0; i < iterations(); ++i) {
      const std::string mutant = mutator.mutate(seeds[static_cast<std::size_t>(i) % seeds.size()]);
      spit(path(file), mutant);
      const auto started = std::chrono::steady_clock::now();
      try {
        parse();
        ++accepted;
      } catch (const input_error& e) {
        const std::string what = e.what();
        EXPECT_EQ(what.find('\0'), std::string::npos) << "case " << i << ": a NUL in the message";
      } catch (const std::exception& e) {
        ADD_FAILURE() << "case " << i << " of " << file << ": not an input_error: " << e.what() << "; input kept in "
                      << keep(file, i);
      }
      if (std::chrono::steady_clock::now() - started > kSlowCase)
        ADD_FAILURE() << "case " << i << " of " << file << " took over 2 s; input kept in " << keep(file, i);
      if (HasFailure()) break;
    }
    return accepted;
  }

  // A failing input, copied where the test's folder removal does not reach.
  std::string keep(const std::string& file, int i) const {
    const std::string kept = (fs::temp_directory_path() / ("flysim-fuzz-finding-" + std::to_string(i) + "-" + file)).string();
    fs::copy_file(path(file), kept, fs::copy_options::overwrite_existing);
    return kept;
  }

  // The first `n` neurons of net2000 and the connections among them.
  std::pair<std::string, std::string> small_flywire(std::size_t n) const {
    std::istringstream neurons(slurp(data_path("net2000/neurons.csv")));
    std::string line, neuron_text;
    for (std::size_t k = 0; k <= n && std::getline(neurons, line); ++k) neuron_text += line + "\n";
    std::istringstream rows(slurp(data_path("net2000/connectivity.csv")));
    std::getline(rows, line);
    std::string connectivity = line + "\n";
    while (std::getline(rows, line)) {
      std::vector<std::string> f;
      std::istringstream fields(line);
      for (std::string x; std::getline(fields, x, ',');) f.push_back(x);
      if (std::stoul(f[2]) < n && std::stoul(f[3]) < n) connectivity += line + "\n";
    }
    return {neuron_text, connectivity};
  }

  fs::path dir_;
};

TEST_F(ParserFuzz, FlyWireNeuronsAndConnectivity) {
  const auto [neurons, connectivity] = small_flywire(120);
  spit(path("neurons.csv"), neurons);
  spit(path("connectivity.csv"), connectivity);
  ASSERT_GT(load_flywire(path("neurons.csv"), path("connectivity.csv")).connection_count(), 10u);
  fuzz("connectivity.csv", {connectivity}, [&] { load_flywire(path("neurons.csv"), path("connectivity.csv")); }, 1);
  spit(path("connectivity.csv"), connectivity);  // the last connectivity mutant is not the neurons' partner
  fuzz("neurons.csv", {neurons}, [&] { load_flywire(path("neurons.csv"), path("connectivity.csv")); }, 2);
}

TEST_F(ParserFuzz, EdgeListsAndNodeFiles) {
  std::istringstream maggot(slurp(data_path("../../data/maggot_subset_edgelist.csv")));
  std::string line, edges, names = "ADAL,ADAR,3\nADAR,AIBL,1\nAIBL,ADAL,2\nAVAL,AVAR,5\n";
  for (int k = 0; k < 60 && std::getline(maggot, line); ++k) edges += line + "\n";
  std::string nodes = "node_id,pair,hemisphere\n";
  std::istringstream edge_rows(edges);
  std::set<std::string> ids;
  while (std::getline(edge_rows, line)) {
    ids.insert(line.substr(0, line.find(',')));
    ids.insert(line.substr(line.find(',') + 1, line.rfind(',') - line.find(',') - 1));
  }
  for (const std::string& id : ids) nodes += id + ",0,L\n";
  spit(path("nodes.csv"), nodes);
  const SignRule rule{0.4, 1};
  fuzz("edges.csv", {edges, names}, [&] { load_edge_list(path("edges.csv"), "", rule); }, 3);
  spit(path("edges.csv"), edges);
  ASSERT_GT(load_edge_list(path("edges.csv"), path("nodes.csv"), rule).connection_count(), 10u);
  fuzz("nodes.csv", {nodes}, [&] { load_edge_list(path("edges.csv"), path("nodes.csv"), rule); }, 4);
}

TEST_F(ParserFuzz, IdListsAndKicks) {
  const auto [neurons, connectivity] = small_flywire(120);
  spit(path("neurons.csv"), neurons);
  spit(path("connectivity.csv"), connectivity);
  const Network net = load_flywire(path("neurons.csv"), path("connectivity.csv"));
  std::string ids = "# stimulated\n", kicks = "step,neuron_id\n";
  for (std::size_t k = 3; k < 40; k += 3) {
    ids += std::to_string(net.root_ids[k]) + "\n";
    kicks += std::to_string(k * 7) + "," + std::to_string(net.root_ids[k]) + "\n";
  }
  fuzz("ids.txt", {ids}, [&] { load_id_list_as_indices(path("ids.txt"), net); }, 5);
  fuzz("kicks.csv", {kicks}, [&] { load_kicks(path("kicks.csv"), net); }, 6);
}

TEST_F(ParserFuzz, ConfigFiles) {
  const std::vector<app::OptionSpec> specs = {
      {"run.duration-ms", app::OptionType::number, "1000", ""},
      {"run.trials", app::OptionType::integer, "1", ""},
      {"network.cache", app::OptionType::boolean, "true", ""},
      {"network.format", app::OptionType::choice, "flywire", "", {"flywire", "edgelist"}},
      {"output.spikes", app::OptionType::path, "", ""},
  };
  const std::string config = "# an experiment\n[run]\nduration-ms = 250\ntrials = 3\n\n[network]\ncache = false\n"
                             "format = edgelist\n[output]\nspikes = 'spikes.csv'\n";
  fuzz("run.ini", {config}, [&] { app::Options::parse(specs, {"--config=" + path("run.ini")}); }, 7);
}

TEST_F(ParserFuzz, NetworkCacheFiles) {
  const auto [neurons, connectivity] = small_flywire(120);
  spit(path("neurons.csv"), neurons);
  spit(path("connectivity.csv"), connectivity);
  const Network net = load_flywire(path("neurons.csv"), path("connectivity.csv"));
  save_network_cache(net, path("seed.fsnet"), "key");
  const std::string seed = slurp(path("seed.fsnet"));
  fuzz("net.fsnet", {seed}, [&] {
    if (const auto loaded = load_network_cache(path("net.fsnet"), "key")) {
      // Anything accepted must be usable: offsets span the targets, targets in range.
      ASSERT_EQ(loaded->out_offsets.size(), loaded->neuron_count() + 1);
      for (uint32_t t : loaded->out_targets) ASSERT_LT(t, loaded->neuron_count());
    }
  }, 8);
}

// A journal (header and command lines) as `run --replay` reads it: every line through
// the control API's checks, numbered and in order.
TEST_F(ParserFuzz, JournalLines) {
  const std::string header =
      R"({"flysim_journal":2,"network_hash":"00000000deadbeef","options":{"run.duration-ms":"forever","stimulus.rate":"150"}})";
  const std::string journal =
      header + "\n" + R"({"seq":1,"trial":0,"step":18,"command":{"action":"swap","body":{"engine":"cpu","threads":2}}})" + "\n" +
      R"({"seq":2,"trial":0,"step":36,"command":{"action":"stimulus","body":{"rate_hz":300.5,"kicks":[{"neuron_id":7,"after_ms":5}]}}})" +
      "\n" + R"({"seq":3,"trial":0,"step":36,"command":{"action":"stimulus","body":{"poisson_ids":[1,2,3]}}})" + "\n" +
      R"({"seq":4,"trial":1,"step":0,"command":{"action":"pause","body":{}}})" + "\n" +
      R"({"seq":5,"trial":1,"step":540,"command":{"action":"stop","body":{}}})" + "\n";
  fuzz("journal.jsonl", {journal, header + "\n"}, [&] { app::read_replay_journal(path("journal.jsonl")); }, 9);
}

// POST bodies as the control API reads them (its parser checks the command's rules too). A refused body is an HTTP 400 (bad_request), never a crash or another error.
TEST_F(ParserFuzz, ControlApiBodies) {
  const std::vector<std::pair<std::string, std::string>> seeds = {
      {"swap", R"({"engine":"cpu","threads":2})"},
      {"stimulus", R"({"rate_hz":120.5,"poisson_ids":[720575940611875570,7],"kicks":[{"neuron_id":7,"after_ms":5}]})"},
      {"stimulus", R"({"group":"bitter","rate_hz":60,"poisson_ids":[1,2,3],"silence_ids":[4,5],"silence_mode":"both"})"},
      {"checkpoint", "{}"}};
  std::vector<std::string> bodies;
  for (const auto& [action, body] : seeds) bodies.push_back(action + "\n" + body);
  const int accepted = fuzz("body.txt", bodies, [&] {
    const std::string text = slurp(path("body.txt"));
    const std::size_t cut = text.find('\n');
    const std::string action = text.substr(0, cut), body = cut == std::string::npos ? "" : text.substr(cut + 1);
    if (action != "swap" && action != "stimulus" && action != "checkpoint") return;
    try {
      command_from_json(action, body);
    } catch (const bad_request& e) {
      throw input_error(e.what());
    }
  }, 11);
  EXPECT_GT(accepted, 0);
}

}  // namespace
}  // namespace flysim::test
