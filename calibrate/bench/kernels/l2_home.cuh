#pragma once
// The homes of a partitioned L2 (Hopper, Ampere): which partition each sector of a buffer is
// homed in, and which partition each SM sits next to, so l2_size can read every line only from
// SMs on its home side.
//
// Why: an SM that reads a line homed in the far partition gets it from there and keeps a copy in
// its near partition, so a line read from the "wrong" side takes room in both. Every SM chasing a
// disjoint random part of a working set (half of each SM's lines homed far) fills the L2 at about
// two thirds of its capacity (32 of 50 MiB on an H100); one SM alone fills its near partition at
// half (l2_partition_size). With every line read only from its home side no line is kept twice,
// and both partitions fill with distinct data.
//
// How, in one process (every step prints a "#" line for the trial log):
//   1. reference SM R = the SM of block 0. For 32 candidate SMs C (a fixed shuffle of the rest):
//      flush the L2, C loads sector 0 of 512 probe lines, R times one load of each (a clock64
//      pair around it). A sector homed on C's side is a far hit for R (no copy near R yet); one
//      homed near R is a near hit. The first C whose probe splits into two levels (the upper
//      >= 20% above the lower, 20-80% of the sectors on it) is on the other side; the threshold
//      is the levels' midpoint. None among 32 candidates: the L2 is one pool as R sees it. The
//      same probe on sectors 1-3 (each loaded and timed alone) says how often a line's sectors
//      share sector 0's home (on an H100 504-512 of 512 do); homes are decided per sector all
//      the same, and l2_walk.cuh takes only lines whose four sectors agree.
//   2. every 32-byte sector (chase node) of the buffer classified the same way, one sector
//      position of every line per pass (a flush between passes, so no copy made by timing one
//      sector can hide another's home), 8 MiB of lines at a time (C loads the chunk's sectors, R
//      times each): homed near R, homed near C, or neither level (dropped, e.g. evicted between).
//   3. every SM's side: after a flush, R loads 4 R-homed sectors per SM and C 4 C-homed ones (no
//      copies anywhere), then each SM times its own 4 + 4: nearer to R's, R's side.
// What is done with the homes: kernels/l2_walk.cuh (l2_size).

#include "chase.cuh"

#include <cmath>
#include <memory>

constexpr unsigned wf_max_smid = 1024;   // %smid bound for per-SM tables
constexpr std::size_t wf_probe_lines = 512;
constexpr std::size_t wf_chunk_lines = (8u << 20) / wf_line_bytes;
constexpr int wf_candidates = 32;        // SMs tried as the far side
constexpr int wf_timing_warps = 16;      // R times this many loads at once (one lane per warp)

__device__ __forceinline__ unsigned wf_smid() {
  unsigned id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
}

// Records each block's %smid (one block per SM).
__global__ void wf_record_smids(unsigned* smids) {
  if (threadIdx.x == 0)
    smids[blockIdx.x] = wf_smid();
}

__device__ __forceinline__ unsigned long long wf_node_address(const unsigned long long* nodes,
                                                              std::size_t node) {
  return reinterpret_cast<unsigned long long>(nodes + node * wf_node_slots);
}

// A set of nodes: list[first + k] when `list` is set, else start + k x stride, k < count.
struct wf_node_set {
  const unsigned* list = nullptr;
  std::size_t first = 0, start = 0, stride = 1, count = 0;
  __device__ __forceinline__ std::size_t at(std::size_t k) const {
    return list ? list[first + k] : start + k * stride;
  }
};

// The block on SM `sm` loads every node of `set`; every other block returns at once.
__global__ void wf_touch_nodes(const unsigned long long* nodes, wf_node_set set, unsigned sm,
                               unsigned long long* sink) {
  if (wf_smid() != sm)
    return;
  unsigned long long seen = 0;
  for (std::size_t k = threadIdx.x; k < set.count; k += blockDim.x)
    seen ^= wf_chase_load<false>(wf_node_address(nodes, set.at(k)));
  sink[threadIdx.x] ^= seen;
}

// The block on SM `sm` times one ld.global.cg of each node of `set` (lane 0 of each warp,
// wf_timing_warps loads in flight), into cycles[node].
__global__ void wf_time_nodes(const unsigned long long* nodes, wf_node_set set, unsigned sm,
                              unsigned* cycles) {
  __shared__ volatile unsigned long long seen_at[wf_timing_warps]; // the store waits for the load
  if (wf_smid() != sm || threadIdx.x % 32 != 0)
    return;
  const unsigned warp = threadIdx.x / 32;
  for (std::size_t k = warp; k < set.count; k += wf_timing_warps) {
    const std::size_t node = set.at(k);
    unsigned long long address = wf_node_address(nodes, node);
    const long long before = clock64();
    address = wf_chase_load<false>(address);
    seen_at[warp] = address;
    const long long after = clock64();
    cycles[node] = static_cast<unsigned>(after - before);
  }
}

// Every SM times its own `per_sm` nodes of each set (block b: entries b x per_sm ..), into the
// mean cycles per set, by %smid.
__global__ void wf_time_sides(const unsigned long long* nodes, const unsigned* r_nodes,
                              const unsigned* c_nodes, unsigned per_sm, float* r_cycles,
                              float* c_cycles) {
  __shared__ volatile unsigned long long seen_at[1]; // the store waits for the load
  if (threadIdx.x != 0)
    return;
  const unsigned sm = wf_smid();
  double sums[2] = {0, 0};
  for (int set = 0; set < 2; ++set)
    for (unsigned k = 0; k < per_sm; ++k) {
      const unsigned node = (set == 0 ? r_nodes : c_nodes)[blockIdx.x * per_sm + k];
      unsigned long long address = wf_node_address(nodes, node);
      const long long before = clock64();
      address = wf_chase_load<false>(address);
      seen_at[0] = address;
      const long long after = clock64();
      sums[set] += static_cast<double>(after - before);
    }
  if (sm < wf_max_smid) {
    r_cycles[sm] = static_cast<float>(sums[0] / per_sm);
    c_cycles[sm] = static_cast<float>(sums[1] / per_sm);
  }
}

struct wf_l2_homes {
  bool partitioned = false;
  unsigned reference_sm = 0, other_sm = 0;
  std::vector<unsigned> smids;              // one per block of a one-block-per-SM grid
  std::vector<int> side_of;                 // by %smid: 0 the reference SM's side, 1 the other, -1 none
  std::vector<unsigned> nodes[2];           // 32-byte nodes homed on each side, in buffer order
};

class wf_l2_prober {
public:
  wf_l2_prober(const cudaDeviceProp& prop, wf_buffer<unsigned long long>& nodes, std::size_t lines)
      : prop_(prop), nodes_(nodes), lines_(lines), cycles_(lines * wf_line_nodes), sink_(1024),
        flush_(2 * static_cast<std::size_t>(prop.l2CacheSize)) {
    smem_ = wf_one_block_per_sm(wf_touch_nodes, prop);
    wf_one_block_per_sm(wf_time_nodes, prop);
    wf_one_block_per_sm(wf_time_sides, prop);
    wf_one_block_per_sm(wf_record_smids, prop);
  }

  wf_l2_homes classify() {
    wf_l2_homes homes;
    const int sms = prop_.multiProcessorCount;
    wf_buffer<unsigned> smids(sms);
    wf_record_smids<<<sms, 32, smem_>>>(smids.data);
    wf_sync_kernel("recording the SMs' ids");
    homes.smids = smids.to_host();
    homes.side_of.assign(wf_max_smid, -1);
    for (const unsigned sm : homes.smids)
      if (sm >= wf_max_smid)
        wf_fail("an %smid beyond 1023");
    homes.reference_sm = homes.smids[0];
    double near = 0, far = 0;
    std::vector<unsigned> sector0;
    // Every candidate is probed even after a split is found: the engine's counter pass profiles
    // the last launch by counting launches in another run, so their number must not depend on
    // which candidate splits first.
    // Candidates in a fixed pseudo-random order: block order follows the GPCs, so a stride
    // through it can keep landing on the reference's side.
    std::vector<unsigned> candidates(homes.smids.begin() + 1, homes.smids.end());
    std::shuffle(candidates.begin(), candidates.end(), std::mt19937{27});
    candidates.resize(std::min<std::size_t>(candidates.size(), wf_candidates));
    for (const unsigned candidate : candidates) {
      const std::vector<unsigned> probed = probe(homes, candidate, 0);
      if (homes.partitioned)
        continue;
      sector0 = probed;
      std::vector<double> sorted(sector0.begin(), sector0.end());
      std::sort(sorted.begin(), sorted.end());
      const double low = sorted[sorted.size() / 10], high = sorted[sorted.size() * 9 / 10];
      const double mid = (low + high) / 2;
      const double above = static_cast<double>(std::count_if(sorted.begin(), sorted.end(),
                                                             [&](double v) { return v > mid; })) /
                           sorted.size();
      std::printf("# L2 homes: SM %u loads, SM %u times: levels %.0f / %.0f cycles, %.0f%% above %.0f\n",
                  candidate, homes.reference_sm, low, high, 100 * above, mid);
      if (high >= 1.2 * low && above >= 0.2 && above <= 0.8) {
        homes.partitioned = true;
        homes.other_sm = candidate;
        near = low;
        far = high;
        threshold_ = mid;
        far_limit_ = far * 1.5;
      }
    }
    if (!homes.partitioned) {
      std::printf("# L2 homes: no far partition seen from SM %u: one pool\n", homes.reference_sm);
      for (const unsigned sm : homes.smids)
        homes.side_of[sm] = 0;
      for (std::size_t node = 0; node < lines_ * wf_line_nodes; ++node)
        homes.nodes[0].push_back(static_cast<unsigned>(node));
      return homes;
    }
    for (unsigned sector = 1; sector < wf_line_nodes; ++sector) {
      const std::vector<unsigned> other = probe(homes, homes.other_sm, sector);
      std::size_t agree = 0;
      for (std::size_t i = 0; i < other.size(); ++i)
        agree += (sector0[i] > threshold_) == (other[i] > threshold_);
      std::printf("# L2 homes: sector %u of a line has sector 0's home in %zu of %zu lines\n", sector,
                  agree, other.size());
    }
    classify_nodes(homes);
    classify_sides(homes);
    std::printf("# L2 homes: near level %.0f, far %.0f cycles; of %zu sectors %zu homed near SM %u, %zu near SM %u, %zu dropped\n",
                near, far, lines_ * wf_line_nodes, homes.nodes[0].size(), homes.reference_sm,
                homes.nodes[1].size(), homes.other_sm,
                lines_ * wf_line_nodes - homes.nodes[0].size() - homes.nodes[1].size());
    return homes;
  }

private:
  void flush() {
    WF_CHECK(cudaMemset(flush_.data, ++flush_value_, flush_.count));
    wf_sync_kernel("flushing the L2");
  }

  // One pass: `loader` loads `set`, the reference SM times each of its nodes.
  void load_and_time(const wf_l2_homes& homes, unsigned loader, const wf_node_set& set) {
    const int sms = prop_.multiProcessorCount;
    wf_touch_nodes<<<sms, 1024, smem_>>>(nodes_.data, set, loader, sink_.data);
    wf_sync_kernel("one SM loading nodes");
    wf_time_nodes<<<sms, 32 * wf_timing_warps, smem_>>>(nodes_.data, set, homes.reference_sm, cycles_.data);
    wf_sync_kernel("the reference SM timing nodes");
  }

  // The candidate loads sector `sector` of the probe lines, the reference SM times each.
  std::vector<unsigned> probe(const wf_l2_homes& homes, unsigned candidate, unsigned sector) {
    flush();
    wf_node_set set;
    set.start = sector;
    set.stride = wf_line_nodes;
    set.count = wf_probe_lines;
    load_and_time(homes, candidate, set);
    const std::vector<unsigned> all = cycles_.to_host();
    std::vector<unsigned> out;
    for (std::size_t line = 0; line < wf_probe_lines; ++line)
      out.push_back(all[line * wf_line_nodes + sector]);
    return out;
  }

  void classify_nodes(wf_l2_homes& homes) {
    for (unsigned sector = 0; sector < wf_line_nodes; ++sector) {
      flush();
      for (std::size_t first = 0; first < lines_; first += wf_chunk_lines) {
        wf_node_set set;
        set.start = first * wf_line_nodes + sector;
        set.stride = wf_line_nodes;
        set.count = std::min(wf_chunk_lines, lines_ - first);
        load_and_time(homes, homes.other_sm, set);
      }
    }
    const std::vector<unsigned> cycles = cycles_.to_host();
    for (std::size_t node = 0; node < cycles.size(); ++node) {
      const double c = cycles[node];
      if (c <= threshold_)
        homes.nodes[0].push_back(static_cast<unsigned>(node));
      else if (c <= far_limit_)
        homes.nodes[1].push_back(static_cast<unsigned>(node));
    }
  }

  void classify_sides(wf_l2_homes& homes) {
    const int sms = prop_.multiProcessorCount;
    const unsigned per_sm = 4;
    const std::size_t need = static_cast<std::size_t>(sms) * per_sm;
    if (homes.nodes[0].size() < 2 * need || homes.nodes[1].size() < 2 * need)
      wf_fail("too few sectors of one side to place the SMs");
    // Any sectors of each side would do: the walk later rewrites whatever it draws.
    const std::vector<unsigned> r(homes.nodes[0].end() - need, homes.nodes[0].end());
    const std::vector<unsigned> c(homes.nodes[1].end() - need, homes.nodes[1].end());
    wf_buffer<unsigned> r_nodes(need), c_nodes(need);
    WF_CHECK(cudaMemcpy(r_nodes.data, r.data(), need * sizeof(unsigned), cudaMemcpyHostToDevice));
    WF_CHECK(cudaMemcpy(c_nodes.data, c.data(), need * sizeof(unsigned), cudaMemcpyHostToDevice));
    flush();
    wf_node_set set;
    set.count = need;
    set.list = r_nodes.data;
    wf_touch_nodes<<<sms, 1024, smem_>>>(nodes_.data, set, homes.reference_sm, sink_.data);
    set.list = c_nodes.data;
    wf_touch_nodes<<<sms, 1024, smem_>>>(nodes_.data, set, homes.other_sm, sink_.data);
    wf_sync_kernel("loading the side probes at home");
    wf_buffer<float> r_cycles(wf_max_smid), c_cycles(wf_max_smid);
    wf_time_sides<<<sms, 32, smem_>>>(nodes_.data, r_nodes.data, c_nodes.data, per_sm, r_cycles.data,
                                      c_cycles.data);
    wf_sync_kernel("every SM timing the side probes");
    const std::vector<float> to_r = r_cycles.to_host(), to_c = c_cycles.to_host();
    int counts[2] = {0, 0};
    for (const unsigned sm : homes.smids) {
      homes.side_of[sm] = to_r[sm] <= to_c[sm] ? 0 : 1;
      ++counts[homes.side_of[sm]];
    }
    std::printf("# L2 homes: %d SMs on SM %u's side (its sectors %.0f cycles, the other's %.0f), %d on SM %u's (%.0f, %.0f)\n",
                counts[0], homes.reference_sm, to_r[homes.reference_sm], to_c[homes.reference_sm],
                counts[1], homes.other_sm, to_r[homes.other_sm], to_c[homes.other_sm]);
    if (homes.side_of[homes.reference_sm] != 0 || homes.side_of[homes.other_sm] != 1 || counts[1] == 0)
      wf_fail("the SMs' sides contradict the sector probe");
  }

  const cudaDeviceProp& prop_;
  wf_buffer<unsigned long long>& nodes_;
  std::size_t lines_;
  wf_buffer<unsigned> cycles_;  // by node
  wf_buffer<unsigned long long> sink_;
  wf_buffer<unsigned char> flush_;
  std::size_t smem_ = 0;
  int flush_value_ = 0;
  double threshold_ = 0, far_limit_ = 0;
};
