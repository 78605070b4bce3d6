#pragma once
// Vectors and strings that Cereal writes as usual but reads in bounded chunks.
// Cereal's own load resizes a container to the count in the file before reading a
// byte of it, so one damaged count byte could ask for terabytes (std::bad_alloc, or
// the machine swapping). Reading chunk by chunk, a count larger than the bytes left
// ends in Cereal's "Failed to read" exception after at most one chunk past the end of
// the input. The bytes on disk are exactly those of cereal/types/{vector,string}.hpp.
// Private to checkpoint/ (the only place that includes Cereal).
#include <cereal/cereal.hpp>
#include <cereal/types/string.hpp>
#include <cereal/types/vector.hpp>

#include <algorithm>
#include <cstddef>
#include <type_traits>

namespace flysim::checkpoint_io {

inline constexpr std::size_t kChunkElements = std::size_t{1} << 16;

template <class Container>
struct Bounded {
  Container& items;

  template <class Archive>
  void save(Archive& ar) const {
    ar(items);
  }

  template <class Archive>
  void load(Archive& ar) {
    using T = typename Container::value_type;
    cereal::size_type count = 0;
    ar(cereal::make_size_tag(count));
    items.clear();
    for (std::size_t done = 0; done < count;) {
      const std::size_t chunk = static_cast<std::size_t>(std::min<cereal::size_type>(count - done, kChunkElements));
      items.resize(done + chunk);
      if constexpr (std::is_arithmetic_v<T>) {
        ar(cereal::binary_data(items.data() + done, chunk * sizeof(T)));
      } else {
        for (std::size_t i = done; i < done + chunk; ++i) ar(items[i]);
      }
      done += chunk;
    }
  }
};

template <class Container>
Bounded<Container> bounded(Container& items) {
  return {items};
}

template <class T>
inline constexpr bool is_sequence = false;
template <class T, class A>
inline constexpr bool is_sequence<std::vector<T, A>> = true;
template <class C, class Tr, class A>
inline constexpr bool is_sequence<std::basic_string<C, Tr, A>> = true;

// A vector or string as bounded(), anything else as it is.
template <class T>
decltype(auto) bounded_if_sequence(T& x) {
  if constexpr (is_sequence<T>) return bounded(x);
  else return (x);
}

}  // namespace flysim::checkpoint_io
