#pragma once
// warpforge::expected<T, E>: a value or the reason there is none. The subset of C++23's
// std::expected that warpforge uses, so that moving to the standard type later is a rename.
// Libraries (config/, storage/, gpu/, ...) return it for expected failures; they never include
// CAF, whose caf::expected the actors use at their boundary.
//
//   expected<int, spec_error> parse(...);
//   if (!r) report(r.error());  else use(*r);

#include <stdexcept>
#include <type_traits>
#include <utility>
#include <variant>

namespace warpforge {

template <class E>
class unexpected {
public:
  explicit unexpected(E error) : error_(std::move(error)) {}
  E& error() & { return error_; }
  E&& error() && { return std::move(error_); }

private:
  E error_;
};

template <class E>
unexpected(E) -> unexpected<E>;

/// Thrown by value() on an expected that holds an error: a broken invariant in the caller,
/// which should have checked.
class bad_expected_access : public std::logic_error {
public:
  bad_expected_access() : std::logic_error("expected: value() called on an error") {}
};

template <class T, class E>
class [[nodiscard]] expected {
public:
  expected() requires std::is_default_constructible_v<T> : state_(std::in_place_index<0>) {}
  expected(T value) : state_(std::in_place_index<0>, std::move(value)) {}
  expected(unexpected<E> error) : state_(std::in_place_index<1>, std::move(error).error()) {}

  bool has_value() const { return state_.index() == 0; }
  explicit operator bool() const { return has_value(); }

  T& value() & { check(); return std::get<0>(state_); }
  const T& value() const& { check(); return std::get<0>(state_); }
  T&& value() && { check(); return std::get<0>(std::move(state_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  E& error() & { return std::get<1>(state_); }
  const E& error() const& { return std::get<1>(state_); }
  E&& error() && { return std::get<1>(std::move(state_)); }

private:
  void check() const {
    if (!has_value())
      throw bad_expected_access{};
  }
  std::variant<T, E> state_;
};

/// expected<void, E>: success carries nothing.
template <class E>
class [[nodiscard]] expected<void, E> {
public:
  expected() = default;
  expected(unexpected<E> error) : error_(std::move(error).error()), failed_(true) {}

  bool has_value() const { return !failed_; }
  explicit operator bool() const { return has_value(); }
  void value() const {
    if (failed_)
      throw bad_expected_access{};
  }
  E& error() & { return error_; }
  const E& error() const& { return error_; }

private:
  E error_{};
  bool failed_ = false;
};

} // namespace warpforge
