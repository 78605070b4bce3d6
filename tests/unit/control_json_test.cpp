// The control API's pieces that need no server: JSON both ways, the control.* options
// (token file, bind address), and flysim ctl's arguments.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>

#include "messages/control_rules.hpp"
#include "apps/flysim/service/control_json.hpp"
#include "apps/flysim/options/control_options.hpp"
#include "apps/flysim/options/ctl_args.hpp"
#include "scratch_dir.hpp"
#include "messages/control_json.hpp"
#include "messages/field_json.hpp"
#include "io/json_depth.hpp"
#include "control_support.hpp"
#include "model/errors.hpp"
#include "test_support.hpp"

namespace flysim::test {
namespace {

TEST(ControlJson, EveryCommandRoundTripsThroughItsBody) {
  const std::vector<LiveCommand> commands = {SwapCommand{"cpu", 3},
                                             SwapCommand{"cuda", std::nullopt},
                                             CheckpointCommand{},
                                             StimulusCommand{.rate_Hz = 0.0},
                                             StimulusCommand{.poisson_ids = std::vector<int64_t>{720575940660219265, -3}},
                                             StimulusCommand{.rate_Hz = 212.5, .kicks = std::vector<LiveKick>{{7, 0.0}, {720575940660219265, 12.25}}},
                                             PauseCommand{},
                                             StopCommand{}};
  for (const LiveCommand& c : commands) {
    SCOPED_TRACE(command_body_json(c));
    EXPECT_EQ(command_body_json(command_from_json(action_name(c), command_body_json(c))), command_body_json(c));
    const std::string entry = R"({"seq":1,"trial":0,"step":18,"command":)" + to_json(c) + "}";
    EXPECT_EQ(to_json(app::journal_entry_from_json(entry).command), to_json(c));
  }
  EXPECT_EQ(command_body_json(commands[0]), R"({"engine":"cpu","threads":3})");
  EXPECT_EQ(command_body_json(commands[2]), "{}");
}

TEST(ControlJson, StatusAndReplyRoundTripAndTheClientIgnoresNewFields) {
  ServiceStatus s;
  s.state = "paused", s.trial = 2, s.step = 18, s.spikes = 1ull << 40, s.stimulus_rate_Hz = 99.5, s.last_checkpoint = "c.ckpt";
  const ServiceStatus back = app::status_from_json(app::status_to_json(s));
  EXPECT_EQ(back.state, "paused");
  EXPECT_EQ(back.step, 18);
  EXPECT_EQ(back.spikes, 1ull << 40);
  EXPECT_EQ(back.stimulus_rate_Hz, 99.5);
  EXPECT_EQ(back.last_checkpoint, "c.ckpt");
  // The nested cost and GPU objects, both ways (flysim cost differences two of these).
  const ServiceStatus full = fake_status();
  const ServiceStatus full_back = app::status_from_json(app::status_to_json(full));
  EXPECT_EQ(app::status_to_json(full_back), app::status_to_json(full));
  ASSERT_EQ(full_back.cost.threads.size(), 1u);
  EXPECT_EQ(full_back.cost.threads[0].name, "fs-engine-0");
  EXPECT_EQ(full_back.gpu_neighbours[0].pid, 4343u);
  EXPECT_EQ(full_back.warnings, full.warnings);
  EXPECT_THROW(app::status_from_json(R"({"cost":{"roles":"many"}})"), std::runtime_error);
  EXPECT_EQ(app::status_from_json(R"({"state":"running","added_later":[1]})").state, "running");
  EXPECT_THROW(app::status_from_json(R"({"trial":"one"})"), std::runtime_error);
  EXPECT_THROW(app::reply_from_json("<html>"), std::runtime_error);
  const LiveReply r = app::reply_from_json(app::reply_to_json({true, "done", 3, 54, "f.ckpt"}));
  EXPECT_TRUE(r.ok);
  EXPECT_EQ(r.step, 54);
  EXPECT_EQ(r.file, "f.ckpt");
  EXPECT_EQ(app::error_from_json(app::error_to_json("bad \"x\"")), "bad \"x\"");
  EXPECT_EQ(app::error_from_json("plain text"), "plain text");
  EXPECT_EQ(app::error_from_json("<!DOCTYPE html>\n<html><body>" + std::string(5000, 'x') + "</body></html>\n"),
            "<!DOCTYPE html> ... (not a flysim service's answer: is the port right?)");
}

TEST(ControlJson, NestingIsCountedOutsideStringsAndRefusedBeyondTheLimit) {
  const auto nested = [](std::size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); };
  EXPECT_EQ(json_depth_problem(nested(kMaxJsonDepth)), "");
  EXPECT_EQ(json_depth_problem(nested(kMaxJsonDepth + 1)), "arrays and objects nest deeper than 64 levels (at byte 65)");
  EXPECT_EQ(json_depth_problem(R"({"a":")" + std::string(1000, '[') + R"(\"[", "b":{}})"), "") << "brackets in strings";
  EXPECT_NE(json_depth_problem(R"({"a":"\\")" + std::string(100, '{')), "") << "an escaped backslash ends no string";
  EXPECT_THROW(command_from_json("stimulus", R"({"poisson_ids":)" + nested(100000) + "}"), bad_request);
}

// A body of many small objects (kicks) costs time in proportion to its size: eight times
// the objects may take eight times as long, not 64 (a parser that scans an array at
// each of its objects' ends).
TEST(ControlJson, ManyObjectsParseInTimeInProportionToTheirCount) {
  const auto seconds_for = [](std::size_t objects) {
    std::string body = R"({"kicks":[)";
    for (std::size_t k = 0; k < objects; ++k) body += (k ? "," : "") + std::string(R"({"neuron_id":1,"step":2})");
    body += "]}";
    double fastest = 1e9;
    for (int round = 0; round < 3; ++round) {
      const auto start = std::chrono::steady_clock::now();
      EXPECT_EQ(field_json::parse_object(body)["kicks"].size(), objects);
      fastest = std::min(fastest, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    return fastest;
  };
  const double few = seconds_for(40000), many = seconds_for(320000);
  EXPECT_LT(many, 24 * few) << few << " s for 40,000 objects, " << many << " s for 320,000";
}

TEST(ControlJson, AJournalLineNestedTooDeeplyIsRefused) {
  try {
    app::journal_entry_from_json(std::string(100000, '{'));
    FAIL() << "accepted";
  } catch (const bad_request& e) {
    EXPECT_NE(std::string(e.what()).find("arrays and objects nest deeper than 64 levels (at byte 65)"), std::string::npos) << e.what();
  }
}

TEST(ControlJson, AFieldOfTheWrongTypeIsNamedWithWhatCame) {
  const auto problem = [](const std::string& action, const std::string& body) {
    try {
      command_from_json(action, body);
    } catch (const bad_request& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(problem("stimulus", R"({"rate_hz":null})"), "field \"rate_hz\" must be a number, got null");
  EXPECT_EQ(problem("stimulus", R"({"rate_hz":"x"})"), "field \"rate_hz\" must be a number, got string \"x\"");
}

TEST(ControlJson, BytesThatAreNotUtf8StillGiveValidJson) {
  const std::string body = app::reply_to_json({false, "no such file: /tmp/\xff\xfe", 0, 0, ""});
  EXPECT_NE(app::reply_from_json(body).message.find("no such file: /tmp/"), std::string::npos) << body;
}

TEST(ControlRules, MessagesNameTheField) {
  EXPECT_EQ(command_problem(StimulusCommand{.rate_Hz = std::numeric_limits<double>::infinity()}), "rate_hz must be a finite number >= 0");
  EXPECT_EQ(command_problem(StimulusCommand{.rate_Hz = -5}), "rate_hz must be a finite number >= 0, got -5");
  EXPECT_EQ(command_problem(SwapCommand{"cpu", 0}), "threads must be 1..1024, got 0");
  const LiveCommand swap = SwapCommand{"cpu", 4};
  EXPECT_EQ(command_problem(swap), "");
  EXPECT_EQ(describe_command(swap), "swap to cpu, 4 threads");
  EXPECT_EQ(describe_command(StimulusCommand{.rate_Hz = 200, .kicks = std::vector<LiveKick>{{1, 2}}}), "stimulus: rate 200 Hz, 1 kick");
  EXPECT_EQ(describe_command(PauseCommand{}), "pause");
  try {
    command_from_json("jump", "{}");
    FAIL() << "accepted";
  } catch (const bad_request& e) {
    EXPECT_STREQ(e.what(), "action \"jump\" is not one of swap, checkpoint, stimulus, pause, resume, stop");
  }
}

class ControlFiles : public ::testing::Test {
 protected:
  std::string write(const std::string& name, const std::string& text) const { return scratch_.write(name, text); }
  static app::Options control(const std::vector<std::string>& args) {
    return app::Options::parse(app::control_options(app::kDefaultControlPort), args);
  }
  ScratchDir scratch_{"flysim-control"};
};

TEST_F(ControlFiles, TokenIsTheFirstLineTrimmedAndAnEmptyOneIsRefused) {
  EXPECT_EQ(app::control_token(control({"--control.token-file=" + write("t", "  abc-123-0123456789\t\r\nsecond line\n")})), "abc-123-0123456789");
  EXPECT_EQ(app::control_token(control({})), "");
  EXPECT_NE(input_error_of([&] { app::control_token(control({"--control.token-file=" + write("e", "\n  \nx\n")})); })
                .find("option control.token-file='" + scratch_.path("e") + "' holds no token on its first line"),
            std::string::npos);
  EXPECT_NE(input_error_of([&] { app::control_token(control({"--control.token-file=" + write("b", "two words\n")})); })
                .find("holds a token with blanks"),
            std::string::npos);
  // The rule of shard tokens: 16 characters at least.
  EXPECT_NE(input_error_of([&] { app::control_token(control({"--control.token-file=" + write("s", "abc\n")})); })
                .find("holds a token of 3 characters; a token needs at least 16"),
            std::string::npos);
  EXPECT_NE(input_error_of([&] { app::control_token(control({"--control.token-file=" + scratch_.path("none")})); })
                .find("control.token-file"),
            std::string::npos);
}

TEST_F(ControlFiles, ServerConfigChecksPortAndRefusesAnOpenAddressWithoutAToken) {
  const app::ControlServerConfig defaults = app::control_server_config(control({}));
  EXPECT_EQ(defaults.bind, "127.0.0.1");
  EXPECT_EQ(defaults.port, 7460);
  EXPECT_TRUE(defaults.token.empty());
  EXPECT_NE(input_error_of([] { app::control_server_config(control({"--control.port=70000"})); }).find("must be 0..65535"),
            std::string::npos);
  EXPECT_NE(input_error_of([] { app::control_server_config(control({"--control.bind=0.0.0.0"})); })
                .find("option control.bind='0.0.0.0' is not a loopback address: serving it needs control.token-file"),
            std::string::npos);
  const auto open = app::control_server_config(control({"--control.bind=0.0.0.0", "--control.token-file=" + write("t", "tok-0123456789abcdef\n")}));
  EXPECT_EQ(open.token, "tok-0123456789abcdef");
}

TEST_F(ControlFiles, CtlArgumentsBecomeTheCommand) {
  auto r = app::parse_ctl_args({"swap", "cpu", "--threads=2", "--control.port=9000", "--json"});
  EXPECT_EQ(r.action, "swap");
  EXPECT_EQ(std::get<SwapCommand>(r.command).engine, "cpu");
  EXPECT_EQ(std::get<SwapCommand>(r.command).threads, 2);
  EXPECT_TRUE(r.json);
  EXPECT_EQ(r.option_args, std::vector<std::string>{"--control.port=9000"});
  r = app::parse_ctl_args({"stimulus", "--rate=200", "--kick=720575940660219265@5", "--kick=7@0.5",
                           "--ids=" + write("ids.txt", "# sugar\n11\n12\n")});
  const auto& stimulus = std::get<StimulusCommand>(r.command);
  EXPECT_EQ(stimulus.rate_Hz, 200);
  EXPECT_EQ(stimulus.poisson_ids, (std::vector<int64_t>{11, 12}));
  ASSERT_EQ(stimulus.kicks->size(), 2u);
  EXPECT_EQ((*stimulus.kicks)[0].neuron_id, 720575940660219265);
  EXPECT_EQ((*stimulus.kicks)[1].after_ms, 0.5);
  EXPECT_EQ(app::parse_ctl_args({"status"}).action, "status");
  EXPECT_TRUE(std::holds_alternative<StopCommand>(app::parse_ctl_args({"stop"}).command));
}

TEST_F(ControlFiles, CtlBadUsageIsAnInputErrorNamingTheWord) {
  const auto error = [](const std::vector<std::string>& args) { return input_error_of([&] { app::parse_ctl_args(args); }); };
  EXPECT_NE(error({}).find("flysim ctl needs a request"), std::string::npos);
  EXPECT_NE(error({"jump"}).find("'jump' is not a request of flysim ctl"), std::string::npos);
  EXPECT_NE(error({"swap"}).find("flysim ctl swap needs the engine: cpu or cuda"), std::string::npos);
  EXPECT_NE(error({"swap", "gpu"}).find("engine must be \"cpu\" or \"cuda\", got \"gpu\""), std::string::npos);
  EXPECT_NE(error({"swap", "cuda", "--threads=2"}).find("--threads belongs to flysim ctl swap cpu"), std::string::npos);
  EXPECT_NE(error({"swap", "cpu", "--threads=0"}).find("flysim ctl swap: threads must be 1..1024, got 0"), std::string::npos);
  EXPECT_NE(error({"swap", "cpu", "--threads=two"}).find("'two' is not an integer"), std::string::npos);
  EXPECT_NE(error({"pause", "--rate=5"}).find("--rate belongs to flysim ctl stimulus"), std::string::npos);
  EXPECT_NE(error({"pause", "now"}).find("unexpected 'now' after flysim ctl pause"), std::string::npos);
  EXPECT_NE(error({"stimulus"}).find("needs --rate=HZ, --ids=FILE, --kick=ID@MS, --silence=FILE or --silence-mode=MODE"), std::string::npos);
  EXPECT_NE(error({"stimulus", "--rate=-1"}).find("flysim ctl stimulus: rate_hz must be a finite number >= 0, got -1"), std::string::npos);
  EXPECT_NE(error({"stimulus", "--kick=7"}).find("--kick=7 is not ID@MS"), std::string::npos);
  EXPECT_EQ(error({"stimulus", "--rate=5", "--rate=6"}), "command line: --rate is given twice");
  EXPECT_EQ(error({"status", "--json=maybe"}), "command line: --json takes no value (give --json alone)");
  EXPECT_EQ(app::parse_ctl_args({"stimulus", "--kick=7@1", "--kick=8@2"}).action, "stimulus") << "kicks repeat";
  EXPECT_NE(error({"stimulus", "--kick=7@-1"}).find("kicks[0].after_ms must lie in 0.."), std::string::npos);
  const std::string twice = write("twice.txt", "11\n12\n11\n");
  EXPECT_NE(error({"stimulus", "--ids=" + twice}).find(twice + ":3: neuron ID 11 is listed twice"), std::string::npos);
}

}  // namespace
}  // namespace flysim::test
