#pragma once
// Every CUPTI call of the injection library goes through cupti_ok: a failure becomes a note in
// the launch log's end line ("cuptiSubscribe: CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED"),
// never an abort of the observed program.

#include <cupti.h>

namespace warpforge::observe::inject {

/// Whether `result` is success; otherwise adds the note "<call>: <CUPTI's name of result>".
bool cupti_ok(CUptiResult result, const char* call);

} // namespace warpforge::observe::inject
