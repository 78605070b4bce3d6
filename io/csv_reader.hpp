#pragma once
// A streaming CSV reader for large, simple files: one record per line; a field may be in
// double quotes (R's write.csv, pandas' QUOTE_ALL), "" inside it standing for one quote.
// Reads in blocks so a 1 GB table never sits in memory whole, and keeps the line number
// so that every error can say file:line.
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "model/errors.hpp"
#include "io/input_file.hpp"

namespace flysim {

class CsvReader {
 public:
  explicit CsvReader(std::string path);
  ~CsvReader();
  CsvReader(const CsvReader&) = delete;
  CsvReader& operator=(const CsvReader&) = delete;

  // Next line split at commas into fields() (a quoted field without its quotes); false at
  // end of file. Skips nothing. A quote left open at the line's end is an error.
  bool next_line();
  const std::vector<std::string_view>& fields() const { return fields_; }
  std::string_view line() const { return line_; }
  std::size_t line_number() const { return line_number_; }
  const std::string& path() const { return path_; }
  // Bytes consumed so far and the file size, for progress reports.
  uint64_t bytes_read() const { return consumed_; }
  uint64_t file_size() const { return file_size_; }

  input_error error(const std::string& what) const { return input_error_at(path_, line_number_, what); }
  // Throws naming the line unless it has exactly `count` fields (`expected` names them):
  // an extra or a missing field means the file is not what the reader thinks it is.
  void require_field_count(std::size_t count, std::string_view expected) const;

  // Parses field `column` (0-based) as an integer; errors name the column.
  template <class Int>
  Int integer(std::size_t column, std::string_view column_name) const {
    if (column >= fields_.size())
      throw error("missing column '" + std::string(column_name) + "' (line has " + std::to_string(fields_.size()) + " fields)");
    return integer_in<Int>(fields_[column], column_name);
  }
  // Parses `text` (part of this line) as an integer; errors name the line and `column_name`.
  template <class Int>
  Int integer_in(std::string_view text, std::string_view column_name) const {
    text = trim(text);
    Int value{};
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size() || text.empty())
      throw error("column '" + std::string(column_name) + "': '" + printable(text) + "' is not " +
                  (ec == std::errc::result_out_of_range ? "in range" : "an integer"));
    return value;
  }

  static std::string_view trim(std::string_view s);
  // Whether `text` is a whole int64, nothing around it.
  static bool is_integer(std::string_view text) {
    int64_t value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    return !text.empty() && ec == std::errc() && end == text.data() + text.size();
  }

 private:
  bool refill();
  void refuse_binary_formats() const;
  std::string path_;
  std::FILE* file_ = nullptr;
  std::unique_ptr<char[]> buffer_;
  std::size_t begin_ = 0, end_ = 0;
  bool eof_ = false;
  bool first_block_ = true;  // its head tells a binary format
  std::string carry_;  // a line that straddles two blocks
  std::string_view line_;
  void split_fields();
  std::vector<std::string_view> fields_;
  std::deque<std::string> unquoted_;  // quoted fields that held "": their text with one quote
  std::size_t line_number_ = 0;
  uint64_t consumed_ = 0, file_size_ = 0;
};

// " (the header has no commas but tabs: ...)" when the line just read looks like a header
// with another separator; "" otherwise.
std::string separator_hint(const CsvReader& reader);

// Maps header names to column positions; throws naming file:1 when one is missing.
std::vector<std::size_t> require_columns(const CsvReader& reader, const std::vector<std::string_view>& names);

}  // namespace flysim
