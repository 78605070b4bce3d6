// The small real connectomes (data/) and the edge-list rules (model/GENERATOR.md, "Edge lists").
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "io/edge_list.hpp"
#include "io/flywire_csv.hpp"
#include "model/errors.hpp"
#include "test_support.hpp"

namespace flysim::test {
namespace {

namespace fs = std::filesystem;

const std::string kMaggotEdges = data_path("../../data/maggot_subset_edgelist.csv");
const std::string kMaggotNodes = data_path("../../data/maggot_subset_nodes.csv");
const std::string kWormEdges = data_path("../../data/herm_chem_edgelist.csv");

// What the file says, counted independently of the loader: rows, synapses, self-loops, IDs.
struct FileCounts {
  std::size_t rows = 0, self_loops = 0;
  uint64_t synapses = 0;
  std::set<std::string> ids;
};

FileCounts count_file(const std::string& path) {
  FileCounts c;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    std::stringstream fields(line);
    std::string pre, post, count;
    std::getline(fields, pre, ',');
    std::getline(fields, post, ',');
    std::getline(fields, count, ',');
    ++c.rows;
    c.self_loops += pre == post;
    c.synapses += std::stoull(count);
    c.ids.insert(pre);
    c.ids.insert(post);
  }
  return c;
}

std::size_t self_connections(const Network& net) {
  std::size_t loops = 0;
  for (std::size_t i = 0; i < net.neuron_count(); ++i)
    for (uint64_t e = net.out_offsets[i]; e < net.out_offsets[i + 1]; ++e) loops += net.out_targets[e] == i;
  return loops;
}

TEST(EdgeList, MaggotLoadsWithItsNodes) {
  const FileCounts file = count_file(kMaggotEdges);
  const Network net = load_edge_list(kMaggotEdges, kMaggotNodes, SignRule{});
  EXPECT_EQ(net.neuron_count(), 1240u);
  EXPECT_EQ(net.connection_count(), file.rows);
  EXPECT_EQ(net.synapse_count(), file.synapses);
  EXPECT_EQ(self_connections(net), file.self_loops);  // self-loops are kept
  EXPECT_TRUE(std::is_sorted(net.root_ids.begin(), net.root_ids.end()));
  // Without the nodes file the neurons are those of the edge list: here the same.
  EXPECT_EQ(load_edge_list(kMaggotEdges, "", SignRule{}).content_hash(), net.content_hash());
}

TEST(EdgeList, WormNamesGetStableIds) {
  const FileCounts file = count_file(kWormEdges);
  std::vector<std::string> names;
  const Network net = load_edge_list(kWormEdges, "", SignRule{}, &names);
  EXPECT_EQ(net.neuron_count(), file.ids.size());
  EXPECT_EQ(net.connection_count(), file.rows);
  EXPECT_EQ(net.synapse_count(), file.synapses);
  EXPECT_EQ(self_connections(net), file.self_loops);
  ASSERT_EQ(names, std::vector<std::string>(file.ids.begin(), file.ids.end()));  // byte order
  for (std::size_t k = 0; k < net.neuron_count(); ++k) EXPECT_EQ(net.root_ids[k], static_cast<int64_t>(k + 1));
}

TEST(EdgeList, SignsFollowTheSeededRulePerPresynapticNeuron) {
  const SignRule rule{0.4, 7};
  const Network net = load_edge_list(kMaggotEdges, kMaggotNodes, rule);
  std::size_t inhibitory = 0;
  for (std::size_t i = 0; i < net.neuron_count(); ++i) {
    inhibitory += is_inhibitory(rule, net.root_ids[i]);
    for (uint64_t e = net.out_offsets[i]; e < net.out_offsets[i + 1]; ++e)
      ASSERT_EQ(net.out_weights[e] < 0, is_inhibitory(rule, net.root_ids[i]));
  }
  EXPECT_NEAR(static_cast<double>(inhibitory) / net.neuron_count(), 0.4, 0.05);
  EXPECT_EQ(load_edge_list(kMaggotEdges, kMaggotNodes, rule).content_hash(), net.content_hash());
  EXPECT_NE(load_edge_list(kMaggotEdges, kMaggotNodes, SignRule{0.4, 8}).content_hash(), net.content_hash());
  const Network excitatory = load_edge_list(kMaggotEdges, kMaggotNodes, SignRule{0.0, 7});
  EXPECT_TRUE(std::all_of(excitatory.out_weights.begin(), excitatory.out_weights.end(), [](int32_t w) { return w > 0; }));
  EXPECT_THROW(load_edge_list(kMaggotEdges, kMaggotNodes, SignRule{1.5, 7}), input_error);
}

class EdgeListFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("flysim_edge_list_test_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text) {
    const std::string p = (dir_ / name).string();
    std::ofstream(p) << text;
    return p;
  }
  // The input_error message of loading edges (and nodes), "" when it loads.
  static std::string error_of(const std::string& edges, const std::string& nodes = "") {
    try {
      load_edge_list(edges, nodes, SignRule{});
    } catch (const input_error& e) {
      return e.what();
    }
    return "";
  }
  fs::path dir_;
};

TEST_F(EdgeListFile, FileOrderDoesNotMatter) {
  const auto a = load_edge_list(write("a.csv", "10,20,3\n20,30,1\n30,10,2\n"), "", SignRule{});
  const auto b = load_edge_list(write("b.csv", "30,10,2\n10,20,3\n20,30,1\n"), "", SignRule{});
  EXPECT_EQ(a.content_hash(), b.content_hash());
  EXPECT_EQ(a.root_ids, (std::vector<int64_t>{10, 20, 30}));
}

TEST_F(EdgeListFile, ErrorsNameFileAndLine) {
  const std::string fields = write("fields.csv", "1,2,3\n1,3\n");
  EXPECT_NE(error_of(fields).find(fields + ":2: expected 3 fields"), std::string::npos) << error_of(fields);
  // Each format names the other when given a file of it.
  const std::string flywire = write("flywire.csv", "Presynaptic_ID,Postsynaptic_ID,Presynaptic_Index,Postsynaptic_Index,"
                                                   "Connectivity,Excitatory,Excitatory x Connectivity\n10,20,0,1,3,1,3\n");
  EXPECT_NE(error_of(flywire).find(flywire + ":1: expected 3 fields 'pre,post,count', got 7: this is FlyWire's connectivity "
                                             "table, read with network format flywire"),
            std::string::npos)
      << error_of(flywire);
  const std::string neurons = write("neurons.csv", ",Completed\n10,True\n20,True\n");
  const std::string edges = write("edges.csv", "10,20,3\n");
  try {
    load_flywire(neurons, edges);
    ADD_FAILURE() << "an edge list read as FlyWire's table";
  } catch (const input_error& e) {
    EXPECT_NE(std::string(e.what()).find(edges + ":1: expected FlyWire's connectivity header (Presynaptic_ID, ...), got 3 "
                                                  "fields: an edge list 'pre,post,count' is read with network format edgelist"),
              std::string::npos)
        << e.what();
  }
  const std::string text = write("text.csv", "1,2,3\n1,3,many\n");
  EXPECT_NE(error_of(text).find(text + ":2: column 'count'"), std::string::npos) << error_of(text);
  const std::string zero = write("zero.csv", "1,2,0\n");
  EXPECT_NE(error_of(zero).find(zero + ":1: count 0"), std::string::npos) << error_of(zero);
  const std::string repeated = write("repeated.csv", "1,2,3\n2,1,1\n1,2,4\n");
  EXPECT_NE(error_of(repeated).find(repeated + ":3: connection 1 -> 2 is repeated (first at line 1)"), std::string::npos)
      << error_of(repeated);
  const std::string nodes = write("nodes.csv", "node_id,pair,hemisphere\n1,0,L\n2,0,R\n");
  const std::string unknown = write("unknown.csv", "1,2,3\n2,9,1\n");
  EXPECT_NE(error_of(unknown, nodes).find(unknown + ":2: neuron 9 is not in " + nodes), std::string::npos)
      << error_of(unknown, nodes);
  const std::string twice = write("twice.csv", "node_id\n1\n2\n1\n");
  EXPECT_NE(error_of(write("ok.csv", "1,2,3\n"), twice).find(twice + ":4: node 1 is listed twice"), std::string::npos);
  EXPECT_NE(error_of((dir_ / "absent.csv").string()).find("absent.csv"), std::string::npos);
}

// IDs that pandas wrote as floats ("1.0") would be names, renumbered in byte order, and
// "2" in a stimulus list would mean the neuron named "10.0": refused, naming the fix.
TEST_F(EdgeListFile, IdsWrittenAsFloatsAreRefused) {
  const std::string floats = write("floats.csv", "1.0,2.0,3\n2.0,10.0,1\n");
  EXPECT_EQ(error_of(floats).rfind(floats + ":1: neuron ID '1.0' is a number written as a float", 0), 0u) << error_of(floats);
  const std::string big = write("big.csv", "7.205759406e+17,7.205759407e+17,3\n");
  EXPECT_NE(error_of(big).find("is a number written as a float"), std::string::npos) << error_of(big);
  EXPECT_EQ(error_of(write("names.csv", "ADAL,ADLL,2\nADLL,AIAL,1\n")), "");
}

}  // namespace
}  // namespace flysim::test
