#include "tuning/search_space.hpp"

#include "config/problem_configs.hpp"
#include "foundation/vocabulary/enum_text.hpp"

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <tuple>

namespace warpforge::tuning {

constexpr vocabulary::enum_word<point_validity> point_validity_words[] = {
    {point_validity::valid, "valid"},
    {point_validity::not_in_space, "not_in_space"},
    {point_validity::violates_constraint, "violates_constraint"},
    {point_validity::unresolvable, "unresolvable"},
};
static_assert(vocabulary::covers(point_validity_words, all_point_validities));

std::string_view to_string(point_validity validity) { return vocabulary::word_of(point_validity_words, validity); }

std::optional<point_validity> point_validity_from_string(std::string_view text) {
  return vocabulary::value_of(point_validity_words, text);
}

std::int64_t off_value(const config::tunable_spec& tunable) {
  const bool has_zero = std::find(tunable.values.begin(), tunable.values.end(), 0) !=
                        tunable.values.end();
  return has_zero ? 0 : tunable.default_value;
}

expected<search_space, tuning_error> search_space::from_problem(const config::problem_spec& spec) {
  // The judge owns a copy of the spec, so the space outlives the caller's.
  auto owned = std::make_shared<const config::problem_spec>(spec);
  point_check check = [owned](const config::tunable_point& point) {
    auto satisfied = config::check_constraints(*owned, point);
    if (!satisfied || !*satisfied)
      return point_validity::violates_constraint;
    // Valid only where it resolves at every configuration the problem is timed at.
    for (const auto& at : config::problem_configs(*owned))
      if (!config::resolve_problem(*owned, point, at))
        return point_validity::unresolvable;
    return point_validity::valid;
  };
  return from_tunables(spec.tunables, std::move(check));
}

expected<search_space, tuning_error> search_space::from_tunables(
    std::vector<config::tunable_spec> tunables, point_check check) {
  search_space space;
  space.tunables_ = std::move(tunables);
  space.check_ = std::move(check);
  const std::size_t n = space.tunables_.size();
  space.strides_.assign(n, 1);
  for (std::size_t i = n; i-- > 0;) {
    const auto count = static_cast<std::uint64_t>(space.tunables_[i].values.size());
    if (count == 0)
      throw std::invalid_argument("search_space: tunable " + space.tunables_[i].name +
                                  " has no values");
    space.strides_[i] = space.size_;
    if (space.size_ > max_space_size / count)
      return unexpected(tuning_error{tuning_error_code::space_too_large,
                                    "the tunables span more than 2^62 points (from " +
                                        space.tunables_[i].name + " on)"});
    space.size_ *= count;
  }
  std::vector<std::uint32_t> defaults(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const auto& values = space.tunables_[i].values;
    const auto it = std::find(values.begin(), values.end(), space.tunables_[i].default_value);
    if (it == values.end())
      throw std::invalid_argument("search_space: the default of " + space.tunables_[i].name +
                                  " is not one of its values");
    defaults[i] = static_cast<std::uint32_t>(it - values.begin());
  }
  space.default_ordinal_ = space.ordinal_from(defaults);
  if (space.size_ <= precomputed_validity_limit) {
    space.validity_.reserve(space.size_);
    for (std::uint64_t ordinal = 0; ordinal < space.size_; ++ordinal)
      space.validity_.push_back(space.judge(ordinal));
  }
  return space;
}

std::vector<std::uint32_t> search_space::coordinates(std::uint64_t ordinal) const {
  std::vector<std::uint32_t> result(tunables_.size());
  for (std::size_t i = 0; i < tunables_.size(); ++i) {
    result[i] = static_cast<std::uint32_t>(ordinal / strides_[i]);
    ordinal %= strides_[i];
  }
  return result;
}

std::uint64_t search_space::ordinal_from(const std::vector<std::uint32_t>& coordinates) const {
  std::uint64_t ordinal = 0;
  for (std::size_t i = 0; i < tunables_.size(); ++i)
    ordinal += coordinates[i] * strides_[i];
  return ordinal;
}

config::tunable_point search_space::point_at(std::uint64_t ordinal) const {
  if (ordinal >= size_)
    throw std::out_of_range("search_space::point_at: ordinal " + std::to_string(ordinal) +
                            " >= size " + std::to_string(size_));
  config::tunable_point point;
  const auto coords = coordinates(ordinal);
  for (std::size_t i = 0; i < tunables_.size(); ++i)
    point.emplace(tunables_[i].name, tunables_[i].values[coords[i]]);
  return point;
}

std::optional<std::uint64_t> search_space::ordinal_of(const config::tunable_point& point) const {
  if (point.size() != tunables_.size())
    return std::nullopt;
  std::uint64_t ordinal = 0;
  for (std::size_t i = 0; i < tunables_.size(); ++i) {
    const auto found = point.find(tunables_[i].name);
    if (found == point.end())
      return std::nullopt;
    const auto& values = tunables_[i].values;
    const auto it = std::find(values.begin(), values.end(), found->second);
    if (it == values.end())
      return std::nullopt;
    ordinal += static_cast<std::uint64_t>(it - values.begin()) * strides_[i];
  }
  return ordinal;
}

point_validity search_space::judge(std::uint64_t ordinal) const {
  return check_ ? check_(point_at(ordinal)) : point_validity::valid;
}

point_validity search_space::validity(std::uint64_t ordinal) const {
  if (ordinal >= size_)
    return point_validity::not_in_space;
  return validity_.empty() ? judge(ordinal) : validity_[ordinal];
}

point_validity search_space::validity(const config::tunable_point& point) const {
  const auto ordinal = ordinal_of(point);
  return ordinal ? validity(*ordinal) : point_validity::not_in_space;
}

std::vector<config::tunable_point> search_space::valid_points(std::uint64_t limit) const {
  std::vector<config::tunable_point> points;
  for (std::uint64_t ordinal = 0; ordinal < size_ && points.size() < limit; ++ordinal)
    if (is_valid(ordinal))
      points.push_back(point_at(ordinal));
  return points;
}

std::vector<std::uint64_t> search_space::grid_neighbours(std::uint64_t ordinal) const {
  std::vector<std::uint64_t> result;
  const auto coords = coordinates(ordinal);
  for (std::size_t i = 0; i < tunables_.size(); ++i) {
    if (coords[i] > 0)
      result.push_back(ordinal - strides_[i]);
    if (coords[i] + 1 < tunables_[i].values.size())
      result.push_back(ordinal + strides_[i]);
  }
  return result;
}

std::vector<config::tunable_point> search_space::neighbours(const config::tunable_point& point) const {
  std::vector<config::tunable_point> result;
  const auto ordinal = ordinal_of(point);
  if (!ordinal)
    return result;
  for (auto neighbour : grid_neighbours(*ordinal))
    if (is_valid(neighbour))
      result.push_back(point_at(neighbour));
  return result;
}

std::vector<std::string> search_space::methods() const {
  std::vector<std::string> result;
  for (const auto& tunable : tunables_)
    if (tunable.method && std::find(result.begin(), result.end(), *tunable.method) == result.end())
      result.push_back(*tunable.method);
  return result;
}

std::vector<std::string> search_space::claimed_methods(const config::tunable_point& point) const {
  std::vector<std::string> result;
  for (const auto& tunable : tunables_) {
    if (!tunable.method)
      continue;
    const auto found = point.find(tunable.name);
    if (found == point.end() || found->second == off_value(tunable))
      continue;
    if (std::find(result.begin(), result.end(), *tunable.method) == result.end())
      result.push_back(*tunable.method);
  }
  return result;
}

std::optional<ablation_point> search_space::leave_one_out(const config::tunable_point& point,
                                                          std::string_view method) const {
  const auto start = ordinal_of(point);
  if (!start)
    return std::nullopt;
  const auto claimed = claimed_methods(point);
  if (std::find(claimed.begin(), claimed.end(), method) == claimed.end())
    return std::nullopt;

  // The base: every tunable of `method` at its off value. Free: the other tunables.
  auto base = coordinates(*start);
  std::vector<std::size_t> free;
  std::uint64_t free_span = 1;
  for (std::size_t i = 0; i < tunables_.size(); ++i) {
    const auto& tunable = tunables_[i];
    if (tunable.method && *tunable.method == method) {
      const auto& values = tunable.values;
      base[i] = static_cast<std::uint32_t>(
          std::find(values.begin(), values.end(), off_value(tunable)) - values.begin());
    } else {
      free.push_back(i);
      free_span = free_span > max_repair_points ? free_span : free_span * values_count(i);
    }
  }

  struct repair {
    std::size_t changed = 0;
    std::size_t dropped = 0;
    std::uint64_t ordinal = 0;
    auto rank() const { return std::tie(changed, dropped, ordinal); }
  };
  std::optional<repair> best;
  const auto base_ordinal = ordinal_from(base);
  const auto base_claims = claimed_methods(point_at(base_ordinal));
  auto consider = [&](const std::vector<std::uint32_t>& coords) {
    const auto ordinal = ordinal_from(coords);
    if (!is_valid(ordinal))
      return;
    repair r;
    r.ordinal = ordinal;
    for (auto i : free)
      r.changed += coords[i] != base[i];
    const auto claims = claimed_methods(point_at(ordinal));
    for (const auto& m : base_claims)
      r.dropped += std::find(claims.begin(), claims.end(), m) == claims.end();
    if (!best || r.rank() < best->rank())
      best = r;
  };

  if (free_span <= max_repair_points) {
    // Every assignment of the free tunables (an odometer over their value indices).
    auto coords = base;
    for (auto i : free)
      coords[i] = 0;
    while (true) {
      consider(coords);
      std::size_t k = free.size();
      while (k > 0) {
        const auto i = free[k - 1];
        if (++coords[i] < values_count(i))
          break;
        coords[i] = 0;
        --k;
      }
      if (k == 0)
        break;
    }
  } else {
    consider(base);
    for (auto i : free)
      for (std::uint32_t v = 0; v < values_count(i); ++v)
        if (v != base[i]) {
          auto coords = base;
          coords[i] = v;
          consider(coords);
        }
  }
  if (!best)
    return std::nullopt;

  ablation_point result;
  result.point = point_at(best->ordinal);
  result.method = std::string(method);
  const auto coords = coordinates(best->ordinal);
  for (auto i : free)
    if (coords[i] != base[i])
      result.adjusted.push_back(tunables_[i].name);
  const auto claims = claimed_methods(result.point);
  for (const auto& m : base_claims)
    if (std::find(claims.begin(), claims.end(), m) == claims.end())
      result.also_dropped.push_back(m);
  return result;
}

} // namespace warpforge::tuning
