// warp_schedulers_per_sm (schedulers): one block of 1 .. 8 warps per SM, every thread running 8
// independent FFMA chains (kernels/chain.cuh), so a warp can issue an FFMA every cycle. A
// scheduler issues one warp instruction per cycle, so the SM's rate grows with the warps until
// each scheduler has one, then stays: the value is the most warp-FFMAs per cycle seen over what
// one warp alone reaches, rounded. Prints the curve (curve_x = warps, curve_y = warp-FFMAs/clk).
#include "ops.cuh"

#include <cmath>

int main() {
  std::vector<double> rates;
  std::vector<double> clocks;
  for (int warps = 1; warps <= 8; ++warps) {
    const wf_throughput_result r =
        wf_measure_throughput<ffma_op, 8, 16>({0.5f, 0.25f}, 4096, 32 * warps);
    rates.push_back(r.per_clock_per_sm / 32.0); // thread FFMAs -> warp instructions
    clocks.push_back(r.sm_clock_mhz);
    wf_print_curve_point(warps, rates.back());
  }
  const double most = *std::max_element(rates.begin(), rates.end());
  if (rates[0] <= 0)
    wf_fail("one warp issued nothing");
  double clock = 0;
  for (const double c : clocks)
    clock += c / static_cast<double>(clocks.size());
  wf_print_result(std::round(most / rates[0]), clock);
}
