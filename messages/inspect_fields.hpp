#pragma once
// CAF's inspect() of a type from its one field list (fields(), model/FIELDS.md): the
// members in order, a named field's member as itself, a std::optional as a flag and,
// when set, its value (CAF 0.17 knows only caf::optional).
#include <caf/all.hpp>

#include <optional>
#include <type_traits>
#include <utility>

#include "model/named_field.hpp"

namespace flysim {

// A std::optional member as CAF sees it: a flag, then the value when the flag is set.
template <class T>
struct OptionalMember {
  std::optional<T>& x;
};

template <class T>
struct OptionalValue {  // the value of a set OptionalMember, read after its flag
  bool& present;
  T& value;
};

template <class Inspector, class T>
typename Inspector::result_type inspect(Inspector& f, OptionalValue<T>& x) {
  return x.present ? f(x.value) : f();
}

template <class Inspector, class T>
typename Inspector::result_type inspect(Inspector& f, OptionalMember<T>& x) {
  if constexpr (Inspector::reads_state) {
    bool present = x.x.has_value();
    T value = present ? *x.x : T{};
    OptionalValue<T> set{present, value};
    return f(present, set);
  } else {
    bool present = false;
    T value{};
    OptionalValue<T> set{present, value};
    return f(present, set, caf::meta::load_callback([&]() -> caf::error {
               x.x = present ? std::optional<T>(std::move(value)) : std::nullopt;
               return caf::none;
             }));
  }
}

// What CAF inspects for one entry of a field list.
template <class Field>
decltype(auto) inspected_member(Field&& field) {
  auto& member = field_value(std::forward<Field>(field));
  using Member = std::remove_cvref_t<decltype(member)>;
  if constexpr (is_std_optional_v<Member>) return OptionalMember<typename Member::value_type>{member};
  else return (member);
}

template <class Inspector, class T>
typename Inspector::result_type inspect_fields(Inspector& f, const char* type_name, T& x) {
  return fields(x, [&](auto&&... field) { return f(caf::meta::type_name(type_name), inspected_member(field)...); });
}

}  // namespace flysim
