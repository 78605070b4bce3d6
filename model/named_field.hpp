#pragma once
// A field of a type that also travels as JSON: its key beside the member, so that one
// fields() list serves CAF, Cereal and JSON alike (model/FIELDS.md).
#include <concepts>
#include <optional>
#include <type_traits>

namespace flysim {

template <class T>
struct NamedField {
  const char* name;               // the JSON key
  T& value;                       // the member (const when the object is)
  const char* what = nullptr;     // what it holds: says why a missing required field is needed
  const char* expects = nullptr;  // what a value of the wrong type should have been, when not its type's word

  // The same field, saying what it holds.
  NamedField described(const char* text) const { return {name, value, text, expects}; }
  // The same field, naming what its values must be.
  NamedField expecting(const char* text) const { return {name, value, what, text}; }
};

template <class T>
NamedField<T> named(const char* name, T& value) {
  return {name, value};
}

template <class T>
inline constexpr bool is_named_field_v = false;
template <class T>
inline constexpr bool is_named_field_v<NamedField<T>> = true;

// The member a list entry stands for: a NamedField's value, or the entry itself.
template <class Field>
decltype(auto) field_value(Field&& field) {
  if constexpr (is_named_field_v<std::remove_cvref_t<Field>>) return (field.value);
  else return std::forward<Field>(field);
}

// A field a value may leave out (a command's "unchanged").
template <class T>
inline constexpr bool is_std_optional_v = false;
template <class T>
inline constexpr bool is_std_optional_v<std::optional<T>> = true;

// T or const T: one fields() serves readers (const) and writers.
template <class T, class U>
concept same_unqualified = std::same_as<std::remove_const_t<T>, U>;

}  // namespace flysim
