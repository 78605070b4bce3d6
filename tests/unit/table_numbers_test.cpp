// The numbers of the experiment tables (io/table_numbers.hpp) and a spike's time in the
// reference's schema (model/lif_params.hpp spike_time_s): exact, and read back as floats.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <limits>

#include "io/table_numbers.hpp"
#include "model/lif_params.hpp"

namespace flysim::test {
namespace {

double read_back(const std::string& text) { return std::strtod(text.c_str(), nullptr); }

TEST(TableNumbers, ReadBackToTheSameDouble) {
  for (double v : {1.0 / 3.0, 2.0 / 3.0 * 100, 35.59026084010437, 0.1 + 0.2, 1e-9 / 7, 123456789.123456789})
    EXPECT_EQ(read_back(table_number(v)), v) << table_number(v);
  EXPECT_EQ(table_number(126.66666666666667), "126.66666666666667");  // every digit, not six
}

// A column of whole numbers must still read as float in pandas: "40.0", not "40".
TEST(TableNumbers, WholeNumbersKeepAPoint) {
  EXPECT_EQ(table_number(40.0), "40.0");
  EXPECT_EQ(table_number(0.0), "0.0");
  EXPECT_EQ(table_number(-56.0), "-56.0");
  EXPECT_EQ(table_number(0.5), "0.5");
  EXPECT_EQ(table_number(1e20), "1e+20");
}

TEST(TableNumbers, AnUndefinedSpreadIsEmpty) {
  EXPECT_EQ(spread_field(std::numeric_limits<double>::quiet_NaN()), "");
  EXPECT_EQ(spread_field(0.0), "0.0");
  EXPECT_EQ(spread_field(11.547005383792516), "11.547005383792516");
}

// Brian2's clock sets t = timestep * dt (dt = 0.1 ms = 0.0001 s): step 6 is
// 0.0006000000000000001 s, not the decimal 0.0006, and the files hold that double.
TEST(TableNumbers, SpikeTimesAreBrian2s) {
  EXPECT_EQ(spike_time_s(6, 0.1), 6 * 0.0001);
  EXPECT_NE(spike_time_s(6, 0.1), 0.0006);
  EXPECT_EQ(table_number(spike_time_s(6, 0.1)), "0.0006000000000000001");
  EXPECT_EQ(table_number(spike_time_s(183, 0.1)), "0.0183");
  EXPECT_EQ(table_number(spike_time_s(0, 0.1)), "0.0");
  for (int step = 0; step < 20000; step += 7) EXPECT_EQ(read_back(table_number(spike_time_s(step, 0.1))), step * 0.0001);
}

}  // namespace
}  // namespace flysim::test
