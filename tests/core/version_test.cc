// include/gridops/version.h against the version of CMake's project(), which the build
// passes to this test as GRIDOPS_TEST_PROJECT_VERSION.
#include <gtest/gtest.h>

#include <string>

#include "gridops/gridops.h"  // the umbrella header brings version.h

#ifndef GRIDOPS_TEST_PROJECT_VERSION
#error "tests/CMakeLists.txt passes GRIDOPS_TEST_PROJECT_VERSION"
#endif

namespace {

TEST(Version, StringIsTheCMakeProjectVersion) {
  EXPECT_STREQ(GRIDOPS_VERSION_STRING, GRIDOPS_TEST_PROJECT_VERSION);
}

TEST(Version, PartsMakeTheString) {
  const std::string parts = std::to_string(GRIDOPS_VERSION_MAJOR) + "." + std::to_string(GRIDOPS_VERSION_MINOR) +
                            "." + std::to_string(GRIDOPS_VERSION_PATCH);
  EXPECT_EQ(parts, GRIDOPS_VERSION_STRING);
  EXPECT_EQ(GRIDOPS_VERSION, GRIDOPS_VERSION_MAJOR * 10000 + GRIDOPS_VERSION_MINOR * 100 + GRIDOPS_VERSION_PATCH);
}

static_assert(GRIDOPS_VERSION_MINOR < 100 && GRIDOPS_VERSION_PATCH < 100,
              "GRIDOPS_VERSION packs MINOR and PATCH in two decimal digits each");

}  // namespace
