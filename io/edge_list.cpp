#include "io/edge_list.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <unordered_map>

#include "io/csv_reader.hpp"
#include "model/errors.hpp"
#include "io/input_file.hpp"
#include "model/deterministic_math.hpp"
#include "model/lif_constants.hpp"

namespace flysim {

namespace {


int64_t to_integer(std::string_view text) {
  int64_t value = 0;
  std::from_chars(text.data(), text.data() + text.size(), value);
  return value;
}

struct RawEdge {
  std::string pre, post;
  int32_t count;
  std::size_t line;
};

std::vector<RawEdge> read_edges(const std::string& path) {
  CsvReader reader(path);
  std::vector<RawEdge> edges;
  while (reader.next_line()) {
    if (CsvReader::trim(reader.line()).empty()) continue;
    if (reader.fields().size() != 3)
      throw reader.error("expected 3 fields 'pre,post,count', got " + std::to_string(reader.fields().size()) +
                         (CsvReader::trim(reader.fields()[0]) == "Presynaptic_ID"
                              ? ": this is FlyWire's connectivity table, read with network format flywire"
                              : ""));
    const auto count = reader.integer<int64_t>(2, "count");
    if (count < 1 || count > kMaxSynapsesPerConnection)
      throw reader.error("count " + std::to_string(count) + " is not a synapse count in 1.." +
                         std::to_string(kMaxSynapsesPerConnection));
    const std::string_view pre = CsvReader::trim(reader.fields()[0]), post = CsvReader::trim(reader.fields()[1]);
    if (pre.empty() || post.empty()) throw reader.error("empty neuron ID");
    edges.push_back({std::string(pre), std::string(post), static_cast<int32_t>(count), reader.line_number()});
  }
  if (edges.empty()) throw input_error(path + ": no edges in the file");
  return edges;
}

// The `node_id` column of a nodes file, with the line of each node.
std::vector<std::pair<std::string, std::size_t>> read_nodes(const std::string& path) {
  CsvReader reader(path);
  if (!reader.next_line()) throw input_error(path + ": empty file, expected a header with 'node_id'");
  const auto col = require_columns(reader, {"node_id"});
  std::vector<std::pair<std::string, std::size_t>> nodes;
  while (reader.next_line()) {
    if (CsvReader::trim(reader.line()).empty()) continue;
    if (col[0] >= reader.fields().size()) throw reader.error("missing column 'node_id'");
    const std::string_view id = CsvReader::trim(reader.fields()[col[0]]);
    if (id.empty()) throw reader.error("empty node_id");
    nodes.emplace_back(std::string(id), reader.line_number());
  }
  if (nodes.empty()) throw input_error(path + ": no nodes after the header");
  return nodes;
}

// IDs are all integers (root IDs) or all names (C. elegans cells): one that is not like
// the first is a typo, which would otherwise turn every ID into a name and surface far
// away (as stimulus IDs "not in the network").
bool ids_are_integers(const std::vector<RawEdge>& edges, const std::string& edges_path,
                      const std::vector<std::pair<std::string, std::size_t>>& nodes, const std::string& nodes_path) {
  const bool integers = CsvReader::is_integer(edges.front().pre);
  const auto refuse = [&](const std::string& path, std::size_t line, const std::string& id) {
    throw input_error_at(path, line, "neuron ID '" + printable(id) + "' is " + (integers ? "not an integer" : "an integer") +
                                         ", unlike the first ID of " + edges_path + " ('" + printable(edges.front().pre) +
                                         "'): IDs must be all integers or all names");
  };
  for (const RawEdge& e : edges)
    for (const std::string* id : {&e.pre, &e.post})
      if (CsvReader::is_integer(*id) != integers) refuse(edges_path, e.line, *id);
  for (const auto& [id, line] : nodes)
    if (CsvReader::is_integer(id) != integers) refuse(nodes_path, line, id);
  // Names that are numbers ("1.0", "7.2e+17": IDs that pandas wrote as floats) would become
  // neurons 1, 2, ... in byte order, unlike the numbers they spell.
  if (!integers) {
    const RawEdge& e = edges.front();
    char* end = nullptr;
    const double number = std::strtod(e.pre.c_str(), &end);
    if (!e.pre.empty() && end == e.pre.c_str() + e.pre.size() && std::isfinite(number))
      throw input_error_at(edges_path, e.line, "neuron ID '" + printable(e.pre) + "' is a number written as a float (as "
                                               "pandas writes integer columns that held a NaN): write the IDs as integers, "
                                               "e.g. df.astype({col: 'int64'}); names are for neurons named like 'ADAL'");
  }
  return integers;
}

// Integer IDs are compared as numbers ("007" is neuron 7); names as they are.
std::string canonical(const std::string& text, bool integers) {
  return integers ? std::to_string(to_integer(text)) : text;
}

// The neurons in ascending integer order, or in byte order of the names (ID = rank + 1).
struct NeuronIds {
  std::vector<int64_t> ids;
  std::vector<std::string> names;  // empty for integer IDs
  std::unordered_map<std::string, uint32_t> index;  // canonical text -> model index
};

NeuronIds order_neurons(std::vector<std::string> keys, bool integers) {
  if (integers)
    std::sort(keys.begin(), keys.end(), [](const std::string& a, const std::string& b) { return to_integer(a) < to_integer(b); });
  else
    std::sort(keys.begin(), keys.end());
  NeuronIds out;
  for (std::size_t k = 0; k < keys.size(); ++k) {
    out.ids.push_back(integers ? to_integer(keys[k]) : static_cast<int64_t>(k + 1));
    out.index.emplace(keys[k], static_cast<uint32_t>(k));
  }
  if (!integers) out.names = std::move(keys);
  return out;
}

}  // namespace

bool is_inhibitory(const SignRule& rule, int64_t neuron_id) {
  if (rule.inhibitory_fraction >= 1.0) return true;
  const auto threshold = static_cast<uint64_t>(std::ldexp(rule.inhibitory_fraction, 64));
  return splitmix64(rule.seed ^ splitmix64(static_cast<uint64_t>(neuron_id))) < threshold;
}

std::string edge_list_description(const std::string& edges_path, const SignRule& rule) {
  char rule_text[96];
  std::snprintf(rule_text, sizeof rule_text, " (signs: inhibitory fraction %g, seed %llu)", rule.inhibitory_fraction,
                static_cast<unsigned long long>(rule.seed));
  return "edge list " + edges_path + rule_text;
}

Network load_edge_list(const std::string& edges_path, const std::string& nodes_path, const SignRule& rule,
                       std::vector<std::string>* names) {
  if (!(rule.inhibitory_fraction >= 0.0 && rule.inhibitory_fraction <= 1.0))
    throw input_error("inhibitory fraction must be in [0, 1], got " + std::to_string(rule.inhibitory_fraction));
  const std::vector<RawEdge> edges = read_edges(edges_path);

  const auto nodes = nodes_path.empty() ? std::vector<std::pair<std::string, std::size_t>>{} : read_nodes(nodes_path);
  const bool integers = ids_are_integers(edges, edges_path, nodes, nodes_path);

  std::vector<std::string> keys;
  if (nodes_path.empty()) {
    for (const RawEdge& e : edges) {
      keys.push_back(canonical(e.pre, integers));
      keys.push_back(canonical(e.post, integers));
    }
    std::sort(keys.begin(), keys.end());
    keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  } else {
    std::unordered_map<std::string, std::size_t> line_of;
    for (const auto& [id, line] : nodes) {
      std::string key = canonical(id, integers);
      if (const auto [it, fresh] = line_of.emplace(key, line); !fresh)
        throw input_error_at(nodes_path, line, "node " + id + " is listed twice (first at line " + std::to_string(it->second) + ")");
      keys.push_back(std::move(key));
    }
  }
  NeuronIds neurons = order_neurons(std::move(keys), integers);
  auto find = [&](const std::string& text, const RawEdge& e) {
    const auto it = neurons.index.find(canonical(text, integers));
    if (it == neurons.index.end())
      throw input_error_at(edges_path, e.line, "neuron " + printable(text) + " is not in " + (nodes_path.empty() ? "the edge list" : nodes_path));
    return it->second;
  };

  Network net;
  net.root_ids = neurons.ids;
  std::unordered_map<uint64_t, std::size_t> line_of_pair;
  std::vector<Connection> connections;
  connections.reserve(edges.size());
  for (const RawEdge& e : edges) {
    const uint32_t pre = find(e.pre, e), post = find(e.post, e);
    const uint64_t pair = (uint64_t{pre} << 32) | post;
    if (const auto [it, fresh] = line_of_pair.emplace(pair, e.line); !fresh)
      throw input_error_at(edges_path, e.line, "connection " + e.pre + " -> " + e.post + " is repeated (first at line " +
                                                   std::to_string(it->second) + "); merge the counts into one row");
    const int32_t sign = is_inhibitory(rule, net.root_ids[pre]) ? -1 : 1;
    connections.push_back({pre, post, sign * e.count});
  }
  net.description = edge_list_description(edges_path, rule);
  build_csr(net, std::move(connections), edges_path);
  if (names) *names = std::move(neurons.names);
  return net;
}

}  // namespace flysim
