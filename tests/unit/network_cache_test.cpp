// The binary network cache: round trip, stale keys, damaged files, atomic writes.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "model/errors.hpp"
#include "model/generator.hpp"
#include "io/network_cache.hpp"
#include "io/network_source.hpp"
#include "test_support.hpp"

namespace flysim::test {
namespace {

namespace fs = std::filesystem;

class NetworkCache : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("flysim_cache_test_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    GeneratorParams p;
    for (int64_t i = 0; i < 2000; ++i) p.root_ids.push_back(5000 + i);
    p.connections = 40'000;
    p.synapses = 144'000;
    p.max_out_degree = p.max_in_degree = 800;
    p.max_synapses_per_connection = 300;
    net_ = generate_network(p);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  // The message of the input_error `load` throws ("" when it does not throw one).
  static std::string load_error(const std::string& file, const std::string& key) {
    try {
      load_network_cache(file, key);
    } catch (const input_error& e) {
      return e.what();
    }
    return "";
  }

  fs::path dir_;
  Network net_;
};

TEST_F(NetworkCache, RoundTripIsIdentical) {
  save_network_cache(net_, path("net.fsnet"), "key A");
  const std::optional<Network> loaded = load_network_cache(path("net.fsnet"), "key A");
  ASSERT_TRUE(loaded);
  EXPECT_EQ(loaded->content_hash(), net_.content_hash());
  EXPECT_EQ(loaded->description, net_.description);
  EXPECT_EQ(loaded->out_offsets, net_.out_offsets);
}

TEST_F(NetworkCache, MissingFileOrOtherKeyIsStale) {
  EXPECT_FALSE(load_network_cache(path("absent.fsnet"), "key A"));
  save_network_cache(net_, path("net.fsnet"), "key A");
  EXPECT_FALSE(load_network_cache(path("net.fsnet"), "key B"));
  EXPECT_FALSE(load_network_cache(path("net.fsnet"), "key A longer"));
}

TEST_F(NetworkCache, TruncatedFileIsAnErrorNamingIt) {
  save_network_cache(net_, path("net.fsnet"), "key A");
  fs::resize_file(path("net.fsnet"), fs::file_size(path("net.fsnet")) - 10);
  EXPECT_NE(load_error(path("net.fsnet"), "key A").find(path("net.fsnet") + ": network cache is truncated"), std::string::npos);
  fs::resize_file(path("net.fsnet"), 20);
  EXPECT_NE(load_error(path("net.fsnet"), "key A").find(path("net.fsnet")), std::string::npos);
}

TEST_F(NetworkCache, FlippedByteFailsTheChecksum) {
  save_network_cache(net_, path("net.fsnet"), "key A");
  const auto size = fs::file_size(path("net.fsnet"));
  std::fstream file(path("net.fsnet"), std::ios::in | std::ios::out | std::ios::binary);
  file.seekg(static_cast<std::streamoff>(size - 1000));
  char byte = 0;
  file.read(&byte, 1);
  byte = static_cast<char>(byte ^ 0x10);
  file.seekp(static_cast<std::streamoff>(size - 1000));
  file.write(&byte, 1);
  file.close();
  EXPECT_NE(load_error(path("net.fsnet"), "key A").find("checksum"), std::string::npos);
}

TEST_F(NetworkCache, FailedWriteLeavesNoFile) {
  EXPECT_THROW(save_network_cache(net_, path("no/such/dir/net.fsnet"), "key A"), input_error);
  EXPECT_FALSE(fs::exists(path("no/such/dir/net.fsnet")));
  // Renaming over a directory fails after the data is written: the temporary goes too.
  fs::create_directory(path("occupied"));
  EXPECT_THROW(save_network_cache(net_, path("occupied"), "key A"), input_error);
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1);
}

TEST_F(NetworkCache, FileKeyChangesWhenAFileChanges) {
  { std::ofstream(path("a.csv")) << "1,2,3\n"; }
  const std::string before = file_source_key({path("a.csv")});
  EXPECT_EQ(file_source_key({path("a.csv")}), before);
  { std::ofstream(path("a.csv"), std::ios::app) << "4,5,6\n"; }
  EXPECT_NE(file_source_key({path("a.csv")}), before);
  EXPECT_THROW(file_source_key({path("absent.csv")}), input_error);
}

// The cache is shared by content: the same files in two folders load once, and each load
// names the files it was given, not the first loader's.
TEST_F(NetworkCache, ACachedNetworkIsNamedByTheFilesGivenNow) {
  for (const char* folder : {"a", "b"}) {
    fs::create_directories(path(folder));
    for (const char* file : {"neurons.csv", "connectivity.csv"})
      fs::copy_file(data_path(std::string("net2000/") + file), path(std::string(folder) + "/" + file));
  }
  const auto source_in = [&](const std::string& folder) {
    NetworkSource s;
    s.neurons = path(folder + "/neurons.csv");
    s.connectivity = path(folder + "/connectivity.csv");
    s.cache_dir = path("cache");
    return s;
  };
  std::vector<std::string> logs;
  const auto log = [&](const std::string& line) { logs.push_back(line); };
  const auto first = obtain_network(source_in("a"), log);
  const auto second = obtain_network(source_in("b"), log);
  EXPECT_NE(logs.back().find("from cache"), std::string::npos) << logs.back();
  EXPECT_EQ(first->description, "FlyWire CSV " + path("a/connectivity.csv"));
  EXPECT_EQ(second->description, "FlyWire CSV " + path("b/connectivity.csv"));
  EXPECT_EQ(first->content_hash(), second->content_hash());
}

}  // namespace
}  // namespace flysim::test
