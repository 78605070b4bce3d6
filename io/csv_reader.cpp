#include "io/csv_reader.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <utility>

#include "io/input_file.hpp"

namespace flysim {

namespace {
constexpr std::size_t kBlockBytes = 8u << 20;
}

CsvReader::CsvReader(std::string path) : path_(std::move(path)), buffer_(new char[kBlockBytes]) {
  file_ = open_input_file(path_, "a CSV file");
  std::error_code ec;
  file_size_ = std::filesystem::file_size(path_, ec);
}

CsvReader::~CsvReader() {
  if (file_) std::fclose(file_);
}

bool CsvReader::refill() {
  if (eof_) return false;
  begin_ = 0;
  end_ = std::fread(buffer_.get(), 1, kBlockBytes, file_);
  if (end_ < kBlockBytes) {
    if (std::ferror(file_)) throw input_error(path_ + ": read error: " + std::strerror(errno));
    eof_ = true;
  }
  if (std::exchange(first_block_, false)) refuse_binary_formats();
  return end_ > 0;
}

void CsvReader::refuse_binary_formats() const {
  // FlyWire also ships its tables as parquet and gzip: name the format, not a missing column.
  const std::string_view head(buffer_.get(), std::min<std::size_t>(end_, 4));
  if (head == "PAR1")
    throw input_error(path_ + ": is a parquet file, not CSV; convert it first, e.g. python3 -c \"import pandas as pd; "
                      "pd.read_parquet('" + path_ + "').to_csv('OUT.csv', index=False)\"");
  if (head.size() >= 2 && head[0] == '\x1f' && head[1] == '\x8b')
    throw input_error(path_ + ": is gzip-compressed; decompress it first (gunzip -k " + path_ + ")");
  if (head == std::string_view("PK\x03\x04", 4))
    throw input_error(path_ + ": is a zip archive (an Excel .xlsx is one), not CSV; save or export it as CSV first "
                      "(pandas: pd.read_excel(FILE).to_csv('OUT.csv', index=False))");
}

std::string_view CsvReader::trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

bool CsvReader::next_line() {
  carry_.clear();
  bool straddles = false;
  for (;;) {
    if (begin_ == end_ && !refill()) {
      if (!straddles) return false;
      line_ = carry_;
      break;
    }
    const char* start = buffer_.get() + begin_;
    const void* nl = std::memchr(start, '\n', end_ - begin_);
    if (nl) {
      const std::size_t len = static_cast<const char*>(nl) - start;
      begin_ += len + 1;
      consumed_ += len + 1;
      if (straddles) {
        carry_.append(start, len);
        line_ = carry_;
      } else {
        line_ = std::string_view(start, len);
      }
      break;
    }
    carry_.append(start, end_ - begin_);
    consumed_ += end_ - begin_;
    begin_ = end_;
    straddles = true;
  }
  if (!line_.empty() && line_.back() == '\r') line_.remove_suffix(1);
  ++line_number_;
  if (line_number_ == 1) line_ = strip_utf8_bom(line_);
  split_fields();
  return true;
}

void CsvReader::split_fields() {
  fields_.clear();
  unquoted_.clear();
  std::size_t pos = 0;
  for (;;) {
    std::size_t start = pos;
    while (start < line_.size() && (line_[start] == ' ' || line_[start] == '\t')) ++start;
    if (start < line_.size() && line_[start] == '"') {
      // A quoted field: up to the quote that is not doubled, then spaces and a comma or the end.
      bool doubled = false;
      std::size_t close = start + 1;
      for (;; close += 2) {
        close = line_.find('"', close);
        if (close == std::string_view::npos) throw error("a quoted field is not closed on its line (one record per line)");
        if (close + 1 >= line_.size() || line_[close + 1] != '"') break;
        doubled = true;
      }
      std::string_view inside = line_.substr(start + 1, close - start - 1);
      if (doubled) {
        std::string text;
        for (std::size_t i = 0; i < inside.size(); ++i) {
          text += inside[i];
          if (inside[i] == '"') ++i;  // "" is one quote
        }
        inside = unquoted_.emplace_back(std::move(text));
      }
      fields_.push_back(inside);
      pos = close + 1;
      while (pos < line_.size() && (line_[pos] == ' ' || line_[pos] == '\t')) ++pos;
      if (pos == line_.size()) return;
      if (line_[pos] != ',') throw error("'" + printable(line_.substr(start, pos + 1 - start)) + "': text after a quoted field's closing quote");
      ++pos;
      continue;
    }
    const std::size_t comma = line_.find(',', pos);
    if (comma == std::string_view::npos) {
      fields_.push_back(line_.substr(pos));
      return;
    }
    fields_.push_back(line_.substr(pos, comma - pos));
    pos = comma + 1;
  }
}

void CsvReader::require_field_count(std::size_t count, std::string_view expected) const {
  if (fields_.size() != count)
    throw error("expected " + std::to_string(count) + (count == 1 ? " field" : " fields") + " (" + std::string(expected) +
                "), got " + std::to_string(fields_.size()) + ": '" + printable(line_.substr(0, 80)) + "'");
}

std::string separator_hint(const CsvReader& reader) {
  const std::string_view line = reader.line();
  if (reader.fields().size() == 1 && (line.find('\t') != std::string_view::npos || line.find(';') != std::string_view::npos))
    return " (the header has no commas but " + std::string(line.find('\t') != std::string_view::npos ? "tabs" : "semicolons") +
           ": flysim reads comma-separated files)";
  return "";
}

namespace {
// Why a header may lack a column it seems to have: another separator, or another case.
std::string header_hint(const CsvReader& reader, std::string_view name) {
  if (std::string hint = separator_hint(reader); !hint.empty()) return hint;
  const auto lower = [](std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
  };
  for (std::string_view field : reader.fields())
    if (lower(CsvReader::trim(field)) == lower(name))
      return " (it has '" + printable(CsvReader::trim(field)) + "': column names are case-sensitive)";
  return "";
}
}  // namespace

std::vector<std::size_t> require_columns(const CsvReader& reader, const std::vector<std::string_view>& names) {
  std::vector<std::size_t> columns;
  for (std::string_view name : names) {
    std::size_t found = reader.fields().size();
    for (std::size_t c = 0; c < reader.fields().size(); ++c)
      if (CsvReader::trim(reader.fields()[c]) == name) {
        if (found != reader.fields().size()) throw reader.error("column '" + std::string(name) + "' appears twice in the header");
        found = c;
      }
    if (found == reader.fields().size()) throw reader.error("missing column '" + std::string(name) + "' in the header" + header_hint(reader, name));
    columns.push_back(found);
  }
  return columns;
}

}  // namespace flysim
