// CsvReader on a file larger than its 8 MiB block, with a line that straddles the block
// boundary: every line and line number comes back whole; parquet and gzip files are named
// as such.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "model/errors.hpp"

#include "scratch_dir.hpp"
#include "io/csv_reader.hpp"

namespace flysim::test {
namespace {

constexpr std::size_t kBlockBytes = 8u << 20;  // io/csv_reader.cpp

std::string row(std::size_t i) { return std::to_string(i) + "," + std::to_string(i * 7919 % 100003) + ",neuron-" + std::to_string(i); }

TEST(CsvReader, LinesAcrossTheBlockBoundaryComeBackWhole) {
  const ScratchDir dir("flysim-csv");
  std::string text = "id,value,name\n";
  std::size_t rows = 0;
  while (text.size() < kBlockBytes + kBlockBytes / 2) text += row(rows++) + "\n";
  // A line straddles the boundary: the byte before it is not the end of a line.
  ASSERT_NE(text[kBlockBytes - 1], '\n');
  ASSERT_NE(text[kBlockBytes], '\n');
  spit(dir.path("big.csv"), text);

  CsvReader reader(dir.path("big.csv"));
  ASSERT_TRUE(reader.next_line());
  EXPECT_EQ(reader.line(), "id,value,name");
  for (std::size_t i = 0; i < rows; ++i) {
    ASSERT_TRUE(reader.next_line()) << "row " << i;
    ASSERT_EQ(reader.line(), row(i)) << "line " << reader.line_number();
    ASSERT_EQ(reader.line_number(), i + 2);
    ASSERT_EQ(reader.fields().size(), 3u);
    ASSERT_EQ(reader.integer<uint64_t>(0, "id"), i);
  }
  EXPECT_FALSE(reader.next_line());
  EXPECT_EQ(reader.bytes_read(), text.size());
  EXPECT_EQ(reader.file_size(), text.size());
}

// FlyWire's tables also come as parquet and gzip, a spreadsheet as .xlsx: the error names the format.
TEST(CsvReader, ParquetGzipAndZipFilesAreNamedAsSuch) {
  const ScratchDir dir("flysim-csv-binary");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {std::string("PAR1\x15\x04\x15", 7), "is a parquet file, not CSV; convert it first"},
      {std::string("\x1f\x8b\x08\x00", 4), "is gzip-compressed; decompress it first"},
      {std::string("PK\x03\x04\x14\x00", 6), "is a zip archive (an Excel .xlsx is one), not CSV"}};
  for (const auto& [bytes, message] : cases) {
    spit(dir.path("table"), bytes);
    CsvReader reader(dir.path("table"));
    try {
      reader.next_line();
      ADD_FAILURE() << "read as CSV: " << message;
    } catch (const input_error& e) {
      EXPECT_EQ(std::string(e.what()).rfind(dir.path("table") + ": " + message, 0), 0u) << e.what();
    }
  }
  // The second block of a CSV is not taken for a format's header.
  std::string text = "id\n";
  while (text.size() < kBlockBytes) text += "1\n";
  text.resize(kBlockBytes);
  text += "PAR1\n";
  spit(dir.path("long.csv"), text);
  CsvReader reader(dir.path("long.csv"));
  std::size_t lines = 0;
  while (reader.next_line()) ++lines;
  EXPECT_GT(lines, 1u);
}

// R's write.csv and pandas' QUOTE_ALL quote fields: a field's quotes are not its text, ""
// inside is one quote, and spaces around a quoted field are not part of it.
TEST(CsvReader, QuotedFieldsAreTheirInside) {
  const ScratchDir dir("flysim-csv-quotes");
  spit(dir.path("q.csv"), "\"a\",\"b,c\",plain, \"d\"\"e\" ,\"\"\n\"unclosed,1\n\"x\"y,2\n");
  CsvReader reader(dir.path("q.csv"));
  ASSERT_TRUE(reader.next_line());
  EXPECT_EQ(reader.fields(), (std::vector<std::string_view>{"a", "b,c", "plain", "d\"e", ""}));
  try {
    reader.next_line();
    ADD_FAILURE() << "an unclosed quote was read";
  } catch (const input_error& e) {
    EXPECT_EQ(std::string(e.what()), dir.path("q.csv") + ":2: a quoted field is not closed on its line (one record per line)");
  }
  try {
    reader.next_line();
    ADD_FAILURE() << "text after a closing quote was read";
  } catch (const input_error& e) {
    EXPECT_EQ(std::string(e.what()), dir.path("q.csv") + ":3: '\"x\"y': text after a quoted field's closing quote");
  }
}

// A header that seems to have the column: another separator, or the name in another case.
TEST(CsvReader, AMissingColumnSaysWhyTheHeaderSeemsToHaveIt) {
  const ScratchDir dir("flysim-csv-header");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"step\tneuron_id\n", ":1: missing column 'step' in the header (the header has no commas but tabs: flysim reads comma-separated files)"},
      {"step;neuron_id\n", ":1: missing column 'step' in the header (the header has no commas but semicolons: flysim reads comma-separated files)"},
      {"Step,neuron_id\n", ":1: missing column 'step' in the header (it has 'Step': column names are case-sensitive)"},
      {"step,neuron_id,step\n", ":1: column 'step' appears twice in the header"},
      {"\"step\",\"neuron_id\"\n", ""}};
  for (const auto& [text, message] : cases) {
    spit(dir.path("h.csv"), text);
    CsvReader reader(dir.path("h.csv"));
    ASSERT_TRUE(reader.next_line());
    if (message.empty()) {
      EXPECT_EQ(require_columns(reader, {"step", "neuron_id"}), (std::vector<std::size_t>{0, 1}));
      continue;
    }
    try {
      require_columns(reader, {"step", "neuron_id"});
      ADD_FAILURE() << text;
    } catch (const input_error& e) {
      EXPECT_EQ(std::string(e.what()), dir.path("h.csv") + message);
    }
  }
}

}  // namespace
}  // namespace flysim::test
