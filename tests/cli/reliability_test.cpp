// The reliability promises (docs/RELIABILITY.md): outputs never destroy what is not theirs,
// nonsense is refused with one line that says where, and a stopped or killed run leaves
// nothing that looks complete and keeps what it recorded.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <thread>

#include "apps/flysim/options/options.hpp"
#include "cli_support.hpp"
#include "io/atomic_file.hpp"
#include "io/csv_reader.hpp"
#include "io/edge_list.hpp"
#include "model/errors.hpp"
#include "io/flywire_csv.hpp"
#include "io/input_file.hpp"
#include "model/lif_params.hpp"
#include "io/network_cache.hpp"
#include "io/stimulus_files.hpp"
#include "model/stimulus.hpp"
#include "io/stream_file.hpp"
#include "test_support.hpp"

namespace flysim::test {
namespace {

namespace fs = std::filesystem;

class Reliability : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("flysim-rel-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::string write(const std::string& name, const std::string& text) const {
    spit(path(name), text);
    return path(name);
  }
  CliResult flysim(const std::string& args) const {
    return run_flysim(args + " --network.cache-dir=" + path("cache"), path("stdout"), path("stderr"));
  }
  std::string net2000(const std::string& extra = "") const {
    return "run --network.neurons=" + data_path("net2000/neurons.csv") + " --network.connectivity=" +
           data_path("net2000/connectivity.csv") + " --stimulus.kicks=" + data_path("net2000/kicks.csv") + " " + extra;
  }
  // Names in the test folder that look like an unfinished temporary file.
  std::vector<std::string> temporaries() const {
    std::vector<std::string> found;
    for (const auto& entry : fs::recursive_directory_iterator(dir_))
      if (entry.path().filename().string().find(".tmp-") != std::string::npos) found.push_back(entry.path().string());
    return found;
  }
  template <class F>
  std::string error_of(F&& f) const {
    try {
      f();
    } catch (const input_error& e) {
      return e.what();
    }
    return "(no error)";
  }
  fs::path dir_;
};

// ---- 1. outputs

TEST_F(Reliability, OutputToAFifoIsWrittenInPlaceNeverReplaced) {
  const std::string fifo = path("pipe");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string received;
  std::thread reader([&] { received = slurp(fifo); });
  // The reader must be there before the writer opens (a FIFO without one is an error):
  // tried until it is (its open blocks, so there is no event to wait on); the bound only
  // keeps a broken test from hanging, and then a writer of our own releases the reader.
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  std::optional<AtomicFile> out;
  while (!out && std::chrono::steady_clock::now() < until) {
    try {
      out.emplace(fifo);
    } catch (const input_error&) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));  // the poll's pace
    }
  }
  if (out) {
    out->write("hello\n", 6);
    out->commit();
  } else {
    ADD_FAILURE() << "the reader never opened the FIFO";
    ::close(::open(fifo.c_str(), O_RDWR | O_NONBLOCK));
  }
  reader.join();
  EXPECT_EQ(received, "hello\n");
  struct stat st {};
  ASSERT_EQ(::stat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode)) << "the FIFO was replaced by a regular file";
}

TEST_F(Reliability, OutputToDevNullKeepsTheDeviceAndDevFullReportsTheError) {
  {
    AtomicFile null("/dev/null");
    null.write("x", 1);
    null.commit();
  }
  struct stat st {};
  ASSERT_EQ(::stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  if (::access("/dev/full", W_OK) != 0) GTEST_SKIP() << "/dev/full is not writable here";
  AtomicFile full("/dev/full");
  full.write("x", 1);
  EXPECT_THROW(full.commit(), input_error);
}

TEST_F(Reliability, OutputThroughASymlinkReplacesTheTargetAndKeepsTheLink) {
  write("real.csv", "old\n");
  fs::create_symlink("real.csv", path("link.csv"));
  AtomicFile out(path("link.csv"));
  out.write("new\n", 4);
  out.commit();
  EXPECT_TRUE(fs::is_symlink(path("link.csv")));
  EXPECT_EQ(slurp(path("real.csv")), "new\n");
}

TEST_F(Reliability, ADanglingSymlinkOutputKeepsTheLinkAndCreatesItsTarget) {
  fs::create_directories(path("sub"));
  fs::create_symlink("real.csv", path("sub/link.csv"));  // relative to the link's folder
  AtomicFile out(path("sub/link.csv"));
  out.write("new\n", 4);
  out.commit();
  EXPECT_TRUE(fs::is_symlink(path("sub/link.csv")));
  EXPECT_EQ(slurp(path("sub/real.csv")), "new\n");
}

// Whether the file opens or a write fails, paced (streamed) or not: one line with the
// file and the reason, exit code 1. Repeated: the recorder's end races the run's answer.
TEST_F(Reliability, ASpikeFileThatCannotBeWrittenEndsTheRunWithItsReason) {
  const std::string fifo = path("no-reader");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::vector<std::pair<std::string, std::string>> outputs = {{fifo, fifo + ": cannot write (a FIFO with no reader)"}};
  if (::access("/dev/full", W_OK) == 0) outputs.push_back({"/dev/full", "/dev/full: write failed: No space left on device"});
  for (const auto& [output, reason] : outputs)
    for (const std::string pacing : {"--run.duration-ms=50", "--run.duration-ms=300 --run.pace=10"})
      for (int k = 0; k < 4; ++k) {
        const CliResult r = flysim(net2000(pacing + " --engine.threads=1 --output.spikes=" + output));
        EXPECT_EQ(r.code, 1) << r.err;
        EXPECT_NE(r.err.find("run failed: " + reason), std::string::npos) << r.err;
        EXPECT_EQ(r.err.find("receiver_down"), std::string::npos) << r.err;
        EXPECT_EQ(r.out.find("unhandled exception"), std::string::npos) << r.out;
      }
}

TEST_F(Reliability, AnUnfinishedOutputLeavesNoFileAndKeepsTheOldOne) {
  write("out.csv", "old\n");
  {
    AtomicFile out(path("out.csv"));
    out.write("half", 4);
    EXPECT_TRUE(temporaries().empty()) << "an unfinished file has a name a killed process would leave";
  }
  EXPECT_EQ(slurp(path("out.csv")), "old\n");
  EXPECT_TRUE(temporaries().empty());
}

// A streamed output (flysim serve's spikes) keeps its buffer between flushes, but not
// the high-water mark of a burst: that would stay resident for as long as the service runs.
TEST_F(Reliability, AStreamedOutputGivesABurstsBufferBackAtTheNextQuietFlush) {
  StreamFile out(path("stream.csv"));
  const std::string line(100, 'x');
  const auto write_lines = [&](int lines) {
    for (int k = 0; k < lines; ++k) out.write(line.data(), line.size());
    out.flush();
  };
  write_lines(100);  // 10 KB a flush: the usual share
  const std::size_t usual = out.buffer_capacity();
  write_lines(100);
  EXPECT_EQ(out.buffer_capacity(), usual) << "a steady stream reallocates at every flush";
  write_lines(10000);  // 1 MB: a burst
  EXPECT_GE(out.buffer_capacity(), 1000000u);
  write_lines(100);
  EXPECT_LE(out.buffer_capacity(), std::max<std::size_t>(StreamFile::kKeptBytes, 4 * 10000));
  out.commit();
  EXPECT_EQ(fs::file_size(path("stream.csv")), 10300u * 100);
}

TEST_F(Reliability, StaleTemporariesOfDeadWritersAreRemovedLiveOnesKept) {
  write("spikes.csv.tmp-999999999", "left by a killed run");
  write("spikes.csv.tmp-" + std::to_string(::getpid()), "ours, still writing");
  write("other.csv.tmp-999999999", "another output's");
  const auto removed = remove_stale_temporaries(dir_.string(), "spikes.csv");
  ASSERT_EQ(removed.size(), 1u);
  EXPECT_FALSE(fs::exists(path("spikes.csv.tmp-999999999")));
  EXPECT_TRUE(fs::exists(path("spikes.csv.tmp-" + std::to_string(::getpid()))));
  EXPECT_TRUE(fs::exists(path("other.csv.tmp-999999999")));
}

TEST_F(Reliability, ARunRemovesAndReportsWhatAKilledRunLeft) {
  write("spikes.csv.tmp-999999999", "left by a killed run");
  const CliResult r = flysim(net2000("--run.duration-ms=20 --output.spikes=" + path("spikes.csv")));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("removed " + path("spikes.csv.tmp-999999999")), std::string::npos) << r.err;
  EXPECT_TRUE(temporaries().empty());
}

TEST_F(Reliability, AnOutputThatIsAnInputIsRefusedAndTheInputKept) {
  const std::string ids = write("ids.txt", slurp(data_path("net2000/stimulated.txt")));
  const std::string kicks = write("kicks.csv", slurp(data_path("net2000/kicks.csv")));
  const std::string config = write("run.ini", "[run]\nduration-ms = 20\n");
  const std::string before_kicks = slurp(kicks), before_ids = slurp(ids), before_config = slurp(config);
  const std::string base = "run --network.neurons=" + data_path("net2000/neurons.csv") +
                           " --network.connectivity=" + data_path("net2000/connectivity.csv") + " --stimulus.kicks=" + kicks +
                           " --config=" + config;
  for (const std::string output : {"output.spikes", "output.rates", "plasticity.weights-out"}) {
    for (const std::string& input : {kicks, config, data_path("net2000/neurons.csv"), data_path("net2000/connectivity.csv")}) {
      const CliResult r = flysim(base + " --" + output + "=" + input);
      expect_one_line_error(r, "option " + output + "=" + input + " is also the input of");
    }
  }
  expect_one_line_error(flysim(base + " --stimulus.ids=" + ids + " --output.rates=" + ids), "option output.rates");
  EXPECT_EQ(slurp(kicks), before_kicks);
  EXPECT_EQ(slurp(ids), before_ids);
  EXPECT_EQ(slurp(config), before_config);
  // The same file under another name (a hard link) is the same file.
  fs::create_hard_link(kicks, path("alias.csv"));
  expect_one_line_error(flysim(base + " --output.spikes=" + path("alias.csv")),
                        "option output.spikes=" + path("alias.csv") + " is also the input of option stimulus.kicks");
  EXPECT_EQ(slurp(kicks), before_kicks);
}

TEST_F(Reliability, GenerateRefusesToOverwriteItsInput) {
  const std::string neurons = write("neurons.csv", slurp(data_path("net2000/neurons.csv")));
  const CliResult r = run_flysim("generate --network.neurons=" + neurons + " --generate.connections=1000 --output.neurons=" +
                                     neurons + " --output.connectivity=" + path("c.csv"),
                                 path("stdout"), path("stderr"));
  expect_one_line_error(r, "option output.neurons=" + neurons + " is also the input of option network.neurons");
  EXPECT_EQ(slurp(neurons), slurp(data_path("net2000/neurons.csv")));
}

TEST_F(Reliability, SweepRefusesToWriteItsTablesOverItsInputs) {
  fs::create_directories(path("out"));
  const std::string connectivity = write("out/trials.csv", slurp(data_path("net2000/connectivity.csv")));
  const std::string ids = write("out/sweep.csv", slurp(data_path("net2000/stimulated.txt")));
  const std::string sweep = "sweep --sweep.plot=false --run.trials=1 --run.duration-ms=20 --network.neurons=" +
                            data_path("net2000/neurons.csv") + " --output.dir=" + path("out") + " --stimulus.ids=" + ids;
  expect_one_line_error(flysim(sweep + " --network.connectivity=" + connectivity),
                        "trials.csv in option output.dir=" + path("out/trials.csv") + " is also the input of option network.connectivity");
  expect_one_line_error(flysim(sweep + " --network.connectivity=" + data_path("net2000/connectivity.csv")),
                        "sweep.csv in option output.dir=" + path("out/sweep.csv") + " is also the input of option stimulus.ids");
  EXPECT_TRUE(same_text(slurp(data_path("net2000/connectivity.csv")), slurp(connectivity)));
  EXPECT_EQ(slurp(ids), slurp(data_path("net2000/stimulated.txt")));
}

TEST_F(Reliability, SweepRefusesARepeatedReadoutOrRate) {
  const std::string sweep = "sweep --sweep.plot=false --run.trials=1 --run.duration-ms=20 --output.dir=" + path("out") +
                            " --network.neurons=" + data_path("net2000/neurons.csv") + " --network.connectivity=" +
                            data_path("net2000/connectivity.csv") + " --stimulus.ids=" + data_path("net2000/stimulated.txt");
  expect_one_line_error(flysim(sweep + " --sweep.readouts=7,8,7"), "command line: option sweep.readouts='7,8,7' lists root ID 7 twice");
  expect_one_line_error(flysim(sweep + " \"--sweep.readouts=7, 8 , 7\""), "command line: option sweep.readouts='7, 8 , 7' lists root ID 7 twice");
  expect_one_line_error(flysim(sweep + " \"--sweep.readouts=7, ,8\""), "command line: option sweep.readouts='7, ,8' has ''");
  expect_one_line_error(flysim(sweep + " --sweep.readouts=7,8,"), "command line: option sweep.readouts='7,8,' has ''");
  expect_one_line_error(flysim(sweep + " --sweep.rates=50,60,50"), "command line: option sweep.rates='50,60,50' lists the rate 50 twice");
  expect_one_line_error(flysim(sweep + " --sweep.rates=50,50.0"), "command line: option sweep.rates='50,50.0' lists the rate 50.0 twice");
  EXPECT_FALSE(fs::exists(path("out/sweep.csv")));
}

TEST_F(Reliability, TwoOutputsOnOnePathAndACheckpointFolderThatIsAnOutputAreRefusedBeforeTheRun) {
  expect_one_line_error(flysim(net2000("--output.spikes=" + path("a.csv") + " --output.rates=" + path("a.csv"))),
                        "option output.rates and option output.spikes both name");
  expect_one_line_error(flysim(net2000("--output.spikes=" + path("ck") + " --checkpoint.every-ms=10 --checkpoint.dir=" +
                                       path("ck"))),
                        "option output.spikes=" + path("ck") + " is the folder of option checkpoint.dir");
  write("file", "x");
  expect_one_line_error(flysim(net2000("--checkpoint.every-ms=10 --checkpoint.dir=" + path("file"))),
                        "option checkpoint.dir=" + path("file") + " exists and is not a folder");
  // Devices take any number of outputs.
  EXPECT_EQ(flysim(net2000("--run.duration-ms=20 --output.spikes=/dev/null --output.rates=/dev/null")).code, 0);
}

// ---- 2. nonsense refused, 8. messages that say where

TEST_F(Reliability, TablesRefuseExtraFieldsEmptyBodiesAndBadFlags) {
  const std::string neurons = data_path("net2000/neurons.csv");
  std::string conn = slurp(data_path("net2000/connectivity.csv"));
  const std::string header = conn.substr(0, conn.find('\n') + 1);
  const std::string first_row = conn.substr(header.size(), conn.find('\n', header.size()) + 1 - header.size());
  EXPECT_NE(error_of([&] { load_flywire(neurons, write("extra.csv", header + first_row.substr(0, first_row.size() - 1) + ",9\n")); })
                .find("extra.csv:2: expected 7 fields"),
            std::string::npos);
  EXPECT_NE(error_of([&] { load_flywire(neurons, write("empty.csv", header)); }).find("no connections after the header"),
            std::string::npos);
  std::string ids = slurp(neurons);
  ids.replace(ids.find("True"), 4, "maybe");
  EXPECT_NE(error_of([&] { load_flywire_neurons(write("maybe.csv", ids)); }).find("maybe.csv:2: column 'Completed': 'maybe'"),
            std::string::npos);
  // A UTF-8 byte-order mark is accepted.
  EXPECT_EQ(load_flywire(neurons, write("bom.csv", "\xEF\xBB\xBF" + header + first_row)).connection_count(), 1u);
  EXPECT_EQ(load_flywire_neurons(write("bomn.csv", "\xEF\xBB\xBF" + slurp(neurons))).size(), 2000u);
}

TEST_F(Reliability, IdAndKickFilesRefuseRowsWithMoreThanTheirFields) {
  const auto net = std::make_shared<Network>(load_flywire(data_path("net2000/neurons.csv"), data_path("net2000/connectivity.csv")));
  const std::string a = std::to_string(net->root_ids[1]), b = std::to_string(net->root_ids[2]);
  EXPECT_NE(error_of([&] { load_id_list_as_indices(write("one_line.txt", a + "," + b + "\n"), *net); })
                .find("one_line.txt:1: expected 1 field (one root ID per line), got 2"),
            std::string::npos);
  EXPECT_NE(error_of([&] { load_id_list_as_indices(write("junk.txt", a + ",junk\n"), *net); }).find("junk.txt:1: expected 1 field"),
            std::string::npos);
  // An ID in quotes (R's write.csv of IDs kept as text) is that ID.
  EXPECT_EQ(load_id_list_as_indices(write("quoted.txt", "\"" + a + "\"\n" + b + "\n"), *net), (std::vector<uint32_t>{1, 2}));
  // A comment may follow the ID; what stands before it is still checked.
  EXPECT_EQ(load_id_list_as_indices(write("named.txt", "# two neurons\n" + a + "  # the first\n" + b + "#second\n"), *net),
            (std::vector<uint32_t>{1, 2}));
  // A column's name above the IDs (pandas' Series.to_csv) is skipped; only on the first line.
  EXPECT_EQ(load_id_list_as_indices(write("header.txt", "flywire_id\n" + a + "\n" + b + "\n"), *net),
            (std::vector<uint32_t>{1, 2}));
  EXPECT_EQ(load_id_list_as_indices(write("quoted_header.txt", "\"x\"\n\"" + a + "\"\n"), *net), (std::vector<uint32_t>{1}));
  EXPECT_NE(error_of([&] { load_id_list_as_indices(write("two_names.txt", "flywire_id\nroot_id\n" + a + "\n"), *net); })
                .find("two_names.txt:2: column 'neuron ID': 'root_id' is not an integer"),
            std::string::npos);
  EXPECT_NE(error_of([&] { load_id_list_as_indices(write("typo.txt", "l" + a.substr(1) + "\n" + b + "\n"), *net); })
                .find("typo.txt:1: column 'neuron ID': 'l" + a.substr(1) + "' is not an integer"),
            std::string::npos)
      << "a mistyped first ID is no column name";
  EXPECT_NE(error_of([&] { load_id_list_as_indices(write("bad.txt", a + "x # typo\n"), *net); })
                .find("bad.txt:1: column 'neuron ID': '" + a + "x' is not an integer"),
            std::string::npos);
  EXPECT_NE(error_of([&] { load_kicks(write("k3.csv", "step,neuron_id\n5," + a + ",7\n"), *net); })
                .find("k3.csv:2: expected 2 fields (as many as the header)"),
            std::string::npos);
  // Columns are found by name: pandas' row numbers and other columns are not read.
  const std::vector<Kick> kicks = load_kicks(write("k_index.csv", ",neuron_id,t_ms,step\n0," + a + ",0.5,5\n1," + b + ",0.7,7\n"), *net);
  ASSERT_EQ(kicks.size(), 2u);
  EXPECT_EQ(kicks[0].step, 5);
  EXPECT_EQ(kicks[0].neuron, 1u);
  EXPECT_EQ(kicks[1].step, 7);
  EXPECT_NE(error_of([&] { load_kicks(write("k0.csv", "step,neuron_id\n"), *net); }).find("no kicks after the header"),
            std::string::npos);
  // A neuron kicked twice at one step: both lines named.
  EXPECT_NE(error_of([&] { load_kicks(write("k2.csv", "step,neuron_id\n5," + a + "\n6," + a + "\n5," + b + "\n5," + a + "\n"), *net); })
                .find("k2.csv:5: neuron " + a + " is kicked twice at step 5 (first at " + path("k2.csv") + ":2;"),
            std::string::npos);
  // Unprintable bytes are shown, not passed through (a NUL would cut the message).
  const std::string nul = error_of([&] { load_id_list_as_indices(write("nul.txt", std::string("12\0" "3\n", 4)), *net); });
  EXPECT_NE(nul.find("'12\\x003'"), std::string::npos) << nul;
}

TEST_F(Reliability, EdgeListBlamesAMisTypedIdOnItsOwnLine) {
  const std::string edges = write("edges.csv", "1,2,3\n2,3,1\n3,x4,2\n");
  const std::string e = error_of([&] { load_edge_list(edges, "", SignRule{0.4, 1}); });
  EXPECT_NE(e.find("edges.csv:3: neuron ID 'x4' is not an integer"), std::string::npos) << e;
}

// Standard output then holds the table alone: the summary goes to stderr.
TEST_F(Reliability, OutputToDevStdoutWritesThroughTheRedirection) {
  const CliResult r = flysim(net2000("--run.duration-ms=20 --output.rates=/dev/stdout"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("neuron_id,index,spikes,rate_hz\n", 0), 0u) << r.out.substr(0, 200);
  EXPECT_EQ(r.out.find("flysim run: done"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("flysim run: done"), std::string::npos) << r.err;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) EXPECT_EQ(std::count(line.begin(), line.end(), ','), 3) << line;
}

// A service whose port is taken says so before it loads anything, and leaves no journal
// behind to refuse the next try.
TEST_F(Reliability, AServiceOnATakenPortLeavesNoJournal) {
  const int taken = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(taken, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  ASSERT_EQ(::bind(taken, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  ASSERT_EQ(::listen(taken, 1), 0);
  ASSERT_EQ(::getsockname(taken, reinterpret_cast<sockaddr*>(&address), &length), 0);
  const std::string port = std::to_string(ntohs(address.sin_port));
  const std::string serve = "serve --network.neurons=" + data_path("net2000/neurons.csv") + " --network.connectivity=" +
                            data_path("net2000/connectivity.csv") + " --stimulus.kicks=" + data_path("net2000/kicks.csv") +
                            " --control.port=" + port + " --output.journal=" + path("journal.jsonl") + " --checkpoint.dir=" +
                            path("ck");
  const CliResult r = flysim(serve);
  ::close(taken);
  expect_one_line_error(r, "command line: option control.port='" + port + "' cannot listen on 127.0.0.1:" + port + ": the port is in use");
  EXPECT_FALSE(fs::exists(path("journal.jsonl")));
  // The port free again: the service listens on it (the check let go of it).
  BackgroundFlysim again(serve + " --network.cache-dir=" + path("cache"), path("again.out"), path("again.err"));
  ASSERT_NE(again.wait_for_output("control API on http://127.0.0.1:" + port, 60), "") << slurp(path("again.err"));
  ASSERT_EQ(run_flysim("ctl stop --control.port=" + port, path("ctl.out"), path("ctl.err")).code, 0) << slurp(path("ctl.err"));
  EXPECT_EQ(again.wait_for(60), 0) << slurp(path("again.err"));
}

TEST_F(Reliability, AStopEndsAServiceWhoseJournalCannotGrow) {
  const std::string serve = "serve --network.neurons=" + data_path("net2000/neurons.csv") + " --network.connectivity=" +
                            data_path("net2000/connectivity.csv") + " --stimulus.kicks=" + data_path("net2000/kicks.csv") +
                            " --control.port=0 --output.spikes=/dev/null --output.journal=" + path("journal.jsonl") +
                            " --network.cache-dir=" + path("cache");
  const auto served_port = [&](BackgroundFlysim& service) {
    const std::string line = service.wait_for_output("control API on http://127.0.0.1:", 60);
    return line.empty() ? std::string() : line.substr(line.rfind(':') + 1);
  };
  const auto stop = [&](const std::string& port) { return run_flysim("ctl stop --control.port=" + port, path("ctl.out"), path("ctl.err")); };
  std::size_t header = 0;
  {
    BackgroundFlysim first(serve, path("first.out"), path("first.err"));
    const std::string port = served_port(first);
    ASSERT_NE(port, "") << slurp(path("first.err"));
    ASSERT_EQ(stop(port).code, 0);
    ASSERT_EQ(first.wait_for(60), 0) << slurp(path("first.err"));
    // The summary is headed by the command that ran.
    EXPECT_NE(slurp(path("first.out")).find("\nflysim serve: stopped\n"), std::string::npos) << slurp(path("first.out"));
    const std::string journal = slurp(path("journal.jsonl"));
    header = journal.find('\n') + 1;
    ASSERT_GT(journal.size(), header) << "the first service journaled its stop";
    fs::remove(path("journal.jsonl"));
  }
  // The same service (the same header) in files of at most the header and 30 bytes: no
  // command fits. SIGXFSZ ignored: a write past the limit fails as on a full disk.
  rlimit saved{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &saved), 0);
  rlimit limited = saved;
  limited.rlim_cur = header + 30;
  const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &limited), 0);
  BackgroundFlysim second(serve, path("second.out"), path("second.err"));
  ::setrlimit(RLIMIT_FSIZE, &saved);
  std::signal(SIGXFSZ, old_handler);
  const std::string port = served_port(second);
  ASSERT_NE(port, "") << slurp(path("second.err"));
  const CliResult paused = run_flysim("ctl pause --control.port=" + port, path("ctl.out"), path("ctl.err"));
  EXPECT_NE(paused.code, 0);
  EXPECT_NE(paused.err.find("cannot append to the journal"), std::string::npos) << paused.err;
  const CliResult stopped = stop(port);
  EXPECT_EQ(stopped.code, 0) << stopped.err;
  EXPECT_EQ(second.wait_for(60), 0) << slurp(path("second.err"));
  EXPECT_EQ(slurp(path("journal.jsonl")).size(), header) << "the journal holds its header, whole";
}

TEST_F(Reliability, ASecondRunIsRefusedTheSpikeFileOfARunningService) {
  const auto serve = [&](const std::string& name) {
    return "serve --network.neurons=" + data_path("net2000/neurons.csv") + " --network.connectivity=" +
           data_path("net2000/connectivity.csv") + " --stimulus.kicks=" + data_path("net2000/kicks.csv") +
           " --control.port=0 --output.spikes=" + path("spikes.csv") + " --output.journal=" + path(name + ".jsonl") +
           " --checkpoint.dir=" + path(name);
  };
  BackgroundFlysim first(serve("first") + " --network.cache-dir=" + path("cache"), path("first.out"), path("first.err"));
  const std::string line = first.wait_for_output("control API on http://127.0.0.1:", 60);
  ASSERT_NE(line, "") << slurp(path("first.err"));
  const CliResult second = flysim(serve("second"));
  expect_one_line_error(second, path("spikes.csv") + ": the spike file (output.spikes) is in use by another flysim process");
  EXPECT_FALSE(fs::exists(path("second.jsonl"))) << "the refused service leaves no journal";
  // Nor may a run replace it at its end.
  const CliResult run = flysim("run --network.neurons=" + data_path("net2000/neurons.csv") + " --network.connectivity=" +
                               data_path("net2000/connectivity.csv") + " --stimulus.kicks=" + data_path("net2000/kicks.csv") +
                               " --run.duration-ms=20 --output.spikes=" + path("spikes.csv"));
  expect_one_line_error(run, path("spikes.csv") + ": the spike file (output.spikes) is in use by another flysim process");
  const std::string port = line.substr(line.rfind(':') + 1);
  ASSERT_EQ(run_flysim("ctl stop --control.port=" + port, path("ctl.out"), path("ctl.err")).code, 0) << slurp(path("ctl.err"));
  EXPECT_EQ(first.wait_for(60), 0) << slurp(path("first.err"));
}

TEST_F(Reliability, ADashIsStandardOutput) {
  const CliResult r = flysim(net2000("--run.duration-ms=20 --output.spikes=- --output.spikes-format=reference"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("t,trial,flywire_id,exp_name\n", 0), 0u) << r.out.substr(0, 200);
  EXPECT_NE(r.out.find(",stdout\n"), std::string::npos) << r.out.substr(0, 200);
  EXPECT_EQ(r.out.find("flysim run: done"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists("-"));
}

TEST_F(Reliability, AMixedSignNeuronIsAcceptedWithAWarningNamingIt) {
  std::string conn = slurp(data_path("net2000/connectivity.csv"));
  const std::string row = "820475940600000023,820475940600019979,0,393,13,1,13\n";
  ASSERT_NE(conn.find(row), std::string::npos);
  conn.replace(conn.find(row), row.size(), "820475940600000023,820475940600019979,0,393,13,-1,-13\n");
  const CliResult r = flysim("run --network.neurons=" + data_path("net2000/neurons.csv") + " --network.connectivity=" +
                             write("mixed.csv", conn) + " --stimulus.kicks=" + data_path("net2000/kicks.csv") +
                             " --run.duration-ms=20");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("neuron 820475940600000023 (index 0) has both excitatory and inhibitory connections"),
            std::string::npos)
      << r.err;
}

TEST_F(Reliability, MixedSignNeuronsAreFound) {
  const auto net = tiny_network(4, {{0, 1, 2}, {0, 2, -1}, {1, 2, 1}, {3, 0, -2}, {3, 1, 4}});
  EXPECT_EQ(mixed_sign_neurons(*net), (std::vector<uint32_t>{0, 3}));
}

TEST_F(Reliability, ModelParametersAreNamedInTheirErrors) {
  LifParams p;
  p.v_reset_mV = p.v_threshold_mV + 1;
  EXPECT_NE(error_of([&] { derive_constants(p); }).find("v_reset"), std::string::npos);
  LifParams tiny;
  tiny.dt_ms = 1e-9;
  const std::string e = error_of([&] { derive_constants(tiny); });
  EXPECT_NE(e.find("with this delay, dt in 0.05625..1.8 ms"), std::string::npos) << e;
  EXPECT_EQ(e.find("t_ref"), std::string::npos) << e;
}

TEST_F(Reliability, OptionsRefuseAKeyGivenTwiceAndAConfigThatIsNotAFile) {
  using app::Options;
  const std::vector<app::OptionSpec> specs = {{"run.duration-ms", app::OptionType::number, "1000", "d"}};
  const auto err = [&](const std::vector<std::string>& args) { return error_of([&] { Options::parse(specs, args); }); };
  EXPECT_NE(err({"--run.duration-ms=5", "--run.duration-ms=6"}).find("set twice"), std::string::npos);
  const std::string both = write("both.ini", "run.duration-ms = 5\n[run]\nduration-ms = 6\n");
  EXPECT_NE(err({"--config=" + both}).find("both.ini:3: option run.duration-ms is set twice (first at " + both + ":1)"),
            std::string::npos);
  const std::string one = write("one.ini", "[run]\nduration-ms = 5\n"), two = write("two.ini", "[run]\nduration-ms = 6\n");
  EXPECT_NE(err({"--config=" + one, "--config=" + two}).find("set twice"), std::string::npos);
  EXPECT_NE(err({"--config=" + dir_.string()}).find("is a directory"), std::string::npos);
  // The command line overrides a config file: documented, not a duplicate.
  EXPECT_EQ(Options::parse(specs, {"--config=" + one, "--run.duration-ms=7"}).number("run.duration-ms"), 7.0);
  const std::string bom = write("bom.ini", "\xEF\xBB\xBF[run]\nduration-ms = 8\n");
  EXPECT_EQ(Options::parse(specs, {"--config=" + bom}).number("run.duration-ms"), 8.0);
}

TEST_F(Reliability, DurationLimitIsTheOneTheMessageStates) {
  const CliResult over = flysim(net2000("--run.duration-ms=1e8"));
  expect_one_line_error(over, "command line: option run.duration-ms='1e8' must lie in 0.1..53687091.2 ms");
  const CliResult under = flysim(net2000("--run.duration-ms=-1"));
  expect_one_line_error(under, "command line: option run.duration-ms='-1' must lie in 0.1..53687091.2 ms");
}

// ---- 3. inputs that are not files

TEST_F(Reliability, AFifoInputIsRefusedAtOnce) {
  const std::string fifo = path("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_NE(error_of([&] { open_input_file(fifo); }).find("is a FIFO"), std::string::npos);
  const auto started = std::chrono::steady_clock::now();
  expect_one_line_error(flysim(net2000("--stimulus.ids=" + fifo)), "command line: option stimulus.ids='" + fifo + "' is a FIFO");
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(20));
}

TEST_F(Reliability, AScreenRefusedAfterItsFolderWasMadeLeavesNeitherItNorItsParents) {
  const std::string bad = write("bad_ids.txt", "12345\n");
  const std::string out = path("new_parent");
  const CliResult r = flysim("screen --network.neurons=" + data_path("net2000/neurons.csv") + " --network.connectivity=" +
                             data_path("net2000/connectivity.csv") + " --stimulus.ids=" + data_path("net2000/stimulated.txt") +
                             " --screen.baseline=true --run.trials=1 --run.duration-ms=10 --output.dir=" + out +
                             "/a/b/ --stimulus.silence=" + bad);
  expect_one_line_error(r, bad + ":1: neuron ID 12345 is not in the network");
  EXPECT_FALSE(fs::exists(out)) << "the parents made for output.dir are removed with it";
  // The path as given: "." taken as it stands, "link/.." through the link, as the kernel resolves it.
  fs::create_directories(path("elsewhere/deep"));
  fs::create_directory_symlink(path("elsewhere/deep"), path("link"));
  for (const std::string dir : {out + "/./a/", path("link") + "/../made"}) {
    SCOPED_TRACE(dir);
    const CliResult again = flysim("screen --network.neurons=" + data_path("net2000/neurons.csv") + " --network.connectivity=" +
                                   data_path("net2000/connectivity.csv") + " --stimulus.ids=" + data_path("net2000/stimulated.txt") +
                                   " --screen.baseline=true --run.trials=1 --run.duration-ms=10 --output.dir=" + dir +
                                   " --stimulus.silence=" + bad);
    expect_one_line_error(again, bad + ":1: neuron ID 12345 is not in the network");
  }
  EXPECT_FALSE(fs::exists(out));
  EXPECT_FALSE(fs::exists(path("elsewhere/made")));
  EXPECT_TRUE(fs::exists(path("elsewhere/deep"))) << "a folder the run did not make stays";
}

TEST_F(Reliability, AJournalThatIsALinkToNothingIsNamed) {
  fs::create_symlink(path("nowhere/j.jsonl"), path("link.jsonl"));
  expect_one_line_error(flysim(net2000("--run.duration-ms=20 --output.journal=" + path("link.jsonl"))),
                        path("link.jsonl") + ": the journal (output.journal) is a symbolic link to a file that does not exist");
}

TEST_F(Reliability, AMissingInputFileIsNamedByItsOptionBeforeTheNetworkLoads) {
  // A typo in an ID file costs no network load: the synthetic network would take seconds.
  const std::string missing = path("no_such_ids.txt");
  for (const std::string key : {"stimulus.ids", "stimulus.silence", "stimulus.group.bitter.ids", "plasticity.pre-ids"}) {
    SCOPED_TRACE(key);
    const auto started = std::chrono::steady_clock::now();
    const CliResult r = flysim("run --stimulus.group.bitter.rate=50 --" + key + "=" + missing);
    expect_one_line_error(r, "command line: option " + key + "='" + missing + "' names a file flysim cannot open: No such file or directory");
    EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(2));
  }
  const std::string out = path("screen_out");
  expect_one_line_error(flysim("screen --screen.baseline=true --output.dir=" + out + " --stimulus.silence=" + missing),
                        "command line: option stimulus.silence='" + missing + "' names a file flysim cannot open");
  EXPECT_FALSE(fs::exists(out)) << "a refused screen leaves no folder behind";
  // The default stimulus on another network is named as the default, with the way out.
  const CliResult other = flysim("run --network.neurons=" + data_path("net2000/neurons.csv") + " --network.connectivity=" +
                                 data_path("net2000/connectivity.csv"));
  expect_one_line_error(other, "");
  EXPECT_NE(other.err.find("sugar_grn_783.txt:3: neuron ID 720575940611875570 is not in the network (FlyWire CSV " +
                           data_path("net2000/connectivity.csv") + ") (the default stimulus.ids, FlyWire 783's sugar "
                           "neurons; for another network give --stimulus.ids=FILE, or --stimulus.ids= for none)"),
            std::string::npos)
      << other.err;
  // An ID where a file of IDs belongs is named as such.
  expect_one_line_error(flysim("run --stimulus.ids=720575940611875570"),
                        "command line: option stimulus.ids='720575940611875570' names a file flysim cannot open: No such file "
                        "or directory (it looks like neuron IDs: the option takes a file of root IDs, one per line)");
}

// ---- 4. the network cache is keyed by content

TEST_F(Reliability, AFifoInTheCacheFolderIsRefusedNotWaitedOn) {
  ASSERT_EQ(flysim(net2000("--run.duration-ms=10")).code, 0) << slurp(path("stderr"));
  std::vector<std::string> cached;
  for (const auto& entry : fs::directory_iterator(path("cache"))) cached.push_back(entry.path().string());
  ASSERT_EQ(cached.size(), 1u);
  fs::remove(cached[0]);
  ASSERT_EQ(::mkfifo(cached[0].c_str(), 0600), 0);
  BackgroundFlysim again(net2000("--run.duration-ms=10 --network.cache-dir=" + path("cache")), path("stdout"), path("stderr"));
  const int code = again.wait_for(20);
  expect_one_line_error({code, slurp(path("stdout")), slurp(path("stderr"))}, cached[0] + ": is a FIFO");
}

TEST_F(Reliability, CacheKeyChangesWithContentEvenAtTheSameSizeAndTime) {
  const std::string file = write("c.csv", "abcdef\n");
  const auto before = fs::last_write_time(file);
  const std::string key = file_source_key({file});
  spit(file, "abcdeg\n");
  fs::last_write_time(file, before);
  EXPECT_NE(file_source_key({file}), key);
  fs::copy_file(file, path("moved.csv"));
  EXPECT_EQ(file_source_key({path("moved.csv")}), file_source_key({file}));
}

// ---- 5, 6. signals

// An unpaced run (its spike file is written whole at the end) that no machine finishes while a test waits: net2000's
// kicks end early and the quiet rest of a trial costs next to nothing, so one long trial is not enough; 100,000 of
// them are.
const std::string kEndlessTrials = "--run.duration-ms=500000 --run.trials=100000 --run.batch=1";

TEST_F(Reliability, AStoppedRunCommitsWhatItRecordedAndSaysWhere) {
  const std::string full = path("full.csv"), part = path("part.csv");
  ASSERT_EQ(flysim(net2000("--run.duration-ms=1000 --output.spikes=" + full)).code, 0);
  BackgroundFlysim run(net2000(kEndlessTrials + " --output.spikes=" + part + " --output.rates=" + path("r.csv") +
                               " --network.cache-dir=" + path("cache")),
                       path("bg.out"), path("bg.err"));
  ASSERT_NE(run.wait_for_log("/100000:", 60), "") << slurp(path("bg.err"));
  EXPECT_EQ(run.stop(SIGTERM), 143);
  const std::string out = slurp(path("bg.out"));
  EXPECT_NE(out.find("flysim run: stopped"), std::string::npos) << out;
  EXPECT_NE(out.find("stopped     early, by a stop signal, at trial "), std::string::npos) << out;
  ASSERT_TRUE(fs::exists(part)) << slurp(path("bg.err"));
  EXPECT_TRUE(fs::exists(path("r.csv")));
  // The dynamics are causal: the first second of the long run is the whole short run.
  const std::string recorded = slurp(part), reference = slurp(full);
  ASSERT_GT(recorded.size(), reference.size());
  EXPECT_TRUE(same_text(reference, recorded.substr(0, reference.size())));
  EXPECT_EQ(recorded.back(), '\n');
  EXPECT_TRUE(temporaries().empty());
}

TEST_F(Reliability, KillNineLeavesNoTemporaryFile) {
  BackgroundFlysim run(net2000(kEndlessTrials + " --output.spikes=" + path("s.csv") + " --network.cache-dir=" +
                               path("cache")),
                       path("bg.out"), path("bg.err"));
  ASSERT_NE(run.wait_for_log("/100000:", 60), "");
  EXPECT_EQ(run.stop(SIGKILL), 128 + SIGKILL);
  EXPECT_FALSE(fs::exists(path("s.csv")));
  EXPECT_TRUE(temporaries().empty());
}

TEST_F(Reliability, ASignalWhileTheNetworkLoadsEndsWithAMessage) {
  // The full synthetic network takes seconds to generate: time enough to be interrupted.
  BackgroundFlysim run("run --network.cache-dir=" + path("cache"), path("bg.out"), path("bg.err"));
  ASSERT_NE(run.wait_for_log("generating", 60), "");
  EXPECT_EQ(run.stop(SIGINT), 130);
  EXPECT_NE(slurp(path("bg.err")).find("flysim: interrupted while loading the network; nothing was written"), std::string::npos)
      << slurp(path("bg.err"));
}

}  // namespace
}  // namespace flysim::test
