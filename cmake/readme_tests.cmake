# Documentation tests (included from the top-level CMakeLists.txt when GRIDOPS_BUILD_TESTS):
#  - docs.readme_cpp: the README's C++ example (the ```cpp block right after the marker
#    <!-- readme-test: cpp -->), extracted at configure time into readme_snippet.cc, built
#    against gridops::gridops and run; a snippet that no longer compiles fails the build
#    of the tests, one that fails at run time (non-zero exit) fails the test. README.md is a
#    configure dependency, so editing it re-extracts the snippet.
#  - docs.check: scripts/check_docs.py (README.md within 150 lines, every markdown link in
#    README.md and docs/ relative and resolving).
# The README's Python example runs in python/tests/test_docs.py (python.pytest).
set(gridops_readme ${PROJECT_SOURCE_DIR}/README.md)
set_property(DIRECTORY ${PROJECT_SOURCE_DIR} APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${gridops_readme})
file(READ ${gridops_readme} gridops_readme_text)
set(gridops_marker "<!-- readme-test: cpp -->")
string(FIND "${gridops_readme_text}" "${gridops_marker}" gridops_at)
if(gridops_at EQUAL -1)
  message(FATAL_ERROR "README.md: no C++ example marked ${gridops_marker}")
endif()
string(LENGTH "${gridops_marker}" gridops_len)
math(EXPR gridops_at "${gridops_at} + ${gridops_len}")
string(SUBSTRING "${gridops_readme_text}" ${gridops_at} -1 gridops_rest)
string(REGEX MATCH "^[ \t\r\n]*```cpp\n" gridops_open "${gridops_rest}")
if(NOT gridops_open)
  message(FATAL_ERROR "README.md: ${gridops_marker} is not followed by a ```cpp block")
endif()
string(LENGTH "${gridops_open}" gridops_len)
string(SUBSTRING "${gridops_rest}" ${gridops_len} -1 gridops_rest)
string(FIND "${gridops_rest}" "\n```" gridops_end)
if(gridops_end EQUAL -1)
  message(FATAL_ERROR "README.md: the ```cpp block after ${gridops_marker} is not closed")
endif()
string(SUBSTRING "${gridops_rest}" 0 ${gridops_end} gridops_snippet)
file(WRITE ${PROJECT_BINARY_DIR}/readme/readme_snippet.cc.tmp
  "// Extracted from README.md by cmake/readme_tests.cmake: edit README.md, not this file.\n"
  "${gridops_snippet}\n")
configure_file(${PROJECT_BINARY_DIR}/readme/readme_snippet.cc.tmp
  ${PROJECT_BINARY_DIR}/readme/readme_snippet.cc COPYONLY)
add_executable(gridops_readme_snippet ${PROJECT_BINARY_DIR}/readme/readme_snippet.cc)
target_link_libraries(gridops_readme_snippet PRIVATE gridops::gridops)
gridops_set_warnings(gridops_readme_snippet)
add_test(NAME docs.readme_cpp COMMAND gridops_readme_snippet)
set_tests_properties(docs.readme_cpp PROPERTIES TIMEOUT 60)

find_program(GRIDOPS_DOCS_PYTHON NAMES python3)
if(GRIDOPS_DOCS_PYTHON)
  add_test(NAME docs.check COMMAND ${GRIDOPS_DOCS_PYTHON} ${PROJECT_SOURCE_DIR}/scripts/check_docs.py)
  set_tests_properties(docs.check PROPERTIES TIMEOUT 60)
endif()
