#include "feed/dashboard/page.hpp"

namespace warpforge::embedded {
extern const std::string_view dashboard_page_html; // generated from page.html (EmbedText.cmake)
} // namespace warpforge::embedded

namespace warpforge::dashboard {

std::string_view page_html() {
  return embedded::dashboard_page_html;
}

} // namespace warpforge::dashboard
