#pragma once
// JSON from a type's one field list (fields() with named fields, model/FIELDS.md): an
// object with a key per field, in the list's order, both ways. Requests are read
// strictly (unknown, repeated, mistyped and missing fields refused by name); the
// service's answers are read leniently (a client keeps working against a newer service).
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "model/named_field.hpp"
#include "model/stimulus.hpp"

namespace flysim {

// A request refused (the control API answers HTTP 400). The message names the field.
class bad_request : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

namespace field_json {

using json = nlohmann::json;
// Output keeps the order of the field list, so a reader sees the fields as documented.
using ordered_json = nlohmann::ordered_json;

template <class T>
inline constexpr bool is_vector_v = false;
template <class T>
inline constexpr bool is_vector_v<std::vector<T>> = true;

// Messages and paths may hold any bytes; the JSON written must still be valid UTF-8.
std::string dump(const ordered_json& j);

// ---- writing: every field; a std::optional only when it is set.
template <class T>
ordered_json object_json(const T& x);

template <class T>
ordered_json value_json(const T& x) {
  if constexpr (std::is_same_v<T, SilenceMode>) {
    return silence_mode_name(x);
  } else if constexpr (std::is_same_v<T, std::string> || std::is_arithmetic_v<T>) {
    return x;
  } else if constexpr (is_vector_v<T>) {
    ordered_json list = ordered_json::array();
    for (const auto& element : x) list.push_back(value_json(element));
    return list;
  } else {
    return object_json(x);
  }
}

template <class T>
ordered_json object_json(const T& x) {
  ordered_json j = ordered_json::object();
  const auto put = [&](const auto& field) {
    using Member = std::remove_cvref_t<decltype(field.value)>;
    if constexpr (is_std_optional_v<Member>) {
      if (field.value) j[field.name] = value_json(*field.value);
    } else {
      j[field.name] = value_json(field.value);
    }
  };
  fields(x, [&](const auto&... field) { (put(field), ...); });
  return j;
}

// ---- reading a request, strictly
// `text` as a JSON object, refused (bad_request) when it is not valid JSON, nests too
// deeply, gives a key twice in one object, or is not an object. Blank text is `{}`.
json parse_object(const std::string& text);

[[noreturn]] void wrong_type(const std::string& name, const std::string& expected, const json& value);
// Refuses keys of `j` not in `names` ("unknown field \"PREFIX KEY\": WHERE takes NAMES").
void refuse_unknown_fields(const json& j, const std::string& where, const std::vector<std::string>& names,
                           const std::string& prefix = "");
// The value of `name` in `j`; missing, refused saying `what` it holds.
const json& required(const json& j, const std::string& name, const std::string& what);
int64_t integer_field(const json& value, const std::string& name);
double number_field(const json& value, const std::string& name);
std::string string_field(const json& value, const std::string& name, const char* expected = "a string");
const json& array_field(const json& value, const std::string& name);
SilenceMode silence_mode_field(const json& value, const std::string& name);

template <class T>
std::vector<std::string> field_names() {
  T x{};
  std::vector<std::string> names;
  fields(x, [&](const auto&... field) { (names.push_back(field.name), ...); });
  return names;
}

// What an element of a list of T must be: an object {"a": ..., "b": ...}.
template <class T>
std::string object_shape() {
  std::vector<std::string> keys;
  for (const std::string& name : field_names<T>()) keys.push_back(fmt::format("\"{}\": ...", name));
  return fmt::format("an object {{{}}}", fmt::join(keys, ", "));
}

template <class T>
void read_object(const json& j, T& x, const std::string& where, const std::string& prefix = "");

// `value` into `out`; `name` names it in messages, `expected` (or its type's word) says
// what it should have been.
template <class T>
void read_value(const json& value, const std::string& name, T& out, const char* expected = nullptr) {
  if constexpr (std::is_same_v<T, SilenceMode>) {
    out = silence_mode_field(value, name);
  } else if constexpr (std::is_same_v<T, std::string>) {
    out = string_field(value, name, expected ? expected : "a string");
  } else if constexpr (std::is_same_v<T, bool>) {
    if (!value.is_boolean()) wrong_type(name, "a boolean", value);
    out = value.get<bool>();
  } else if constexpr (std::is_integral_v<T>) {
    const int64_t number = integer_field(value, name);
    if (!std::in_range<T>(number))
      throw bad_request(fmt::format("field \"{}\" is out of range: {}", name, number));
    out = static_cast<T>(number);
  } else if constexpr (std::is_floating_point_v<T>) {
    out = static_cast<T>(number_field(value, name));
  } else if constexpr (is_vector_v<T>) {
    const json& list = array_field(value, name);
    out.clear();
    for (std::size_t k = 0; k < list.size(); ++k) read_value(list[k], fmt::format("{}[{}]", name, k), out.emplace_back());
  } else {
    if (!value.is_object()) wrong_type(name, object_shape<T>(), value);
    read_object(value, out, T::noun, name + ".");
  }
}

// The fields of `x` from object `j`, in list order: unknown keys refused first (`where`
// names what takes the fields), then each field; a missing one unless it is optional.
// `prefix` names a nested object's fields ("kicks[0].").
template <class T>
void read_object(const json& j, T& x, const std::string& where, const std::string& prefix) {
  refuse_unknown_fields(j, where, field_names<T>(), prefix);
  const std::string context = prefix.empty() ? "" : prefix.substr(0, prefix.size() - 1) + ": ";
  const auto get = [&](auto&& field) {
    using Member = std::remove_cvref_t<decltype(field.value)>;
    const std::string name = prefix + field.name;
    if constexpr (is_std_optional_v<Member>) {
      if (j.contains(field.name)) read_value(j.at(field.name), name, field.value.emplace(), field.expects);
    } else {
      read_value(required(j, field.name, context + (field.what ? field.what : "")), name, field.value, field.expects);
    }
  };
  fields(x, [&](auto&&... field) { (get(field), ...); });
}

// ---- reading the service's answers, leniently
// What a client calls a value of type T it could not read.
template <class T>
const char* type_word() {
  if constexpr (std::is_same_v<T, std::string>) return "a string";
  else if constexpr (std::is_same_v<T, bool>) return "a boolean";
  else if constexpr (std::is_arithmetic_v<T>) return "a number";
  else if constexpr (std::is_same_v<T, std::vector<std::string>>) return "a list of strings";
  else return "an object or list of the form status reports";
}

// `value` into `out` as far as it fits: fields an object lacks keep their values; a value
// of the wrong type throws.
template <class T>
void read_loosely(const json& value, T& out) {
  if constexpr (std::is_same_v<T, std::string> || std::is_arithmetic_v<T>) {
    out = value.get<T>();
  } else if constexpr (is_vector_v<T>) {
    if (!value.is_array()) throw std::invalid_argument("not a list");
    out.clear();
    for (const json& element : value) read_loosely(element, out.emplace_back());
  } else {
    fields(out, [&](auto&&... field) {
      ((value.contains(field.name) ? read_loosely(value.at(field.name), field.value) : void()), ...);
    });
  }
}

// `body` as JSON; a discarded value when it is not JSON within the depth limit.
json parse_untrusted(const std::string& body);
// `body` as a JSON object; std::runtime_error naming `what` when it is not one.
json parse_answer(const std::string& body, const char* what);

// An answer of the service (`body`, its `what`: "status", "reply") as T. Fields it does
// not know are ignored (a newer service may report more); one of the wrong type throws
// std::runtime_error naming it, as does a body that is not a JSON object.
template <class T>
T answer_from_json(const std::string& body, const char* what) {
  const json j = parse_answer(body, what);
  T x;
  const auto get = [&](auto&& field) {
    using Member = std::remove_cvref_t<decltype(field.value)>;
    if (!j.contains(field.name)) return;
    try {
      read_loosely(j.at(field.name), field.value);
    } catch (const std::exception&) {
      throw std::runtime_error(
          fmt::format("the service's {} has {} = {}, not {}", what, field.name, j.at(field.name).dump(), type_word<Member>()));
    }
  };
  fields(x, [&](auto&&... field) { (get(field), ...); });
  return x;
}

}  // namespace field_json
}  // namespace flysim
