// tuning_bench: how efficiently each search strategy of the tuner finds the fastest point.
// Not a test: prints, per landscape and strategy, the fraction of the exhaustive optimum reached
// (t_optimum / t_best_found, 1.0 = found it) after N evaluations, averaged over many seeds, and
// how often the optimum itself was found. CPU only: the "GPU" is a cost model per landscape.
//
//   tuning_bench [--seeds N] [--branches K] [--examples DIR]
//
// Landscapes (times in seconds, deterministic):
//   transpose       examples/transpose/problem.toml's space (15 valid points), a plausible cost
//                   model of an 8192^2 f32 transpose: naive kernels pay for uncoalesced writes,
//                   shared-memory tiles pay for bank conflicts unless padded, BLOCK_ROWS trades
//                   occupancy for per-thread work.
//   transpose_wide  the same kernel with more knobs (TILE 8..64, BLOCK_ROWS 1..32, VEC, UNROLL),
//                   the same constraints plus "TILE * BLOCK_ROWS >= 32"; +-3% ruggedness.
//   row_reduction   examples/row_reduction/problem.toml's space (10 points): block size against
//                   the shared-memory tree or warp shuffles.
//   reduction_wide  the same with ITEMS per thread, VEC and UNROLL (540 grid points); +-3%.
//   rugged          5 tunables x 6 values, a shallow bowl under large per-point noise.
// Each iteration proposes K points (the campaign's branches) and evaluates them all; the
// strategies start from an empty history (annealing therefore measures the default point first).

#include "config/problem_spec.hpp"
#include "tuning/point_text.hpp"
#include "tuning/search_space.hpp"
#include "tuning/strategy_factory.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

using namespace warpforge;
using config::tunable_point;

namespace {

constexpr std::uint64_t default_seeds = 50;
constexpr std::size_t default_branches = 4;
constexpr std::size_t checkpoints[] = {4, 8, 16, 32, 64};

struct landscape {
  std::string name;
  std::shared_ptr<const tuning::search_space> space;
  std::function<double(const tunable_point&)> time_s;
};

/// A deterministic value in [0, 1) for a point and a salt (the ruggedness of a landscape).
double point_noise(const tunable_point& point, std::uint64_t salt) {
  std::uint64_t h = 0x9e3779b97f4a7c15ULL ^ salt;
  for (unsigned char c : tuning::canonical_text(point)) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  return static_cast<double>(h >> 11) / static_cast<double>(std::uint64_t{1} << 53);
}

std::int64_t at(const tunable_point& point, const char* name) { return point.at(name); }

config::tunable_spec tunable(std::string name, std::vector<std::int64_t> values,
                             std::int64_t default_value, std::optional<std::string> method = {}) {
  config::tunable_spec t;
  t.name = std::move(name);
  t.values = std::move(values);
  t.default_value = default_value;
  t.method = std::move(method);
  return t;
}

std::shared_ptr<const tuning::search_space> must(expected<tuning::search_space, tuning::tuning_error> s) {
  if (!s) {
    std::fprintf(stderr, "tuning_bench: %s\n", to_string(s.error()).c_str());
    std::exit(1);
  }
  return std::make_shared<const tuning::search_space>(std::move(*s));
}

std::shared_ptr<const tuning::search_space> example_space(const std::string& examples,
                                                         const char* name) {
  auto spec = config::load_problem(examples + "/" + name + "/problem.toml");
  if (!spec) {
    std::fprintf(stderr, "tuning_bench: %s\n", toml_reader::to_string(spec.error()).c_str());
    std::exit(1);
  }
  return must(tuning::search_space::from_problem(*spec));
}

// --- transpose: 8192 x 8192 f32, 512 MiB moved; ~0.18 ms at 3 TB/s --------------------------------
double transpose_time(std::int64_t smem, std::int64_t tile, std::int64_t rows, std::int64_t pad,
                      std::int64_t vec, std::int64_t unroll) {
  const double ideal_s = 0.18e-3;
  const double per_thread = static_cast<double>(tile) / static_cast<double>(rows); // elements
  double t = ideal_s;
  if (smem == 0) {
    t *= 3.2;                                        // uncoalesced writes
    t *= tile == 16 ? 1.06 : tile == 8 ? 1.2 : 1.0;  // transactions per warp
  } else {
    t *= 1.12;
    if (pad == 0)
      t *= tile >= 32 ? 1.45 : tile == 16 ? 1.2 : 1.08; // bank conflicts on the column reads
    t *= tile == 8 ? 1.3 : tile == 64 ? 1.06 : tile == 16 ? 1.05 : 1.0;
  }
  // Work per thread: 2-4 elements is the sweet spot; 1 wastes issue slots, many lowers occupancy.
  t *= per_thread <= 1 ? 1.18 : per_thread <= 4 ? 1.0 : per_thread <= 8 ? 1.04 : 1.12;
  t *= vec == 4 ? (smem ? 0.93 : 1.02) : vec == 2 ? 0.97 : 1.0;
  t *= unroll == 1 ? 1.03 : unroll == 8 && per_thread < 8 ? 1.02 : 1.0;
  return t;
}

landscape transpose_example(const std::string& examples) {
  return {"transpose", example_space(examples, "transpose"), [](const tunable_point& p) {
            return transpose_time(at(p, "USE_SMEM_TILE"), at(p, "TILE"), at(p, "BLOCK_ROWS"),
                                  at(p, "PAD"), 1, 2);
          }};
}

landscape transpose_wide() {
  std::vector<config::tunable_spec> tunables{
      tunable("USE_SMEM_TILE", {0, 1}, 0, "smem_tiling"),
      tunable("TILE", {8, 16, 32, 64}, 32),
      tunable("BLOCK_ROWS", {1, 2, 4, 8, 16, 32}, 8),
      tunable("PAD", {0, 1}, 0, "smem_padding"),
      tunable("VEC", {1, 2, 4}, 1, "vectorized_access"),
      tunable("UNROLL", {1, 2, 4, 8}, 1, "loop_unroll"),
  };
  auto check = [](const tunable_point& p) {
    const auto tile = at(p, "TILE"), rows = at(p, "BLOCK_ROWS");
    const bool ok = rows <= tile && tile * rows <= 1024 && tile * rows >= 32 &&
                    (at(p, "USE_SMEM_TILE") == 1 || at(p, "PAD") == 0);
    return ok ? tuning::point_validity::valid : tuning::point_validity::violates_constraint;
  };
  return {"transpose_wide", must(tuning::search_space::from_tunables(tunables, check)),
          [](const tunable_point& p) {
            return transpose_time(at(p, "USE_SMEM_TILE"), at(p, "TILE"), at(p, "BLOCK_ROWS"),
                                  at(p, "PAD"), at(p, "VEC"), at(p, "UNROLL")) *
                   (0.97 + 0.06 * point_noise(p, 1));
          }};
}

// --- row reduction: 16384 x 4096 f32 read once, 256 MiB; ~0.09 ms at 3 TB/s ------------------------
double reduction_time(std::int64_t block, std::int64_t shuffle, std::int64_t items,
                      std::int64_t vec, std::int64_t unroll) {
  const double ideal_s = 0.09e-3;
  double t = ideal_s;
  // Small blocks cannot keep enough loads in flight; the shared-memory tree pays per level.
  t *= block <= 32 ? 1.9 : block == 64 ? 1.5 : block == 128 ? 1.2 : block == 256 ? 1.06 :
       block == 512 ? 1.0 : 1.07;
  if (shuffle == 0)
    t *= 1.1 + 0.02 * std::log2(static_cast<double>(block)); // __syncthreads per tree level
  const double loads = static_cast<double>(items * vec);     // elements per thread per pass
  t *= loads < 2 ? 1.15 : loads <= 8 ? 1.0 : loads <= 16 ? 1.03 : 1.1;
  t *= vec == 4 ? 0.94 : vec == 2 ? 0.97 : 1.0;
  t *= unroll >= 2 && items >= 2 ? 0.97 : 1.0;
  return t;
}

landscape reduction_example(const std::string& examples) {
  return {"row_reduction", example_space(examples, "row_reduction"), [](const tunable_point& p) {
            return reduction_time(at(p, "BLOCK"), at(p, "WARP_SHUFFLE"), 4, 1, 1);
          }};
}

landscape reduction_wide() {
  std::vector<config::tunable_spec> tunables{
      tunable("BLOCK", {32, 64, 128, 256, 512, 1024}, 256),
      tunable("WARP_SHUFFLE", {0, 1}, 0, "warp_shuffle"),
      tunable("ITEMS", {1, 2, 4, 8, 16}, 1),
      tunable("VEC", {1, 2, 4}, 1, "vectorized_access"),
      tunable("UNROLL", {1, 2, 4}, 1, "loop_unroll"),
  };
  auto check = [](const tunable_point& p) {
    return at(p, "BLOCK") * at(p, "ITEMS") * at(p, "VEC") <= 4096
               ? tuning::point_validity::valid
               : tuning::point_validity::violates_constraint;
  };
  return {"reduction_wide", must(tuning::search_space::from_tunables(tunables, check)),
          [](const tunable_point& p) {
            return reduction_time(at(p, "BLOCK"), at(p, "WARP_SHUFFLE"), at(p, "ITEMS"),
                                  at(p, "VEC"), at(p, "UNROLL")) *
                   (0.97 + 0.06 * point_noise(p, 2));
          }};
}

// --- rugged: a shallow bowl under per-point noise ----------------------------------------------------
landscape rugged() {
  std::vector<config::tunable_spec> tunables;
  for (const char* name : {"A", "B", "C", "D", "E"})
    tunables.push_back(tunable(name, {0, 1, 2, 3, 4, 5}, 0));
  return {"rugged", must(tuning::search_space::from_tunables(tunables)),
          [](const tunable_point& p) {
            const std::int64_t centre[] = {4, 1, 3, 5, 2};
            double bowl = 0;
            int i = 0;
            for (const auto& [name, value] : p) {
              const double d = static_cast<double>(value - centre[i++]);
              bowl += d * d;
            }
            return 1e-3 * (1.0 + 0.02 * bowl + 0.5 * point_noise(p, 3));
          }};
}

struct strategy_row {
  std::vector<double> fraction_sum; // per checkpoint, summed over seeds
  std::vector<int> optimum_found;   // per checkpoint, seeds that had found the optimum
};

/// Best time after each evaluation (infinity before the first measurement).
std::vector<double> run_once(const landscape& l, config::search_strategy kind, std::uint64_t seed,
                             std::size_t branches, std::size_t evaluations) {
  auto s = tuning::make_strategy(kind, l.space, seed);
  tuning::tuning_history history;
  std::vector<double> best_after;
  double best = std::numeric_limits<double>::infinity();
  while (best_after.size() < evaluations) {
    const auto batch = s->propose(branches, history);
    if (batch.empty())
      break;
    for (const auto& point : batch) {
      const double t = l.time_s(point);
      history.record({point, vocabulary::branch_outcome::passed, t});
      best = std::min(best, t);
      best_after.push_back(best);
    }
  }
  best_after.resize(evaluations, best); // the space ran out: the best stays
  return best_after;
}

void report(const landscape& l, std::uint64_t seeds, std::size_t branches) {
  double optimum = std::numeric_limits<double>::infinity();
  const auto valid = l.space->valid_points();
  for (const auto& p : valid)
    optimum = std::min(optimum, l.time_s(p));
  const double baseline = l.time_s(l.space->default_point());
  std::printf("\n%s: %zu valid of %llu grid points, optimum %.4f ms, default point %.4f ms "
              "(%.2fx)\n",
              l.name.c_str(), valid.size(), static_cast<unsigned long long>(l.space->size()),
              optimum * 1e3, baseline * 1e3, baseline / optimum);
  std::printf("  %-11s", "strategy");
  for (auto n : checkpoints)
    std::printf("   @%-3zu", n);
  std::printf("   found optimum @16 / @32\n");

  const std::size_t last = checkpoints[std::size(checkpoints) - 1];
  for (auto kind : config::all_search_strategies) {
    strategy_row row{std::vector<double>(std::size(checkpoints), 0.0),
                     std::vector<int>(std::size(checkpoints), 0)};
    const std::uint64_t runs = kind == config::search_strategy::exhaustive ? 1 : seeds;
    for (std::uint64_t seed = 0; seed < runs; ++seed) {
      const auto best = run_once(l, kind, seed, branches, last);
      for (std::size_t c = 0; c < std::size(checkpoints); ++c) {
        row.fraction_sum[c] += optimum / best[checkpoints[c] - 1];
        row.optimum_found[c] += best[checkpoints[c] - 1] <= optimum;
      }
    }
    std::printf("  %-11s", std::string(config::to_string(kind)).c_str());
    for (std::size_t c = 0; c < std::size(checkpoints); ++c)
      std::printf("  %5.3f", row.fraction_sum[c] / static_cast<double>(runs));
    std::printf("   %3.0f%% / %3.0f%%\n", 100.0 * row.optimum_found[2] / static_cast<double>(runs),
                100.0 * row.optimum_found[3] / static_cast<double>(runs));
  }
}

} // namespace

int main(int argc, char** argv) {
  std::uint64_t seeds = default_seeds;
  std::size_t branches = default_branches;
  std::string examples = std::string(WARPFORGE_SOURCE_DIR) + "/examples";
  for (int i = 1; i < argc; ++i) {
    const bool has_value = i + 1 < argc;
    if (std::strcmp(argv[i], "--seeds") == 0 && has_value)
      seeds = std::strtoull(argv[++i], nullptr, 10);
    else if (std::strcmp(argv[i], "--branches") == 0 && has_value)
      branches = std::strtoull(argv[++i], nullptr, 10);
    else if (std::strcmp(argv[i], "--examples") == 0 && has_value)
      examples = argv[++i];
    else {
      std::fprintf(stderr, "usage: tuning_bench [--seeds N] [--branches K] [--examples DIR]\n");
      return 2;
    }
  }
  if (seeds == 0 || branches == 0) {
    std::fprintf(stderr, "tuning_bench: --seeds and --branches must be >= 1\n");
    return 2;
  }
  std::printf("tuning_bench: fraction of the exhaustive optimum reached (t_opt / t_best, 1.000 = "
              "found) after N evaluations;\n%llu seeds (exhaustive: 1 run), %zu points per "
              "proposal\n",
              static_cast<unsigned long long>(seeds), branches);
  report(transpose_example(examples), seeds, branches);
  report(transpose_wide(), seeds, branches);
  report(reduction_example(examples), seeds, branches);
  report(reduction_wide(), seeds, branches);
  report(rugged(), seeds, branches);
  return 0;
}
