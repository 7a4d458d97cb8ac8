# The fuzz targets in the test suite, where clang++ and libFuzzer are installed
# (tools/install-dependencies installs clang and libclang-rt-14-dev). Included
# from tests/CMakeLists.txt.
#
# fuzz.build configures and builds tests/fuzz/ as a project of its own, with
# clang++, in <build>/tests/fuzz-build: it never slows the main g++ build, and
# only runs when a fuzz test does (a CTest fixture). Then each target runs for
# a few seconds from the seed corpus in tests/fuzz/corpus/<target>/; any crash,
# sanitizer report or broken invariant fails its test, and the input that did
# it is saved in <build>/tests/fuzz-build/artifacts/.
find_program(BOOK_CLANGXX NAMES clang++ clang++-14)
if(NOT BOOK_CLANGXX)
  message(STATUS "clang++ not found: the fuzz tests are left out (tools/install-dependencies installs it)")
  return()
endif()

set(fuzz_source_dir ${CMAKE_CURRENT_SOURCE_DIR}/fuzz)
set(fuzz_build_dir ${CMAKE_CURRENT_BINARY_DIR}/fuzz-build)
set(fuzz_seconds 4)  # per target

add_test(NAME fuzz.build
  COMMAND ${CMAKE_COMMAND} -D SOURCE=${fuzz_source_dir} -D BINARY=${fuzz_build_dir}
          -D COMPILER=${BOOK_CLANGXX} -D GENERATOR=${CMAKE_GENERATOR}
          -P ${fuzz_source_dir}/build_fuzz_targets.cmake)
set_tests_properties(fuzz.build PROPERTIES LABELS fuzz FIXTURES_SETUP fuzz_targets TIMEOUT 900)

foreach(target IN ITEMS fuzz_matrix_text fuzz_real_number fuzz_integer_list fuzz_command_line)
  # Through cmake -E env: the target does not exist until fuzz.build has run,
  # and CTest looks for a test's own executable when it lists the tests.
  add_test(NAME fuzz.${target}
    COMMAND ${CMAKE_COMMAND} -E env ${fuzz_build_dir}/${target} -max_total_time=${fuzz_seconds} -timeout=10 -rss_limit_mb=2048
            -print_final_stats=1 -artifact_prefix=${fuzz_build_dir}/artifacts/
            ${fuzz_build_dir}/corpus/${target} ${fuzz_source_dir}/corpus/${target}
    WORKING_DIRECTORY ${fuzz_build_dir})
  set_tests_properties(fuzz.${target} PROPERTIES LABELS fuzz FIXTURES_REQUIRED fuzz_targets TIMEOUT 120)
endforeach()
