#include "io/stimulus_files.hpp"

#include <algorithm>
#include <cctype>
#include <utility>

#include "io/csv_reader.hpp"

namespace flysim {

namespace {
// Letters and underscores only: a mistyped ID (l7205..., O7205...) holds digits and stays an error.
bool is_column_name(std::string_view entry) {
  return std::all_of(entry.begin(), entry.end(), [](char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0 || c == '_'; });
}
}  // namespace

std::vector<ListedId> read_id_list(const std::string& path) {
  CsvReader reader(path);
  std::vector<ListedId> ids;
  bool first_entry = true;
  while (reader.next_line()) {
    // '#' starts a comment, on a line of its own or after the ID.
    const std::string_view line = reader.line();
    std::string_view entry = CsvReader::trim(line.substr(0, line.find('#')));
    if (entry.empty()) continue;
    // An ID in double quotes, as R writes IDs kept as text, is that ID.
    if (entry.size() >= 2 && entry.front() == '"' && entry.back() == '"') entry = entry.substr(1, entry.size() - 2);
    // A first line of letters and underscores is a column's name (pandas writes
    // flywire_id above a Series' IDs, R "x"), not a mistyped ID.
    if (std::exchange(first_entry, false) && is_column_name(entry)) continue;
    if (const auto commas = std::count(entry.begin(), entry.end(), ','); commas != 0)
      throw reader.error("expected 1 field (one root ID per line), got " + std::to_string(commas + 1));
    ids.push_back({reader.integer_in<int64_t>(entry, "neuron ID"), reader.line_number()});
  }
  return ids;
}

std::vector<uint32_t> load_id_list_as_indices(const std::string& path, const Network& net) {
  std::vector<uint32_t> neurons = listed_ids_as_indices(path, read_id_list(path), net);
  if (neurons.empty()) throw input_error(path + ": no neuron IDs in the file");
  return neurons;
}

std::vector<Kick> load_kicks(const std::string& path, const Network& net) {
  const auto index = index_of_ids(net.root_ids, "network");
  CsvReader reader(path);
  if (!reader.next_line()) throw input_error(path + ": empty file, expected the header 'step,neuron_id'");
  // The columns are found by name, others (pandas' row numbers, a t_ms) are not read.
  const auto col = require_columns(reader, {"step", "neuron_id"});
  const std::size_t columns = reader.fields().size();
  std::vector<Kick> kicks;
  std::vector<std::size_t> lines;  // of each kick, for the errors
  while (reader.next_line()) {
    if (CsvReader::trim(reader.line()).empty()) continue;
    reader.require_field_count(columns, "as many as the header");
    const auto step = reader.integer<int32_t>(col[0], "step");
    const auto id = reader.integer<int64_t>(col[1], "neuron_id");
    if (step < 0) throw reader.error("step " + std::to_string(step) + " is negative");
    const auto it = index.find(id);
    if (it == index.end()) throw reader.error("neuron ID " + std::to_string(id) + " is not in the network (" + net.short_description() + ")");
    kicks.push_back({step, it->second});
    lines.push_back(reader.line_number());
  }
  if (kicks.empty()) throw input_error(path + ": no kicks after the header 'step,neuron_id'");
  return sorted_kicks(kicks, net, [&](std::size_t k) { return path + ":" + std::to_string(lines[k]); });
}

}  // namespace flysim
