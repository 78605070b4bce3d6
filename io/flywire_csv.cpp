#include "io/flywire_csv.hpp"

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <unordered_map>

#include "io/atomic_file.hpp"
#include "io/csv_reader.hpp"
#include "io/input_file.hpp"
#include "model/lif_constants.hpp"

namespace flysim {

namespace {
bool is_boolean_word(std::string_view s) {
  for (std::string_view word : {"True", "False", "TRUE", "FALSE", "true", "false"})
    if (s == word) return true;
  return false;
}
}  // namespace

std::vector<int64_t> load_flywire_neurons(const std::string& path) {
  CsvReader reader(path);
  if (!reader.next_line()) throw input_error(path + ": empty file, expected the header ',Completed'");
  int64_t first_field = 0;
  const std::string_view head = CsvReader::trim(reader.fields()[0]);
  if (std::from_chars(head.data(), head.data() + head.size(), first_field).ptr == head.data() + head.size() && !head.empty())
    throw reader.error("expected the header ',Completed' (the first line holds a neuron ID; a headerless file would "
                       "shift every index by one)");
  if (const std::string hint = separator_hint(reader); !hint.empty())
    throw reader.error("one column in the header '" + printable(reader.line().substr(0, 80)) + "'" + hint);
  const std::size_t columns = reader.fields().size();
  // pandas' to_csv without index=False puts its row numbers before the IDs' column, whose
  // name read_csv had made "Unnamed: 0": the numbers would be taken as IDs.
  if (columns >= 2 && head.empty() && CsvReader::trim(reader.fields()[1]).starts_with("Unnamed: "))
    throw reader.error("the header '" + printable(reader.line().substr(0, 80)) + "' has pandas' row numbers before the "
                       "IDs (a DataFrame written without index=False): write it with to_csv(..., index=False), or read "
                       "it with read_csv(..., index_col=0) first");
  // The IDs are the first column, as the reference's read_csv(index_col=0) takes them; a
  // column named Completed must hold booleans (True/False as pandas, TRUE/FALSE as R writes them).
  std::size_t completed_column = columns;
  for (std::size_t c = 1; c < columns; ++c)
    if (CsvReader::trim(reader.fields()[c]) == "Completed") completed_column = c;
  std::vector<int64_t> ids;
  std::unordered_map<int64_t, std::size_t> first_line;
  bool second_integers = columns >= 2;  // row numbers before an ID column: see below
  while (reader.next_line()) {
    if (CsvReader::trim(reader.line()).empty()) continue;
    reader.require_field_count(columns, "as many as the header");
    const auto id = reader.integer<int64_t>(0, "root ID");
    second_integers = second_integers && CsvReader::is_integer(CsvReader::trim(reader.fields()[1]));
    if (completed_column < columns) {
      const std::string_view completed = CsvReader::trim(reader.fields()[completed_column]);
      if (!is_boolean_word(completed))
        throw reader.error("column 'Completed': '" + printable(completed) + "' is not True or False");
    }
    const auto [it, fresh] = first_line.emplace(id, reader.line_number());
    if (!fresh)
      throw reader.error("neuron ID " + std::to_string(id) + " appears more than once (first on line " +
                         std::to_string(it->second) + ")");
    ids.push_back(id);
  }
  if (ids.empty()) throw input_error(path + ": no neurons after the header");
  // A table written with its row numbers (pandas' to_csv of a reset index, R's write.csv
  // with row.names) holds 0..n-1 or 1..n first and the IDs after: they would be taken as IDs.
  const auto counts_rows = [&](int64_t from) {
    for (std::size_t k = 0; k < ids.size(); ++k)
      if (ids[k] != from + static_cast<int64_t>(k)) return false;
    return true;
  };
  if (second_integers && ids.size() > 1 && (counts_rows(0) || counts_rows(1)))
    throw input_error(path + ": the first column holds the row numbers " + std::to_string(ids.front()) + ".." +
                      std::to_string(ids.back()) + " and the second integers: the table was written with its row "
                      "numbers (pandas: to_csv(..., index=False); R: write.csv(..., row.names=FALSE)); the root IDs "
                      "must come first");
  return ids;
}

std::string flywire_description(const std::string& connectivity_path) { return "FlyWire CSV " + connectivity_path; }

Network load_flywire(const std::string& neurons_path, const std::string& connectivity_path, const ProgressFn& progress) {
  Network net;
  net.root_ids = load_flywire_neurons(neurons_path);
  net.description = flywire_description(connectivity_path);
  const int64_t n = static_cast<int64_t>(net.root_ids.size());

  CsvReader reader(connectivity_path);
  if (!reader.next_line()) throw input_error(connectivity_path + ": empty file, expected a header");
  if (reader.fields().size() == 3 && CsvReader::trim(reader.fields()[0]) != "Presynaptic_ID")
    throw reader.error("expected FlyWire's connectivity header (Presynaptic_ID, ...), got 3 fields: an edge list "
                       "'pre,post,count' is read with network format edgelist");
  const auto col = require_columns(reader, {"Presynaptic_ID", "Postsynaptic_ID", "Presynaptic_Index",
                                            "Postsynaptic_Index", "Connectivity", "Excitatory",
                                            "Excitatory x Connectivity"});
  const std::size_t columns = reader.fields().size();
  std::vector<Connection> connections;
  uint64_t next_report = 64u << 20;
  while (reader.next_line()) {
    if (CsvReader::trim(reader.line()).empty()) continue;
    reader.require_field_count(columns, "as many as the header");
    const auto pre_id = reader.integer<int64_t>(col[0], "Presynaptic_ID");
    const auto post_id = reader.integer<int64_t>(col[1], "Postsynaptic_ID");
    const auto pre = reader.integer<int64_t>(col[2], "Presynaptic_Index");
    const auto post = reader.integer<int64_t>(col[3], "Postsynaptic_Index");
    const auto count = reader.integer<int32_t>(col[4], "Connectivity");
    const auto sign = reader.integer<int32_t>(col[5], "Excitatory");
    const auto product = reader.integer<int32_t>(col[6], "Excitatory x Connectivity");
    for (auto [index, name] : {std::pair{pre, "Presynaptic_Index"}, std::pair{post, "Postsynaptic_Index"}})
      if (index < 0 || index >= n)
        throw reader.error(std::string(name) + " " + std::to_string(index) + " is out of range: " + neurons_path +
                           " has " + std::to_string(n) + " neurons (0.." + std::to_string(n - 1) + ")");
    if (net.root_ids[pre] != pre_id)
      throw reader.error("Presynaptic_ID " + std::to_string(pre_id) + " is not the neuron at index " +
                         std::to_string(pre) + " of " + neurons_path + " (" + std::to_string(net.root_ids[pre]) +
                         "): the neurons file must be the one this connectivity table was made with");
    if (net.root_ids[post] != post_id)
      throw reader.error("Postsynaptic_ID " + std::to_string(post_id) + " is not the neuron at index " +
                         std::to_string(post) + " of " + neurons_path + " (" + std::to_string(net.root_ids[post]) +
                         "): the neurons file must be the one this connectivity table was made with");
    if (count < 1 || count > kMaxSynapsesPerConnection)
      throw reader.error("Connectivity " + std::to_string(count) + " is not a synapse count in 1.." +
                         std::to_string(kMaxSynapsesPerConnection));
    if (sign != 1 && sign != -1) throw reader.error("Excitatory must be 1 or -1, got " + std::to_string(sign));
    if (product != sign * count)
      throw reader.error("Excitatory x Connectivity is " + std::to_string(product) + ", expected " + std::to_string(sign * count));
    connections.push_back({static_cast<uint32_t>(pre), static_cast<uint32_t>(post), product});
    if (progress && reader.bytes_read() >= next_report) {
      progress(reader.bytes_read(), reader.file_size());
      next_report += 64u << 20;
    }
  }
  if (connections.empty()) throw input_error(connectivity_path + ": no connections after the header");
  build_csr(net, std::move(connections), connectivity_path);
  return net;
}

void write_flywire(const Network& net, const std::string& neurons_path, const std::string& connectivity_path,
                   const ProgressFn& progress) {
  // Both files are committed together at the end: a write that fails or is stopped
  // leaves neither (and any earlier pair as it was), never a neurons file alone.
  AtomicFile neurons(neurons_path);
  std::fputs(",Completed\n", neurons.stream());
  for (int64_t id : net.root_ids) std::fprintf(neurons.stream(), "%lld,True\n", static_cast<long long>(id));
  AtomicFile out(connectivity_path);
  std::fputs("Presynaptic_ID,Postsynaptic_ID,Presynaptic_Index,Postsynaptic_Index,Connectivity,Excitatory,"
             "Excitatory x Connectivity\n", out.stream());
  const std::size_t n = net.neuron_count();
  for (std::size_t pre = 0; pre < n; ++pre) {
    for (uint64_t e = net.out_offsets[pre]; e < net.out_offsets[pre + 1]; ++e) {
      const int32_t signed_synapses = net.out_weights[e] / kUnitsPerSynapse;
      const uint32_t post = net.out_targets[e];
      std::fprintf(out.stream(), "%lld,%lld,%zu,%u,%d,%d,%d\n", static_cast<long long>(net.root_ids[pre]),
                   static_cast<long long>(net.root_ids[post]), pre, post, std::abs(signed_synapses),
                   signed_synapses < 0 ? -1 : 1, signed_synapses);
    }
    if (progress && (pre % 8192 == 0 || pre + 1 == n)) progress(pre + 1, n);
  }
  neurons.commit();
  out.commit();
}

}  // namespace flysim
