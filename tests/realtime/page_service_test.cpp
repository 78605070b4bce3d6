// The live page's figures from a real flysim serve: what GET /rates, /spikes
// and /top answer is exactly what the spike file holds for the same bins.
#include <gtest/gtest.h>
#include <httplib.h>

#include <nlohmann/json.hpp>

#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "cli_support.hpp"
#include "test_support.hpp"

namespace flysim::test {
namespace {

using json = nlohmann::json;

json get_json(httplib::Client& client, const std::string& path) {
  const auto r = client.Get(path.c_str());
  EXPECT_TRUE(r) << path;
  if (!r) return {};
  EXPECT_EQ(r->status, 200) << path << ": " << r->body;
  return json::parse(r->body);
}

// Spikes of the spike file per (20 ms bin, root ID) and per bin.
struct FileCounts {
  std::map<std::pair<int64_t, std::string>, uint32_t> by_neuron;
  std::map<int64_t, uint64_t> by_bin;
};

FileCounts count_file(const std::string& csv) {
  FileCounts counts;
  std::istringstream in(csv);
  std::string line;
  std::getline(in, line);  // header: trial,step,t_ms,neuron_id
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string trial, step, t_ms, id;
    std::getline(fields, trial, ',');
    std::getline(fields, step, ',');
    std::getline(fields, t_ms, ',');
    std::getline(fields, id, ',');
    const int64_t bin = std::stoll(step) / 200;  // 20 ms at dt 0.1 ms; one trial
    ++counts.by_neuron[{bin, id}];
    ++counts.by_bin[bin];
  }
  return counts;
}

TEST(PageService, TheWindowCountsExactlyTheSpikesOfTheSpikeFile) {
  ScratchDir dir("flysim-page-svc");
  const std::string net = data_path("net2000");
  BackgroundFlysim serve("serve --network.neurons=" + net + "/neurons.csv --network.connectivity=" + net +
                             "/connectivity.csv --stimulus.ids=" + net + "/stimulated.txt --network.cache-dir=" +
                             dir.path("cache") + " --run.pace=5 --control.port=0 --output.spikes=" + dir.path("live.csv") +
                             " --output.journal=" + dir.path("journal.jsonl") + " --checkpoint.dir=" + dir.path("ck") +
                             " --engine.threads=1",
                         dir.path("serve.out"), dir.path("serve.err"));
  const std::string line = serve.wait_for_output("control API on http://", 60);
  ASSERT_NE(line, "") << slurp(dir.path("serve.err"));
  httplib::Client client("127.0.0.1", std::stoi(line.substr(line.rfind(':') + 1)));
  // An event, not a guess: polled until 60 bins (1.2 s simulated) are complete.
  while (get_json(client, "/rates?since=1000000")["next"].get<int64_t>() < 60)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // the poll's pace, not a guess of a duration
  const auto paused = client.Post("/pause", "{}", "application/json");
  ASSERT_EQ(paused->status, 200);
  // A pause stops issuing; the epochs already in flight (up to twice run.pace-batch-ms) still finish. An event, not a
  // guess: the window holds every bin (200 steps) that the steps up to the one the pause named complete.
  const int64_t paused_at = json::parse(paused->body)["step"].get<int64_t>();
  while (get_json(client, "/rates?since=1000000")["next"].get<int64_t>() < paused_at / 200)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const json rates = get_json(client, "/rates?since=0");
  const json raster = get_json(client, "/spikes?since=0&neurons=1000");
  const json top = get_json(client, "/top?neurons=5");
  ASSERT_EQ(client.Post("/stop", "{}", "application/json")->status, 200);
  ASSERT_EQ(serve.wait(), 0) << slurp(dir.path("serve.err"));

  const FileCounts file = count_file(slurp(dir.path("live.csv")));
  const int64_t next = rates["next"].get<int64_t>();
  EXPECT_EQ(rates["first"], 0);
  EXPECT_EQ(rates["bins"].size(), static_cast<std::size_t>(next));
  EXPECT_TRUE(rates["readout"].is_null()) << "net2000 has no MN9";
  for (const json& bin : rates["bins"]) {
    const int64_t pos = bin["pos"].get<int64_t>();
    EXPECT_EQ(bin["spikes"].get<uint64_t>(), file.by_bin.count(pos) ? file.by_bin.at(pos) : 0u) << "bin " << pos;
  }
  ASSERT_FALSE(raster["rows"].empty());
  ASSERT_EQ(raster["bins"].size(), static_cast<std::size_t>(next)) << "paused: no bin completed in between";
  std::set<std::string> stimulated;
  std::istringstream ids(slurp(net + "/stimulated.txt"));
  for (std::string id; std::getline(ids, id);)
    if (!id.empty()) stimulated.insert(id);
  uint64_t rows_total = 0;
  for (std::size_t row = 0; row < raster["rows"].size(); ++row) {
    const std::string id = raster["rows"][row]["id"].get<std::string>();
    uint64_t in_window = 0;
    for (const json& bin : raster["bins"]) {
      const auto key = std::make_pair(bin["pos"].get<int64_t>(), id);
      const uint32_t want = file.by_neuron.count(key) ? file.by_neuron.at(key) : 0u;
      EXPECT_EQ(bin["counts"][row].get<uint32_t>(), want) << "neuron " << id << " bin " << key.first;
      in_window += want;
    }
    EXPECT_EQ(raster["rows"][row]["spikes"].get<uint64_t>(), in_window) << id;
    EXPECT_EQ(raster["rows"][row]["stimulated"].get<bool>(), stimulated.count(id) == 1) << id;
    rows_total += in_window;
  }
  uint64_t file_total = 0;
  for (const auto& [bin, count] : file.by_bin)
    if (bin < next) file_total += count;
  EXPECT_EQ(rows_total, file_total) << "1000 rows hold every neuron that spiked in net2000's window";
  ASSERT_EQ(top["top"].size(), 5u);
  EXPECT_EQ(top["top"][0]["id"], raster["rows"][0]["id"]);
  EXPECT_EQ(top["window_ms"].get<double>(), next * 20.0);
}

}  // namespace
}  // namespace flysim::test
