#pragma once
// A value through CAF's binary serializer and back, as a message carries it between nodes.
#include <caf/all.hpp>
#include <gtest/gtest.h>

#include <vector>

namespace flysim::test {

// `original` serialized, then deserialized into `decoded` (a value of another content
// shows that nothing of it survives).
template <class T>
T through_caf(const T& original, T decoded = {}) {
  std::vector<char> bytes;
  caf::binary_serializer sink{nullptr, bytes};
  T copy = original;
  EXPECT_FALSE(sink(copy));
  caf::binary_deserializer source{nullptr, bytes};
  EXPECT_FALSE(source(decoded));
  return decoded;
}

}  // namespace flysim::test
