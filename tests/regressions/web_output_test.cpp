// Placeholder: filled by the issue-22 work on this area (tests/regressions/CMakeLists.txt).
#include <gtest/gtest.h>
