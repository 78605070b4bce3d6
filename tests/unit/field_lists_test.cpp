// One field list per type: the types a message or a checkpoint carries list
// their fields once (fields() beside each type, model/FIELDS.md), and both CAF and
// Cereal serialize from that list. These tests fail when a field is added to a type and
// not to its list, or when either serializer drops one.
#include <caf/all.hpp>
#include <gtest/gtest.h>

#include <cstddef>
#include <filesystem>
#include <utility>

#include "apps/flysim/service/control_json.hpp"
#include "checkpoint/checkpoint_file.hpp"
#include "caf_round_trip.hpp"
#include "control_support.hpp"
#include "messages/messages.hpp"
#include "model/snapshot.hpp"

namespace flysim::test {
namespace {

// Converts to a reference of any type: T{AnyField{}, ...} compiles for as many of
// these as T has fields (an aggregate), which counts them without naming them.
struct AnyField {
  template <class T>
  operator T&() const noexcept;  // declared only: used in unevaluated contexts
};
template <class T, std::size_t... I>
constexpr bool constructible_with(std::index_sequence<I...>) {
  return requires { T{(I, AnyField{})...}; };
}
template <class T, std::size_t N = 0>
constexpr std::size_t field_count() {
  if constexpr (constructible_with<T>(std::make_index_sequence<N + 1>{})) return field_count<T, N + 1>();
  else return N;
}
template <class T>
std::size_t listed_count() {
  T x{};
  return fields(x, [](auto&&... member) { return sizeof...(member); });
}

template <class T>
void expect_every_field_listed(const char* name) {
  EXPECT_EQ(listed_count<T>(), field_count<T>()) << name << " has a field its fields() list leaves out";
}

TEST(FieldLists, EveryFieldOfEveryCarriedTypeIsListed) {
  expect_every_field_listed<Spike>("Spike");
  expect_every_field_listed<Kick>("Kick");
  expect_every_field_listed<EngineState>("EngineState");
  expect_every_field_listed<Traces>("Traces");
  expect_every_field_listed<PlasticityState>("PlasticityState");
  expect_every_field_listed<StimulusPlan>("StimulusPlan");
  expect_every_field_listed<TrialPlan>("TrialPlan");
  expect_every_field_listed<RecorderPosition>("RecorderPosition");
  expect_every_field_listed<Snapshot>("Snapshot");
  // The types that also travel as JSON (named fields).
  expect_every_field_listed<LiveKick>("LiveKick");
  expect_every_field_listed<SwapCommand>("SwapCommand");
  expect_every_field_listed<StimulusCommand>("StimulusCommand");
  expect_every_field_listed<LiveReply>("LiveReply");
  expect_every_field_listed<ServiceStatus>("ServiceStatus");
  expect_every_field_listed<RoleCost>("RoleCost");
  expect_every_field_listed<ThreadCost>("ThreadCost");
  expect_every_field_listed<CostReport>("CostReport");
  expect_every_field_listed<GpuProcess>("GpuProcess");
}

// A status with every field away from its default (fake_status: the nested cost and GPU
// lists too) comes back whole through CAF and through its JSON, which has every field.
TEST(FieldLists, AStatusTravelsWholeThroughCafAndJson) {
  const ServiceStatus original = fake_status();
  const std::string json = app::status_to_json(original);
  EXPECT_EQ(app::status_to_json(through_caf(original)), json);
  EXPECT_EQ(app::status_to_json(app::status_from_json(json)), json);
  ServiceStatus defaults;
  std::vector<std::string> names;
  fields(defaults, [&](auto&&... field) { (names.push_back(field.name), ...); });
  for (const std::string& name : names) EXPECT_NE(json.find("\"" + name + "\":"), std::string::npos) << name;
}

// Every field of every nested type away from its default.
Snapshot full_snapshot() {
  Snapshot s;
  s.engine = {3, 41, {-52.5, -60.0}, {0.25, 0.0}, {17, -1}, {{36, 1}, {40, 0}}, {9, -4}};
  s.plan = {30, 10000, 150.0, {{0, 1}, {{5, 1}, {7, 0}}, 42, {{"g", {1}, 60.0, 77u}}, {0}, SilenceMode::both}};
  s.recorder = {1234, {1000, 234}};
  s.plasticity = {"stdp a+=0.01", 2, {{0.5, 0.25}, {10, 20}}, {{0.125, 1.5}, {30, 31}}, {7, -7}};
  return s;
}

TEST(FieldLists, ASnapshotTravelsWholeThroughCaf) {
  const Snapshot original = full_snapshot();
  EXPECT_TRUE(through_caf(original) == original);
}

TEST(FieldLists, ASnapshotTravelsWholeThroughACheckpoint) {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("flysim_field_lists_" + std::to_string(::getpid()) + ".ckpt")).string();
  const Snapshot original = full_snapshot();
  save_checkpoint(path, original, {"fields", "kernel", 7});
  const Snapshot decoded = load_checkpoint(path, {"fields", "kernel", 7});
  std::filesystem::remove(path);
  EXPECT_TRUE(decoded == original);
}

}  // namespace
}  // namespace flysim::test
