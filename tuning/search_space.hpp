#pragma once
// The search space of one problem: the grid of its tunables' values, which grid points are valid,
// the grid's neighbourhood, and the methods a point claims. Strategies walk it; ablation asks it
// for leave-one-out points.
//
//   auto space = search_space::from_problem(spec);      // expected<search_space, tuning_error>
//   for (const auto& p : space->valid_points()) ...      // in ordinal order
//   space->claimed_methods(p);                           // {"tiling_smem"} when USE_SMEM_TILE=1
//   space->leave_one_out(p, "tiling_smem");              // p with USE_SMEM_TILE back at 0
//
// Ordinals number the grid: mixed radix over the tunables in spec order, the first tunable most
// significant, each tunable's values in spec order. Ordinal order is therefore the nested loops
// of the spec, the last tunable varying fastest; it is the exhaustive strategy's order.
//
// Validity: a grid point is valid when every constraint holds (config::check_constraints; a
// constraint that cannot be evaluated counts as violated) and the problem resolves there
// (config::resolve_problem: launch geometry and sizes in range). Spaces of at most
// precomputed_validity_limit points check every point once, when built.
//
// Neighbours: the grid points one tunable away, stepped to the adjacent value in its spec order
// (values are listed in the order the user meant as "near": [16, 32, 64]).
//
// Claim rule: a tunable that names a `method` claims it at a point when its value differs from
// the tunable's off value: 0 when 0 is one of its values (an on/off switch, or a count where 0
// means "not used"), else its default. So USE_SMEM_TILE = 1 claims tiling_smem, and VEC in
// [1, 2, 4] with default 1 claims vectorisation at 2 and 4. The method text is the spec's,
// verbatim. Several tunables may name one method: any of them claims it, and its leave-one-out
// point sets all of them off.

#include "config/problem_spec.hpp"
#include "config/resolved_problem.hpp"
#include "foundation/expected/expected.hpp"
#include "tuning/tuning_error.hpp"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::tuning {

enum class point_validity : std::uint8_t {
  valid,               ///< in the grid, every constraint holds, the problem resolves
  not_in_space,        ///< a tunable missing or unknown, or a value that is not listed
  violates_constraint, ///< a constraint is false (or cannot be evaluated) at the point
  unresolvable,        ///< the constraints hold, but the launch geometry or a size is invalid
};

inline constexpr point_validity all_point_validities[] = {
    point_validity::valid, point_validity::not_in_space, point_validity::violates_constraint,
    point_validity::unresolvable};

std::string_view to_string(point_validity validity);
std::optional<point_validity> point_validity_from_string(std::string_view text);

/// Grids larger than this are refused (ordinals must fit, with room, in 64 bits).
inline constexpr std::uint64_t max_space_size = std::uint64_t{1} << 62;
/// Spaces up to this many grid points have their validity computed once, when built.
inline constexpr std::uint64_t precomputed_validity_limit = 1 << 16;
/// valid_points() lists at most this many points unless asked for more.
inline constexpr std::uint64_t max_listed_points = 1 << 16;
/// leave_one_out() searches every repair when the other tunables span at most this many points,
/// else only repairs that change one other tunable.
inline constexpr std::uint64_t max_repair_points = 1 << 16;

/// Judges a grid point (every tunable present, every value listed) that is not `not_in_space`.
using point_check = std::function<point_validity(const config::tunable_point&)>;

/// The tunable's value at which its method is not claimed: 0 when listed, else the default.
std::int64_t off_value(const config::tunable_spec& tunable);

/// A leave-one-out point for ablation: the point with one claimed method turned off.
struct ablation_point {
  config::tunable_point point;           ///< valid; the method's tunables at their off values
  std::string method;                    ///< the method left out
  std::vector<std::string> adjusted;     ///< other tunables changed to make the point valid
  std::vector<std::string> also_dropped; ///< other methods those changes turned off
};

class search_space {
public:
  /// The space of `spec`: its tunables, its constraints, and resolve_problem as the judge.
  static expected<search_space, tuning_error> from_problem(const config::problem_spec& spec);
  /// A space of `tunables` (values, default, method as in a spec) judged by `check`; no check
  /// means every grid point is valid. For synthetic spaces (tests, the bench).
  static expected<search_space, tuning_error> from_tunables(std::vector<config::tunable_spec> tunables,
                                                           point_check check = {});

  const std::vector<config::tunable_spec>& tunables() const { return tunables_; }
  /// Grid points, valid or not: the product of the value counts (1 with no tunables).
  std::uint64_t size() const { return size_; }

  std::uint64_t default_ordinal() const { return default_ordinal_; }
  config::tunable_point default_point() const { return point_at(default_ordinal_); }

  /// The point with this ordinal; throws std::out_of_range when ordinal >= size().
  config::tunable_point point_at(std::uint64_t ordinal) const;
  /// The ordinal of `point`; nullopt when it is not a grid point.
  std::optional<std::uint64_t> ordinal_of(const config::tunable_point& point) const;

  point_validity validity(std::uint64_t ordinal) const;
  point_validity validity(const config::tunable_point& point) const;
  bool is_valid(std::uint64_t ordinal) const { return validity(ordinal) == point_validity::valid; }
  bool is_valid(const config::tunable_point& point) const {
    return validity(point) == point_validity::valid;
  }

  /// The valid points in ordinal order, at most `limit` of them.
  std::vector<config::tunable_point> valid_points(std::uint64_t limit = max_listed_points) const;

  /// Every grid point one step away (valid or not): tunables in spec order, lower value first.
  std::vector<std::uint64_t> grid_neighbours(std::uint64_t ordinal) const;
  /// The valid points one step away from `point` (a grid point), in grid_neighbours order.
  std::vector<config::tunable_point> neighbours(const config::tunable_point& point) const;

  /// Every method some tunable names, deduplicated, in spec order.
  std::vector<std::string> methods() const;
  /// The methods `point` claims (the claim rule above), in spec order.
  std::vector<std::string> claimed_methods(const config::tunable_point& point) const;
  /// `point` with `method` turned off, repaired to a valid point with as few other tunables
  /// changed as possible (ties: fewest other methods dropped, then the lowest ordinal). Nullopt
  /// when `point` does not claim `method` or no valid repair was found.
  std::optional<ablation_point> leave_one_out(const config::tunable_point& point,
                                              std::string_view method) const;

private:
  search_space() = default;
  std::vector<std::uint32_t> coordinates(std::uint64_t ordinal) const;
  std::uint64_t ordinal_from(const std::vector<std::uint32_t>& coordinates) const;
  point_validity judge(std::uint64_t ordinal) const;
  std::uint32_t values_count(std::size_t tunable) const {
    return static_cast<std::uint32_t>(tunables_[tunable].values.size());
  }

  std::vector<config::tunable_spec> tunables_;
  std::vector<std::uint64_t> strides_;  // ordinal weight of each tunable's value index
  std::uint64_t size_ = 1;
  std::uint64_t default_ordinal_ = 0;
  point_check check_;                   // empty: every grid point is valid
  std::vector<point_validity> validity_; // by ordinal, when size_ <= precomputed_validity_limit
};

} // namespace warpforge::tuning
