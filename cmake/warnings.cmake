function(gridops_set_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wno-psabi)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    # GCC 12 reports false -Wrestrict/-Wstringop-overflow positives inside libstdc++'s
    # std::string at -O2 (GCC bugs 105329, 105651).
    target_compile_options(${target} PRIVATE -Wno-restrict -Wno-stringop-overflow)
  endif()
  if(GRIDOPS_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
