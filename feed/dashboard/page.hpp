#pragma once
// The dashboard's page (feed/dashboard/page.html), compiled into the binary so the bundle carries it
// and nothing is looked up at run time.

#include <string_view>

namespace warpforge::dashboard {

/// The whole page: HTML, its styles and its script.
std::string_view page_html();

} // namespace warpforge::dashboard
