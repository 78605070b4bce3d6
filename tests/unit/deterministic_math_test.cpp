// det_log and det_exp (model/deterministic_math.hpp): their exact bits, which the
// synthetic network depends on, and their accuracy against the C library's.
#include <gtest/gtest.h>

#include <cmath>

#include "model/deterministic_math.hpp"

namespace flysim::test {
namespace {

struct Exact {
  double x, result;
};

// Taken from this implementation: a change of any bit changes every synthetic network
// (and needs generator.cpp's kAlgorithmVersion bumped), and so does a compiler or
// machine that evaluates the series differently (contracted multiply-adds, x87).
TEST(DeterministicMath, ResultsAreTheseBitsOnEveryMachine) {
  for (const Exact& e : {Exact{0x1.56e1fc2f8f359p-997, -0x1.5963447f87fb5p+9}, Exact{0x1.3333333333333p-2, -0x1.34378fcbda72p+0},
                         Exact{0x1p+0, 0.0}, Exact{0x1p+1, 0x1.62e42fefa39efp-1}, Exact{0x1.8p+1, 0x1.193ea7aad030ap+0},
                         Exact{0x1.4p+3, 0x1.26bb1bbb55515p+1}, Exact{0x1.7e43c8800759cp+996, 0x1.5963447f87fb5p+9}})
    EXPECT_EQ(det_log(e.x), e.result) << std::hexfloat << "det_log(" << e.x << ")";
  for (const Exact& e : {Exact{-0x1.59p+9, 0x1.745367beace3ep-996}, Exact{-0x1.48p+4, 0x1.57a3afeed00a6p-30},
                         Exact{-0x1p-2, 0x1.8ebef9eac820bp-1}, Exact{0.0, 1.0}, Exact{0x1p+0, 0x1.5bf0a8b14576ap+1},
                         Exact{0x1.4p+1, 0x1.85d6fd931e0bcp+3}, Exact{0x1.5d8p+9, 0x1.5c36fb1036e9dp+1008}})
    EXPECT_EQ(det_exp(e.x), e.result) << std::hexfloat << "det_exp(" << e.x << ")";
}

TEST(DeterministicMath, AgreesWithTheCLibraryTo1e13) {
  for (double x = 1e-300; x < 1e300; x *= 1.37)
    EXPECT_NEAR(det_log(x), std::log(x), 1e-13 * std::fabs(std::log(x)) + 1e-300) << x;
  for (double x = 0.5; x < 2.0; x += 0.001) EXPECT_NEAR(det_log(x), std::log(x), 1e-15) << x;
  for (double x = -699.0; x < 699.0; x += 0.37) EXPECT_NEAR(det_exp(x), std::exp(x), 1e-13 * std::exp(x)) << x;
}

}  // namespace
}  // namespace flysim::test
