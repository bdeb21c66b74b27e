// smem_bank_conflict_penalty (cycles per extra way): the same stride sweep as smem_banks
// (kernels/smem.cuh); with the bank count B it finds, stride s makes a min(s, B)-way conflict,
// and the value is the least-squares slope of cycles per warp access against the ways, over
// the strides up to B: what each lane sharing a bank adds.
#include "smem.cuh"

int main() {
  wf_device();
  const wf_bank_sweep sweep = wf_sweep_bank_strides();
  const unsigned banks = wf_banks_from(sweep);
  double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < sweep.strides_words.size(); ++i) {
    if (sweep.strides_words[i] > banks)
      break;
    const double ways = sweep.strides_words[i];
    n += 1, sx += ways, sy += sweep.cycles[i], sxx += ways * ways, sxy += ways * sweep.cycles[i];
  }
  const double spread = n * sxx - sx * sx;
  if (n < 2 || spread <= 0)
    wf_fail("fewer than two conflict degrees to fit a slope to");
  wf_print_result((n * sxy - sx * sy) / spread, sweep.sm_clock_mhz());
}
