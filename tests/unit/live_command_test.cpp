// Live commands are one variant of typed commands, each with one field list that the
// JSON codec and CAF both read. Every command type goes JSON -> command -> JSON to the
// same bytes, and through CAF's binary serializer whole; what the wire refuses is
// refused with the messages the control API has always given.
#include <caf/all.hpp>
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "apps/flysim/service/control_json.hpp"
#include "messages/control_json.hpp"
#include "caf_round_trip.hpp"
#include "messages/messages.hpp"

namespace flysim::test {
namespace {

struct Body {
  std::string action, json;
};

// A body of every command type, as flysim ctl writes them: each field each type takes,
// and the ways a command leaves a field out.
const std::vector<Body>& every_body() {
  static const std::vector<Body> bodies = {
      {"swap", R"({"engine":"cpu","threads":3})"},
      {"swap", R"({"engine":"cuda"})"},
      {"checkpoint", "{}"},
      {"stimulus", R"({"rate_hz":212.5,"poisson_ids":[720575940660219265,-3],"kicks":[{"neuron_id":7,"after_ms":0.0},)"
                   R"({"neuron_id":720575940660219265,"after_ms":12.25}],"silence_ids":[4,5],"silence_mode":"both"})"},
      {"stimulus", R"({"rate_hz":60.0,"poisson_ids":[1,2,3],"group":"bitter"})"},
      {"stimulus", R"({"silence_ids":[]})"},
      {"stimulus", R"({"silence_mode":"outgoing"})"},
      {"pause", "{}"},
      {"resume", "{}"},
      {"stop", "{}"},
  };
  return bodies;
}

TEST(LiveCommand, EveryCommandTypeHasABody) {
  std::set<std::size_t> types;
  for (const Body& b : every_body()) types.insert(command_from_json(b.action, b.json).index());
  EXPECT_EQ(types.size(), std::variant_size_v<LiveCommandTypes>);
  EXPECT_EQ(kLiveActions, (std::vector<std::string>{"swap", "checkpoint", "stimulus", "pause", "resume", "stop"}));
}

TEST(LiveCommand, JsonToCommandToJsonIsTheSameBytes) {
  for (const Body& b : every_body()) {
    SCOPED_TRACE(b.action + " " + b.json);
    const LiveCommand command = command_from_json(b.action, b.json);
    EXPECT_EQ(action_name(command), b.action);
    EXPECT_EQ(command_body_json(command), b.json);
    const std::string journaled = R"({"action":")" + b.action + R"(","body":)" + b.json + "}";
    EXPECT_EQ(to_json(command), journaled);
    const std::string entry = R"({"seq":1,"trial":0,"step":18,"command":)" + journaled + "}";
    EXPECT_EQ(to_json(app::journal_entry_from_json(entry).command), journaled);
  }
}

TEST(LiveCommand, LeftOutMeansUnchangedAndGivenMeansSet) {
  const auto stimulus = std::get<StimulusCommand>(command_from_json("stimulus", R"({"silence_ids":[]})"));
  EXPECT_FALSE(stimulus.rate_Hz);
  EXPECT_FALSE(stimulus.poisson_ids);
  EXPECT_FALSE(stimulus.kicks);
  EXPECT_FALSE(stimulus.group);
  ASSERT_TRUE(stimulus.silence_ids) << "an empty list given: no neuron silenced";
  EXPECT_TRUE(stimulus.silence_ids->empty());
  const auto zero = std::get<StimulusCommand>(command_from_json("stimulus", R"({"rate_hz":0})"));
  EXPECT_EQ(zero.rate_Hz, 0.0) << "a rate of 0 stops the input; it is not 'unchanged'";
  EXPECT_FALSE(std::get<SwapCommand>(command_from_json("swap", R"({"engine":"cpu"})")).threads);
}

TEST(LiveCommand, EveryCommandTypeTravelsWholeThroughCaf) {
  for (const Body& b : every_body()) {
    SCOPED_TRACE(b.action + " " + b.json);
    const LiveCommand command = command_from_json(b.action, b.json);
    // Decoded into a command of another type and into one of the same type with fields set.
    for (const LiveCommand& before : {LiveCommand(StopCommand{}), command_from_json("stimulus", every_body()[3].json)}) {
      const LiveCommand decoded = through_caf(command, before);
      EXPECT_EQ(decoded.index(), command.index());
      EXPECT_EQ(command_body_json(decoded), b.json);
    }
  }
}

TEST(LiveCommand, CafRefusesAnIndexThatNamesNoCommand) {
  std::vector<char> bytes;
  caf::binary_serializer sink{nullptr, bytes};
  uint8_t index = std::variant_size_v<LiveCommandTypes>;
  ASSERT_FALSE(sink(index));
  LiveCommand decoded;
  caf::binary_deserializer source{nullptr, bytes};
  EXPECT_TRUE(source(decoded));
}

TEST(LiveCommand, CafPrintsTheCommandAndItsFields) {
  const std::string text = caf::deep_to_string(command_from_json("stimulus", R"({"rate_hz":5,"silence_mode":"both"})"));
  EXPECT_NE(text.find("stimulus"), std::string::npos) << text;
  EXPECT_NE(text.find("5"), std::string::npos) << text;
}

std::string refusal(const std::string& action, const std::string& body) {
  try {
    command_from_json(action, body);
  } catch (const bad_request& e) {
    return e.what();
  }
  return "accepted";
}

// The control API's refusals, as it has always worded them (tests of the server check
// more; these are the ones the field lists write).
TEST(LiveCommand, RefusalsNameTheFieldAsBefore) {
  EXPECT_EQ(refusal("stimulus", R"({"bogus":1})"),
            "unknown field \"bogus\": POST /stimulus takes rate_hz, poisson_ids, kicks, group, silence_ids, silence_mode");
  EXPECT_EQ(refusal("stimulus", R"({"kicks":[5]})"),
            "field \"kicks[0]\" must be an object {\"neuron_id\": ..., \"after_ms\": ...}, got number 5");
  EXPECT_EQ(refusal("stimulus", R"({"kicks":[{"after_ms":7}]})"), "field \"neuron_id\" is missing (kicks[0]: the root ID to kick)");
  EXPECT_EQ(refusal("stimulus", R"({"kicks":[{"neuron_id":"7","after_ms":1}]})"),
            "field \"kicks[0].neuron_id\" must be an integer, got string \"7\"");
  EXPECT_EQ(refusal("stimulus", R"({"kicks":[{"neuron_id":7,"after_ms":1,"x":1}]})"),
            "unknown field \"kicks[0].x\": a kick takes neuron_id, after_ms");
  EXPECT_EQ(refusal("stimulus", R"({"group":5})"), "field \"group\" must be a group name (a string), got number 5");
  EXPECT_EQ(refusal("stimulus", R"({"group":""})"), "group must name a Poisson group; leave it out for the default group");
  EXPECT_EQ(refusal("stimulus", R"({"group":"a b","rate_hz":5})"),
            "group 'a b': a group's name has letters, digits, '_' and '-' only (as stimulus.group.NAME)");
  EXPECT_EQ(refusal("stimulus", R"({"poisson_ids":[]})"),
            "poisson_ids is empty; to stop the Poisson input, set rate_hz to 0 (an empty list removes only a group)");
  EXPECT_EQ(refusal("stimulus", R"({"group":"g","poisson_ids":[]})"), "accepted");
  EXPECT_EQ(refusal("stimulus", R"({"silence_mode":"x"})"), "field \"silence_mode\" must be \"outgoing\" or \"both\", got string \"x\"");
  EXPECT_EQ(refusal("stimulus", R"({"group":"g","kicks":[{"neuron_id":7,"after_ms":1}]})"),
            "kicks belong to no group: send them without group");
  EXPECT_EQ(refusal("swap", R"({"threads":2})"), "field \"engine\" is missing (\"cpu\" or \"cuda\")");
  EXPECT_EQ(refusal("swap", R"({"engine":"cpu","threads":5000000000})"), "threads must be 1..1024, got 5000000000");
  EXPECT_EQ(refusal("swap", R"({"engine":"gpu","threads":0})"), "threads must be 1..1024, got 0");
  EXPECT_EQ(refusal("checkpoint", R"({"rate_hz":5})"), "unknown field \"rate_hz\": POST /checkpoint takes no fields");
  EXPECT_EQ(refusal("jump", R"({"x":1})"), "unknown field \"x\": POST /jump takes no fields");
  EXPECT_EQ(refusal("jump", "{}"), "action \"jump\" is not one of swap, checkpoint, stimulus, pause, resume, stop");
}

}  // namespace
}  // namespace flysim::test
