#pragma once
// CAF 0.17 inspects plain data (numbers, strings, enums, containers, maps, types with an
// `inspect`), but not std::optional, std::variant or std::filesystem::path, which the pipeline's
// nouns use. An inspect lists such a field through one of these wrappers, bound to a local
// (loading inspectors need mutable lvalues):
//
//   auto seed = optional_field(x.seed);
//   return f(caf::meta::type_name("kernel_result"), x.outcome, seed, ...);
//
// Encoding: optional = bool then the value when set; variant = index then the alternative;
// path = its generic string.

#include <caf/meta/type_name.hpp>
#include <caf/sec.hpp>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <variant>

namespace warpforge::messages {

template <class T>
struct optional_field_ref {
  std::optional<T>& value;
};
template <class T>
optional_field_ref<T> optional_field(std::optional<T>& value) {
  return {value};
}

template <class Inspector, class T>
typename Inspector::result_type inspect(Inspector& f, optional_field_ref<T>& x) {
  if constexpr (Inspector::reads_state) {
    bool set = x.value.has_value();
    if (set)
      return f(set, *x.value);
    return f(set);
  } else {
    bool set = false;
    if (auto err = f(set))
      return err;
    if (!set) {
      x.value.reset();
      return {};
    }
    T value{};
    if (auto err = f(value))
      return err;
    x.value = std::move(value);
    return {};
  }
}

template <class... Ts>
struct variant_field_ref {
  std::variant<Ts...>& value;
};
template <class... Ts>
variant_field_ref<Ts...> variant_field(std::variant<Ts...>& value) {
  return {value};
}

namespace detail {
// Loads alternative `I` when the stored index is I.
template <std::size_t I, class Inspector, class... Ts>
typename Inspector::result_type load_alternative(Inspector& f, std::variant<Ts...>& v, std::uint32_t index) {
  if constexpr (I < sizeof...(Ts)) {
    if (index == I) {
      std::variant_alternative_t<I, std::variant<Ts...>> alternative{};
      if (auto err = f(alternative))
        return err;
      v = std::move(alternative);
      return {};
    }
    return load_alternative<I + 1>(f, v, index);
  } else {
    return caf::make_error(caf::sec::invalid_argument, "variant index out of range");
  }
}
} // namespace detail

template <class Inspector, class... Ts>
typename Inspector::result_type inspect(Inspector& f, variant_field_ref<Ts...>& x) {
  if constexpr (Inspector::reads_state) {
    auto index = static_cast<std::uint32_t>(x.value.index());
    return std::visit([&](auto& alternative) { return f(index, alternative); }, x.value);
  } else {
    std::uint32_t index = 0;
    if (auto err = f(index))
      return err;
    return detail::load_alternative<0>(f, x.value, index);
  }
}

struct path_field_ref {
  std::filesystem::path& value;
};
inline path_field_ref path_field(std::filesystem::path& value) {
  return {value};
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, path_field_ref& x) {
  if constexpr (Inspector::reads_state) {
    auto text = x.value.generic_string();
    return f(text);
  } else {
    std::string text;
    if (auto err = f(text))
      return err;
    x.value = text;
    return {};
  }
}

} // namespace warpforge::messages
