#include "apps/flysim/screen/screen_table.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <map>

#include "apps/flysim/screen/screen_manifest.hpp"
#include "io/csv_reader.hpp"
#include "io/input_file.hpp"
#include "io/reference_spikes.hpp"
#include "io/stimulus_files.hpp"
#include "model/errors.hpp"

namespace flysim::app {

namespace {

const std::vector<std::string> kColumns = {"name", "excite", "rate_hz", "excite2", "rate2_hz", "silence"};

// The IDs of one field: "ID;ID;..." on this line, or "@FILE" (relative to the table's folder).
ScreenIds id_field(const CsvReader& reader, std::string_view text, const std::string& column) {
  const std::string where = "column '" + column + "': ";
  if (text.front() == '@') {
    const std::filesystem::path named(std::string(CsvReader::trim(text.substr(1))));
    if (named.empty()) throw reader.error(where + "'@' names no file");
    const std::string file = named.is_absolute() ? named.string() : (std::filesystem::path(reader.path()).parent_path() / named).string();
    if (!std::filesystem::is_regular_file(file)) throw reader.error(where + "'" + printable(file) + "' is not a file");
    ScreenIds ids{file, read_id_list(file), column};
    if (ids.ids.empty()) throw reader.error(where + file + " lists no neuron IDs");
    return ids;
  }
  ScreenIds ids{reader.path(), {}, column};
  for (std::size_t pos = 0; pos <= text.size();) {
    const std::size_t end = std::min(text.find(';', pos), text.size());
    const std::string_view item = CsvReader::trim(text.substr(pos, end - pos));
    int64_t id = 0;
    const auto [stop, ec] = std::from_chars(item.data(), item.data() + item.size(), id);
    if (item.empty() || ec != std::errc() || stop != item.data() + item.size() || id <= 0)
      throw reader.error(where + "'" + printable(item) + "' is not a root ID (IDs are separated by ';', or @FILE names a list)");
    ids.ids.push_back({id, reader.line_number()});
    pos = end + 1;
  }
  return ids;
}

double rate_field(const CsvReader& reader, std::string_view text, const std::string& column) {
  double rate = 0;
  const auto [stop, ec] = std::from_chars(text.data(), text.data() + text.size(), rate);
  if (ec != std::errc() || stop != text.data() + text.size() || !std::isfinite(rate) || rate < 0)
    throw reader.error("column '" + column + "': '" + printable(text) + "' is not a rate in Hz (a number >= 0)");
  return rate;
}

}  // namespace

std::vector<ScreenExperiment> read_screen_table(const std::string& path) {
  CsvReader reader(path);
  // Blank lines and '#' comments are skipped, before the header too, as in the ID lists.
  const auto next_row = [&reader] {
    while (reader.next_line())
      if (const std::string_view line = CsvReader::trim(reader.line()); !line.empty() && line.front() != '#') return true;
    return false;
  };
  if (!next_row()) throw input_error(path + ": empty file, expected a header with 'name' and any of excite, rate_hz, excite2, rate2_hz, silence");
  std::map<std::string, std::size_t> column_of;
  for (std::size_t k = 0; k < reader.fields().size(); ++k) {
    const std::string column(CsvReader::trim(reader.fields()[k]));
    if (std::find(kColumns.begin(), kColumns.end(), column) == kColumns.end())
      throw reader.error("unknown column '" + printable(column) + "'; the columns are name, excite, rate_hz, excite2, rate2_hz, silence" +
                         (column.empty() && k == 0 ? " (an unnamed first column is pandas' row numbers: write the table with index=False)"
                                                   : separator_hint(reader)));
    if (!column_of.emplace(column, k).second) throw reader.error("column '" + printable(column) + "' appears twice");
  }
  if (!column_of.count("name")) throw reader.error("no column 'name': every experiment needs one");
  const std::size_t columns = reader.fields().size();
  std::vector<ScreenExperiment> experiments;
  while (next_row()) {
    if (reader.fields().size() != columns)
      throw reader.error(std::to_string(reader.fields().size()) + " fields, but the header has " + std::to_string(columns));
    const auto field = [&](const std::string& column) -> std::string_view {
      const auto it = column_of.find(column);
      return it == column_of.end() ? std::string_view() : CsvReader::trim(reader.fields()[it->second]);
    };
    ScreenExperiment e;
    e.name = std::string(field("name"));
    if (e.name.empty()) throw reader.error("column 'name' is empty: every experiment needs a name");
    // Names go into the CSV outputs unquoted, as the reference's exp_name column: nothing
    // there may split a field, open a quoted one or end a line.
    if (!is_plain_name(e.name))
      throw reader.error("experiment name '" + printable(e.name) + "' holds a comma, a quote, a control character or bytes "
                         "that are not UTF-8; names are written unquoted into the CSV outputs");
    // The screen's manifest keeps "experiment NAME = plan" lines, split at the first " = ".
    if (!fits_manifest_key(e.name))
      throw reader.error("experiment name '" + printable(e.name) + "' holds ' = ', which the screen's progress folder "
                         "uses to separate a name from its plan; write it without spaces around '='");
    e.file = path;
    e.line = reader.line_number();
    if (!field("excite").empty()) e.excite = id_field(reader, field("excite"), "excite");
    if (!field("excite2").empty()) e.excite2 = id_field(reader, field("excite2"), "excite2");
    if (!field("silence").empty()) e.silence = id_field(reader, field("silence"), "silence");
    if (!field("rate_hz").empty()) e.rate_Hz = rate_field(reader, field("rate_hz"), "rate_hz");
    if (!field("rate2_hz").empty()) e.rate2_Hz = rate_field(reader, field("rate2_hz"), "rate2_hz");
    if (e.excite2 && !e.rate2_Hz) throw reader.error("column 'rate2_hz' is empty, but excite2 names neurons: the group needs its rate");
    if (e.rate2_Hz && !e.excite2) throw reader.error("column 'excite2' is empty, but rate2_hz is set: the group needs its neurons");
    experiments.push_back(std::move(e));
  }
  if (experiments.empty()) throw input_error(path + ": no experiments (rows after the header)");
  return experiments;
}

void refuse_duplicate_names(const std::vector<ScreenExperiment>& experiments) {
  std::map<std::string, std::string> first_at;
  for (const ScreenExperiment& e : experiments) {
    const auto [it, fresh] = first_at.emplace(e.name, e.origin());
    if (!fresh) throw input_error(e.origin() + ": experiment name '" + e.name + "' is already used at " + it->second + "; names must be unique");
  }
}

}  // namespace flysim::app
