# book_chapter(): everything one chapter adds to the build (the chapter's folder,
# chapters/NN_slug, says the rest; see the function below):
#
# - builds the program into bin/<slug>;
# - runs it as the `.. runs::` block that ends its index.rst lists, capturing the printed tables and
#   the --json document of each run for the book;
# - draws each figure with figures/chNN_*.py from those JSON documents;
# - registers tests/programs/test_<slug>.py with CTest under the label chNN;
# - compiles its sources other than its tests once, as the object
#   library <slug>_computation (listed in the global property
#   BOOK_COMPUTATION_TARGETS), which the program and tests/ page_call link;
#   and adds them to BOOK_PAGE_SOURCES, which the page's module is built from;
# - leaves its test_*.cpp, the Catch2 tests of that computation, to
#   tests/CMakeLists.txt (the program chapter_tests), under chNN.

set(BOOK_GENERATED_DIR ${PROJECT_BINARY_DIR}/book/generated)
set(BOOK_OUTPUTS_DIR ${BOOK_GENERATED_DIR}/outputs)
# Where the book is rendered, a test reads the book's own runs from there (harness.published_run, the page-entry
# test): the environment that says so, for every test that does, and empty in the sanitizer build.
set(BOOK_PUBLISHED_RUNS_ENVIRONMENT "")
if(BOOK_RENDER AND NOT BOOK_SANITIZE)
  set(BOOK_PUBLISHED_RUNS_ENVIRONMENT BOOK_OUTPUTS_DIR=${BOOK_OUTPUTS_DIR})
endif()
set(BOOK_FIGURES_DIR ${BOOK_GENERATED_DIR}/figures)
set(BOOK_UNTIMED_STAMP ${BOOK_GENERATED_DIR}/untimed.stamp)  # docs/CMakeLists.txt
set(BOOK_TIMED_STAMP ${BOOK_GENERATED_DIR}/timed.stamp)
define_property(GLOBAL PROPERTY BOOK_GENERATED_FILES
  BRIEF_DOCS "Program outputs and figures the book is built from")

# What the figures are drawn with, as part of each figure's cache key (below):
# the versions of Python, matplotlib (whose own fonts the figures use) and NumPy.
set(BOOK_FIGURE_TOOLS ${PROJECT_BINARY_DIR}/book/figure-tools.txt)
if(BOOK_RENDER)
  execute_process(
    COMMAND ${BOOK_PYTHON} -c "import sys, matplotlib, numpy; print(sys.version); print('matplotlib', matplotlib.__version__, matplotlib.__file__); print('numpy', numpy.__version__)"
    OUTPUT_VARIABLE figure_tools COMMAND_ERROR_IS_FATAL ANY)
  file(CONFIGURE OUTPUT ${BOOK_FIGURE_TOOLS} CONTENT "${figure_tools}")
endif()

# book_python_test(): a Python unittest module run by CTest.
#
#   book_python_test(NAME ch01.dot_product.program MODULE test_dot_product
#                    DIRECTORY tests/programs LABELS ch01 programs ENVIRONMENT BOOK_PROGRAM=...
#                    [COST seconds])
#
# COST, a rough time in seconds, lets CTest start the long tests first when it
# has no timings of its own yet (a fresh clone), so that no long test is left
# running alone at the end.
function(book_python_test)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "NAME;MODULE;DIRECTORY;COST" "LABELS;ENVIRONMENT")
  add_test(NAME ${arg_NAME}
    COMMAND ${BOOK_PYTHON} -m unittest --quiet ${arg_MODULE}
    WORKING_DIRECTORY ${arg_DIRECTORY})
  if(NOT arg_COST)
    set(arg_COST 0)
  endif()
  set_tests_properties(${arg_NAME} PROPERTIES LABELS "${arg_LABELS}" ENVIRONMENT "${arg_ENVIRONMENT}"
    COST ${arg_COST})
endfunction()

# How hard the compiler works on each program. Only a program whose runs time
# something or train needs the build type's full optimisation (-O3 in a Release
# build): its printed timings must be those of optimised code, and its trainings
# quick. Such a chapter says SPEED (book_chapter, below). So does, as FMA, a
# chapter whose printed numbers are those of -O3's fused multiply-adds: with
# -march=native, GCC at -O2 and above fuses a product and a sum into one
# instruction, rounded once, and at -Og or -O1 it does not, which moves the last
# digits of some results (chapters 0, 2, 5, 6, 8 and 10; measured against an
# -O3 build). Every other chapter's program and computation, what any program
# prints and reads (slug_output.cpp), the program
# library, and the library's and the chapters' Catch2 tests are compiled at
# BOOK_QUICK_OPTIMIZATION instead, which costs the compiler less and changes no printed number
# (README, under tools/build-book). The library is in its headers, so it is
# compiled at the level of the unit that includes it, but for the token
# classifier's passes and starting weights (src/attention/token_classifier.cpp),
# compiled once at the build type's level: only SPEED chapters train one.
#
# The sanitizer build (a Debug build at -O1, CMakePresets.json) compiles with
# Clang, and the test programs and the program library at
# BOOK_QUICK_SANITIZED_OPTIMIZATION, -O0 there. It is not compiled for this
# processor, so nothing is fused at any level. The chapters' computations, in
# their batches (book_batched_computations, below), keep -O1: the tests run the
# trainings there, which take three to six times as long at -O0. Measured on the
# AMD machine without ccache, from scratch: GCC at -Og (its cheapest level under
# AddressSanitizer: -O0 saves it nothing, and -O1 costs about twice) built it in
# 458 s (886 processor-seconds) and its tests took 154 s (302); Clang, so, in
# 299 s (583) and 174 s (339). Clang at -O0 everywhere built it in 436
# processor-seconds, but the tests of the chapters that train took three to six
# times as long.
set(BOOK_QUICK_OPTIMIZATION -Og CACHE STRING
  "Optimisation of the programs that time nothing, in a Release or RelWithDebInfo build (empty: the build type's own)")
set(BOOK_QUICK_SANITIZED_OPTIMIZATION -Og CACHE STRING
  "Optimisation of the same programs in the sanitizer build (empty: the build type's own)")

# book_compile_quickly(<target>...): compile the targets at BOOK_QUICK_OPTIMIZATION
# (BOOK_QUICK_SANITIZED_OPTIMIZATION in the sanitizer build).
# Appended after the build type's flags, it is the -O level the compiler obeys.
# GCC 12's AVX-512 intrinsic headers, which trip -Wmaybe-uninitialized at -O3
# (GCC bug 105593, CMakeLists.txt), trip -Wuninitialized at -Og and -O1: with
# -march=native, that warning is left to the -O3 units and to the sanitizer
# build, which is not compiled for this processor.
function(book_compile_quickly)
  book_quick_options(options)
  if(NOT options)
    return()
  endif()
  foreach(target IN LISTS ARGN)
    target_compile_options(${target} PRIVATE "${options}")
  endforeach()
endfunction()

# book_quick_options(<variable>): the options book_compile_quickly() gives a target, as one generator
# expression (empty where there are none), for a source file's COMPILE_OPTIONS as well.
function(book_quick_options variable)
  if(BOOK_SANITIZE)
    set(options ${BOOK_QUICK_SANITIZED_OPTIMIZATION})
    set(configurations Debug)
  else()
    set(options ${BOOK_QUICK_OPTIMIZATION})
    set(configurations Release,RelWithDebInfo)
  endif()
  if(NOT options)
    set(${variable} "" PARENT_SCOPE)
    return()
  endif()
  if(BOOK_NATIVE AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
    list(APPEND options -Wno-uninitialized)
  endif()
  set(${variable} "$<$<CONFIG:${configurations}>:${options}>" PARENT_SCOPE)
endfunction()

# book_batches(<units> <names> <folder> <prefix> <size> <source>...): deals the
# sources, in order, into translation units of <size> sources each,
# <folder>/<prefix>_1.cpp, <prefix>_2.cpp, ..., each of which includes its
# sources by their paths in the book's folder (so compile it with -I<the book's
# folder>; a path CMake would write is absolute, and ccache would hash it, so a
# clone in another folder would compile it again). Sets <units> to the units,
# <names> to their sources' file names, one text per unit ("softmax.cpp masking.cpp"),
# and, for each source, <units>_of_<source> to the unit that holds it.
#
# What the sources of a batch share, Eigen's kernels, nlohmann/json and the
# library's functions, is parsed and compiled once a batch instead of once a
# source (measured: chapters 0 to 4 under the sanitizers, one by one 45 s, as
# one unit 20 s). A batch shares one anonymous namespace and the macros of its
# sources: two sources may not define the same name outside their own
# namespaces (the compiler says which).
function(book_batches units_variable names_variable folder prefix size)
  set(units "")
  set(names "")
  set(batch "")
  set(number 0)
  list(LENGTH ARGN left)
  foreach(source IN LISTS ARGN)
    list(APPEND batch ${source})
    list(LENGTH batch count)
    math(EXPR left "${left} - 1")
    if(NOT (count EQUAL size OR left EQUAL 0))
      continue()
    endif()
    math(EXPR number "${number} + 1")
    set(file_names "")
    set(content "// One translation unit of sources that book_batches() (cmake/Book.cmake) dealt together.\n")
    set(unit ${folder}/${prefix}_${number}.cpp)
    foreach(member IN LISTS batch)
      file(RELATIVE_PATH relative ${PROJECT_SOURCE_DIR} ${member})
      string(APPEND content "#include \"${relative}\"\n")
      cmake_path(GET member FILENAME file_name)
      list(APPEND file_names ${file_name})
      set("${units_variable}_of_${member}" ${unit} PARENT_SCOPE)
    endforeach()
    file(CONFIGURE OUTPUT ${unit} CONTENT "${content}")  # written again only when it changes
    list(APPEND units ${unit})
    list(JOIN file_names " " file_names)
    list(APPEND names "${file_names}")
    set(batch "")
  endforeach()
  set(${units_variable} ${units} PARENT_SCOPE)
  set(${names_variable} ${names} PARENT_SCOPE)
endfunction()

# The sanitizer build compiles the chapters' computations in batches
# (book_batches, above): under AddressSanitizer and UndefinedBehaviorSanitizer
# each source compiles for 5 to 50 s, most of it on what the chapters share.
# A program links the batches that hold its chapter's sources, as objects, and
# runs the chapter whose name it was built with (src/program/chapter_main.cpp);
# what else it calls (chapter 14, chapter 13's parser) comes from a static
# library of every batch, every_batch, whose objects join the link only when called.
# chapter_tests and page_call link every batch (BOOK_BATCHED_COMPUTATIONS,
# tests/CMakeLists.txt). The batches keep the build type's level (-O1: the note
# above book_compile_quickly says why).
set(BOOK_BATCH_SIZE 5 CACHE STRING
  "How many sources the native builds compile as one translation unit where they batch (book_batches)")
set(BOOK_BATCHED_COMPUTATIONS "")

# book_batched_computations(): the batches of the sources every book_chapter()
# call collected, linked into each program; called once they all have. Sets
# BOOK_BATCHED_COMPUTATIONS, the batches' object libraries.
function(book_batched_computations)
  get_property(sources GLOBAL PROPERTY BOOK_BATCHED_SOURCES)
  book_batches(units names ${PROJECT_BINARY_DIR}/batches computations ${BOOK_BATCH_SIZE} ${sources})
  set(batches "")
  foreach(unit IN LISTS units)
    cmake_path(GET unit STEM stem)  # computations_1, ...
    set(batch batched_${stem})
    add_library(${batch} OBJECT ${unit})
    target_include_directories(${batch} PRIVATE ${PROJECT_SOURCE_DIR})
    target_link_libraries(${batch} PUBLIC program)
    list(APPEND batches ${batch})
  endforeach()
  list(TRANSFORM batches PREPEND "$<TARGET_OBJECTS:" OUTPUT_VARIABLE every_object)
  list(TRANSFORM every_object APPEND ">")
  add_library(every_batch STATIC ${every_object})
  target_link_libraries(every_batch PUBLIC program)
  get_property(computations GLOBAL PROPERTY BOOK_COMPUTATION_TARGETS)
  foreach(computation IN LISTS computations)
    string(REGEX REPLACE "_computation$" "" program ${computation})
    get_target_property(sources ${computation} SOURCES)
    set(own_batches "")
    foreach(source IN LISTS sources)
      cmake_path(GET units_of_${source} STEM stem)
      list(APPEND own_batches batched_${stem})
    endforeach()
    list(REMOVE_DUPLICATES own_batches)
    target_link_libraries(${program} PRIVATE ${own_batches} every_batch)
  endforeach()
  set(BOOK_BATCHED_COMPUTATIONS ${batches} PARENT_SCOPE)
endfunction()

# book_chapter([DIRECTORY chapters/NN_slug]): the chapter in that folder (by default the
# folder of the CMakeLists.txt that calls it; the top-level CMakeLists.txt calls it so
# for a chapter folder with no CMakeLists.txt of its own). Everything follows from the
# folder's name and its files: the program is the slug, the label chNN, the sources every
# .cpp file of the folder but its tests, and the figures every figures/chNN_*.py. The
# program's main() is src/program/chapter_main.cpp, which runs the command line the
# chapter's sources registered with program::register_chapter().
#
# The runs block that ends the folder's index.rst may say how the chapter is compiled, "compile": [...]:
# "SPEED" compiles the program and its computation (apart from its slug_output.cpp) at the build type's full
# optimisation, for a chapter whose runs time something or train; "FMA" does the same
# for a chapter whose printed numbers are those of the fused multiply-adds -O3 forms,
# and would move without them; without either (in the sanitizer build, without SPEED)
# they are compiled quickly (book_compile_quickly, above). "PAGE_SPEED" compiles the
# computation for speed in the page's module (cmake/BookPage.cmake).
function(book_chapter)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "DIRECTORY" "")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "book_chapter(${arg_UNPARSED_ARGUMENTS}): book_chapter takes only DIRECTORY; how the "
                        "chapter is compiled goes in its runs block (\"compile\"), and the rest follows from its folder")
  endif()
  if(NOT arg_DIRECTORY)
    set(arg_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR})
  endif()
  cmake_path(ABSOLUTE_PATH arg_DIRECTORY BASE_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR} NORMALIZE
             OUTPUT_VARIABLE chapter_dir)
  string(REGEX REPLACE "/$" "" chapter_dir ${chapter_dir})
  cmake_path(GET chapter_dir FILENAME folder)
  if(NOT folder MATCHES "^([0-9][0-9])_([a-z0-9_]+)$")
    message(FATAL_ERROR "book_chapter: the folder ${folder} is not named NN_slug (two digits, an underscore, a slug)")
  endif()
  set(number ${CMAKE_MATCH_1})
  set(arg_PROGRAM ${CMAKE_MATCH_2})
  set(arg_LABEL ch${number})
  file(GLOB arg_SOURCES RELATIVE ${chapter_dir} CONFIGURE_DEPENDS ${chapter_dir}/*.cpp)
  list(FILTER arg_SOURCES EXCLUDE REGEX "^test_")  # the chapter's Catch2 tests (below), not its program
  list(SORT arg_SOURCES)
  file(GLOB figure_scripts RELATIVE ${PROJECT_SOURCE_DIR}/figures CONFIGURE_DEPENDS
       ${PROJECT_SOURCE_DIR}/figures/ch${number}_*.py)
  list(SORT figure_scripts)
  list(TRANSFORM figure_scripts REPLACE "\\.py$" "" OUTPUT_VARIABLE arg_FIGURES)

  # The runs that end the chapter's index.rst, as the top-level CMakeLists.txt had
  # tools/chapter_runs.py write them (rewritten only when they change).
  set(runs_file ${BOOK_RUNS_DIR}/${folder}.json)
  if(NOT EXISTS ${runs_file})
    message(FATAL_ERROR "book_chapter(${arg_PROGRAM}): ${folder}/index.rst ends in no `.. runs::` block "
                        "(tools/chapter_runs.py)")
  endif()
  file(READ ${runs_file} runs_json)
  foreach(option SPEED FMA PAGE_SPEED)
    set(arg_${option} FALSE)
  endforeach()
  string(JSON compile_count ERROR_VARIABLE no_compile_setting LENGTH "${runs_json}" compile)
  if(NOT no_compile_setting AND compile_count GREATER 0)
    math(EXPR last_option "${compile_count} - 1")
    foreach(index RANGE ${last_option})
      string(JSON option GET "${runs_json}" compile ${index})
      if(NOT option MATCHES "^(SPEED|FMA|PAGE_SPEED)$")
        message(FATAL_ERROR "book_chapter(${arg_PROGRAM}): the runs block's \"compile\" lists ${option}; "
                            "expected SPEED, FMA or PAGE_SPEED")
      endif()
      set(arg_${option} TRUE)
    endforeach()
  endif()
  set_property(GLOBAL APPEND PROPERTY BOOK_CHAPTER_LABELS ${arg_LABEL})
  # The chapter's computation (its sources), compiled once: the
  # program links it, and so does what calls the chapters' page programs
  # natively (tests/page/page_call.cpp), which used to compile every chapter a
  # second time. An object library, not a static one: a static library's
  # objects that nothing refers to, such as the page's registrations, would be
  # left out of the link.
  if("main.cpp" IN_LIST arg_SOURCES)
    message(FATAL_ERROR "book_chapter(${arg_PROGRAM}): ${folder}/main.cpp: a chapter registers its command line "
                        "with program::register_chapter() (src/program/run_chapter.hpp) and has no main.cpp")
  endif()
  add_executable(${arg_PROGRAM} ${PROJECT_SOURCE_DIR}/src/program/chapter_main.cpp)
  target_compile_definitions(${arg_PROGRAM} PRIVATE BOOK_CHAPTER_PROGRAM="${arg_PROGRAM}")
  target_link_libraries(${arg_PROGRAM} PRIVATE program)
  list(TRANSFORM arg_SOURCES PREPEND ${chapter_dir}/ OUTPUT_VARIABLE computation_sources)
  set(page_sources ${computation_sources})
  if(NOT arg_SOURCES)
    # A chapter in one header, slug.hpp, its functions inline and its registration an inline variable
    # (chapter 1): the build compiles it through a source of one line, written here, which the program,
    # the page's module and the sanitizer build's batches take as the chapter's source.
    if(NOT EXISTS ${chapter_dir}/${arg_PROGRAM}.hpp)
      message(FATAL_ERROR "book_chapter(${arg_PROGRAM}): neither a .cpp file nor ${arg_PROGRAM}.hpp in ${folder}")
    endif()
    set(page_sources ${chapter_dir}/${arg_PROGRAM}.hpp)  # the page's module batches it as it is (cmake/BookPage.cmake)
    set(computation_sources ${PROJECT_BINARY_DIR}/chapter_sources/${arg_PROGRAM}.cpp)
    file(CONFIGURE OUTPUT ${computation_sources}
         CONTENT "// The chapter in one header, compiled as a source (cmake/Book.cmake, book_chapter).\n#include \"chapters/${folder}/${arg_PROGRAM}.hpp\"\n")
  endif()
  add_library(${arg_PROGRAM}_computation OBJECT ${computation_sources})
  if(NOT arg_SOURCES)  # the one-line source includes the header by its path in the book's folder
    target_include_directories(${arg_PROGRAM}_computation PRIVATE ${PROJECT_SOURCE_DIR})
  endif()
  target_link_libraries(${arg_PROGRAM}_computation PUBLIC program)
  target_link_libraries(${arg_PROGRAM} PRIVATE ${arg_PROGRAM}_computation)
  set_property(GLOBAL APPEND PROPERTY BOOK_COMPUTATION_TARGETS ${arg_PROGRAM}_computation)
  # docs/CMakeLists.txt: what book_compiled waits for
  set_property(GLOBAL APPEND PROPERTY BOOK_CHAPTER_TARGETS ${arg_PROGRAM} ${arg_PROGRAM}_computation)
  if(NOT arg_SPEED AND (NOT arg_FMA OR BOOK_SANITIZE))
    book_compile_quickly(${arg_PROGRAM} ${arg_PROGRAM}_computation)
    set_property(GLOBAL APPEND PROPERTY BOOK_QUICK_COMPUTATION_TARGETS ${arg_PROGRAM}_computation)
  else()
    # What the program prints and reads, slug_output.cpp (the JSON, the tables, the flags, the page's entry),
    # times nothing and trains nothing: compiled quickly even where the computation beside it is not.
    set(output_sources ${computation_sources})
    list(FILTER output_sources INCLUDE REGEX "_output\\.cpp$")
    book_quick_options(options)
    if(output_sources AND options)
      set_source_files_properties(${output_sources} PROPERTIES COMPILE_OPTIONS "${options}")
    endif()
  endif()
  if(BOOK_SANITIZE)
    # In the sanitizer build every chapter's sources are compiled in batches
    # instead (book_batched_computations, above), which the programs link: the
    # chapter's target keeps its sources, and what they ask of the build, and
    # compiles none of them.
    set_source_files_properties(${computation_sources} PROPERTIES HEADER_FILE_ONLY ON)
    set_target_properties(${arg_PROGRAM}_computation PROPERTIES LINKER_LANGUAGE CXX)
    set_property(GLOBAL APPEND PROPERTY BOOK_BATCHED_SOURCES ${computation_sources})
  endif()
  # The same sources, for em++ to compile into the page's module.
  foreach(source IN LISTS page_sources)
    set_property(GLOBAL APPEND PROPERTY BOOK_PAGE_SOURCES ${source})
    if(arg_PAGE_SPEED)  # compiled for speed, not size, in the page's module (cmake/BookPage.cmake)
      set_property(GLOBAL APPEND PROPERTY BOOK_PAGE_SPEED_SOURCES ${source})
    endif()
  endforeach()

  # The chapter's Catch2 tests of its computation, in-process: test_*.cpp beside
  # it. tests/CMakeLists.txt compiles every chapter's into one program,
  # chapter_tests, linked with their computations.
  file(GLOB chapter_tests CONFIGURE_DEPENDS ${chapter_dir}/test_*.cpp)
  if(chapter_tests)
    list(SORT chapter_tests)
    foreach(source IN LISTS chapter_tests)  # each file with its label: "ch03|/…/test_softmax.cpp"
      set_property(GLOBAL APPEND PROPERTY BOOK_CHAPTER_TESTS "${arg_LABEL}|${source}")
    endforeach()
    set_property(GLOBAL APPEND PROPERTY BOOK_CHAPTER_TEST_TARGETS ${arg_PROGRAM}_computation)
  endif()

  set(test_script ${PROJECT_SOURCE_DIR}/tests/programs/test_${arg_PROGRAM}.py)
  if(EXISTS ${test_script})
    # Where the book is rendered, what the prose says of a run it shows is checked on that run.
    book_python_test(NAME ${arg_LABEL}.${arg_PROGRAM}.program MODULE test_${arg_PROGRAM}
      DIRECTORY ${PROJECT_SOURCE_DIR}/tests/programs
      LABELS ${arg_LABEL} programs COST 10
      ENVIRONMENT BOOK_PROGRAM=$<TARGET_FILE:${arg_PROGRAM}> BOOK_SANITIZE=$<BOOL:${BOOK_SANITIZE}>
                  BOOK_PAGE_CALL=$<TARGET_FILE:page_call>  # the page's entry, natively (tests/CMakeLists.txt)
                  ${BOOK_PUBLISHED_RUNS_ENVIRONMENT})
  endif()

  if(NOT BOOK_RENDER)
    return()
  endif()
  string(JSON run_count LENGTH "${runs_json}" runs)
  set(run_outputs "")
  set(untimed_run_outputs "")
  set(chapter_times_something FALSE)
  math(EXPR last_run "${run_count} - 1")
  foreach(index RANGE ${last_run})
    string(JSON run_name MEMBER "${runs_json}" runs ${index})
    set(outputs ${BOOK_OUTPUTS_DIR}/${run_name}.txt ${BOOK_OUTPUTS_DIR}/${run_name}.json
                ${BOOK_OUTPUTS_DIR}/${run_name}.command)
    # A run that times something (a json_file run: its numbers change from
    # run to run) waits until everything is compiled (book_compiled) and every
    # run that times nothing has run (BOOK_UNTIMED_STAMP, docs/CMakeLists.txt),
    # and runs alone among such runs (the job pool book_timing, of depth 1);
    # what is made from its numbers waits for every timed run
    # (BOOK_TIMED_STAMP). Files, not targets: a target's dependency holds
    # every command of the chapter's target back, and would make a cycle. So
    # nothing else of the build shares the machine with it: timed beside a
    # compiler, the book's sentences on which method is faster would report
    # the compiler, and tools/capture_run.py keeps no timing that other work
    # disturbed.
    # (A run given as a list of arguments has no json_file: GET fails quietly
    # and leaves `timed` as ...-NOTFOUND, which is false.)
    string(JSON timed ERROR_VARIABLE no_json_file GET "${runs_json}" runs ${run_name} json_file)
    # "timed": false says that a json_file run's varying numbers are no claim about speed (a training's
    # seconds): it need not wait, and the page's module may read it (chapter 16 ships its grid's runs).
    string(JSON timed_setting ERROR_VARIABLE no_timed_setting GET "${runs_json}" runs ${run_name} timed)
    if(NOT no_timed_setting)
      set(timed ${timed_setting})
    endif()
    set(timing_options "")
    if(timed)
      set(timing_options DEPENDS book_compiled ${BOOK_UNTIMED_STAMP} JOB_POOL book_timing)
      set(chapter_times_something TRUE)
    endif()
    add_custom_command(OUTPUT ${outputs}
      COMMAND ${BOOK_PYTHON} ${PROJECT_SOURCE_DIR}/tools/capture_run.py
              --program $<TARGET_FILE:${arg_PROGRAM}> --runs ${runs_file} --run ${run_name}
              --out ${BOOK_OUTPUTS_DIR}
      DEPENDS ${arg_PROGRAM} ${runs_file} ${PROJECT_SOURCE_DIR}/tools/capture_run.py
      ${timing_options}
      COMMENT "Running ${arg_PROGRAM} for the book (${run_name})"
      VERBATIM)
    list(APPEND run_outputs ${outputs})
    if(timed)
      set_property(GLOBAL APPEND PROPERTY BOOK_TIMED_OUTPUTS ${outputs})
    else()
      set_property(GLOBAL APPEND PROPERTY BOOK_UNTIMED_OUTPUTS ${outputs})
      list(APPEND untimed_run_outputs ${outputs})
    endif()
  endforeach()
  # The runs that time nothing get a target of their own: a target that holds a
  # timed run waits for book_compiled, and so would every command it holds.
  # Here they run as soon as their program is linked, beside the compiler.
  if(chapter_times_something AND untimed_run_outputs)
    add_custom_target(${arg_PROGRAM}_untimed_runs DEPENDS ${untimed_run_outputs})
  endif()
  # What is made from the chapter's runs: after every timed run, if one of them is the chapter's.
  set(after_the_runs "")
  if(chapter_times_something)
    set(after_the_runs ${BOOK_TIMED_STAMP})
  endif()

  # A figure is drawn from its chapter's JSON documents alone, so it goes
  # through tools/cached_command.py, keyed on those documents, its script, the
  # shared style and the versions of Python, matplotlib and NumPy: a fresh
  # clone gets the SVG back instead of drawing it again (2 s each, most of it
  # importing matplotlib). A run that prints timings has the same JSON while
  # its timings are kept (tools/capture_run.py), and its figures are drawn
  # again when they are measured again.
  set(figures "")
  set(run_documents ${run_outputs})
  list(FILTER run_documents INCLUDE REGEX "\\.json$")
  set(figure_inputs ${PROJECT_SOURCE_DIR}/figures/figure_style.py ${BOOK_FIGURE_TOOLS} ${run_documents})
  list(TRANSFORM figure_inputs PREPEND "--input=" OUTPUT_VARIABLE input_arguments)
  foreach(figure IN LISTS arg_FIGURES)
    set(svg ${BOOK_FIGURES_DIR}/${figure}.svg)
    set(script ${PROJECT_SOURCE_DIR}/figures/${figure}.py)
    # A script that calls save_wide_and_narrow() (figures/figure_style.py) also
    # draws the figure for narrow screens, NAME.narrow.svg, which the page shows there.
    # Read here, so an edit of the script configures again.
    file(STRINGS ${script} draws_narrow REGEX "save_wide_and_narrow\\(")
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${script})
    set(svgs ${svg})
    if(draws_narrow)
      list(APPEND svgs ${BOOK_FIGURES_DIR}/${figure}.narrow.svg)
    endif()
    list(TRANSFORM svgs PREPEND "--output=" OUTPUT_VARIABLE output_arguments)
    add_custom_command(OUTPUT ${svgs}
      COMMAND ${BOOK_PYTHON} ${PROJECT_SOURCE_DIR}/tools/cached_command.py ${output_arguments} --cache figures
              --strip ${PROJECT_BINARY_DIR} --strip ${PROJECT_SOURCE_DIR} --input=${script} ${input_arguments} --
              ${BOOK_PYTHON} ${script} --outputs ${BOOK_OUTPUTS_DIR} --out ${svg}
      DEPENDS ${script} ${figure_inputs} ${PROJECT_SOURCE_DIR}/tools/cached_command.py ${after_the_runs}
      COMMENT "Drawing figure ${figure}"
      VERBATIM)
    list(APPEND figures ${svgs})
  endforeach()

  # The chapter's listings in NumPy (numpy_*.py beside its page, shown in the
  # page's NumPy tabs), run on the chapter's runs and compared with the
  # program's numbers (tools/check_numpy_listings.py). A difference stops the
  # build; what passed is written to generated/numpy/, and the book shows
  # only a NumPy listing found there. A listing may import another chapter's.
  file(GLOB numpy_listings CONFIGURE_DEPENDS ${chapter_dir}/numpy_*.py)
  file(GLOB every_numpy_listing CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/chapters/*/numpy_*.py)
  set(numpy_checks "")
  foreach(listing IN LISTS numpy_listings)
    cmake_path(GET listing STEM stem)
    set(checked ${BOOK_GENERATED_DIR}/numpy/${stem}.json)
    add_custom_command(OUTPUT ${checked}
      COMMAND ${BOOK_PYTHON} ${PROJECT_SOURCE_DIR}/tools/check_numpy_listings.py
              --listing ${listing} --runs ${runs_file} --outputs ${BOOK_OUTPUTS_DIR} --out ${checked}
      DEPENDS ${every_numpy_listing} ${run_documents} ${runs_file} ${PROJECT_SOURCE_DIR}/tools/check_numpy_listings.py
              ${after_the_runs}
      COMMENT "Checking ${stem}.py against ${arg_PROGRAM}'s runs"
      VERBATIM)
    list(APPEND numpy_checks ${checked})
  endforeach()

  if(NOT chapter_times_something)
    set_property(GLOBAL APPEND PROPERTY BOOK_UNTIMED_OUTPUTS ${figures} ${numpy_checks})
  endif()
  add_custom_target(${arg_PROGRAM}_for_the_book DEPENDS ${run_outputs} ${figures} ${numpy_checks})
  set_property(GLOBAL APPEND PROPERTY BOOK_GENERATED_FILES ${run_outputs} ${figures} ${numpy_checks})
  set_property(GLOBAL APPEND PROPERTY BOOK_GENERATED_TARGETS ${arg_PROGRAM}_for_the_book)
endfunction()

# book_models_for_the_page(): the models a chapter's program trains with its
# defaults, shipped in the page's WebAssembly module, so that the page restores
# the native model instead of training its own (tools/models_for_the_page.py
# says why). Called from the chapter's CMakeLists.txt, after book_chapter():
#
#   book_models_for_the_page(PROGRAM sentences HEADER chapters/13_sentences/sentences.hpp
#     NAMESPACE sentences RUNS "--task tagging" "--task agreement"
#     FIELDS key:text parameters:reals ...)
#
# RUNS: the arguments of each training, one string each (default: one training,
# with none); FIELDS: the SavedModel's members in order, as name:kind. The
# chapter declares `const std::vector<SavedModel>& models_for_the_page();` under
# __EMSCRIPTEN__; the source written here defines it, in the page's module only.
# FROM_RUN <run> LIST <key> instead of RUNS: the models are the list under
# <key> in the JSON of the chapter's captured run <run>, read and not trained
# again (chapter 16 ships its grid's runs so).
function(book_models_for_the_page)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "PROGRAM;HEADER;NAMESPACE;FROM_RUN;LIST" "RUNS;FIELDS")
  set(out ${PROJECT_BINARY_DIR}/page/generated/${arg_PROGRAM}_models.cpp)
  set(run_arguments "")
  foreach(run IN LISTS arg_RUNS)
    list(APPEND run_arguments "--run=${run}")
  endforeach()
  set(depends ${arg_PROGRAM})
  set(comment "Training ${arg_PROGRAM}'s models for the page")
  if(arg_FROM_RUN)  # the models are a list in a run the book captures: read, not trained again
    set(run_arguments --from-json ${BOOK_OUTPUTS_DIR}/${arg_FROM_RUN}.json --list ${arg_LIST})
    set(depends ${BOOK_OUTPUTS_DIR}/${arg_FROM_RUN}.json)
    set(comment "Reading ${arg_PROGRAM}'s runs of ${arg_FROM_RUN} for the page")
  endif()
  add_custom_command(OUTPUT ${out}
    COMMAND ${BOOK_PYTHON} ${PROJECT_SOURCE_DIR}/tools/models_for_the_page.py
            --program $<TARGET_FILE:${arg_PROGRAM}> --out ${out} --header ${arg_HEADER}
            --namespace ${arg_NAMESPACE} ${run_arguments} --fields ${arg_FIELDS}
    DEPENDS ${depends} ${PROJECT_SOURCE_DIR}/tools/models_for_the_page.py
    COMMENT "${comment}"
    VERBATIM)
  set_property(GLOBAL APPEND PROPERTY BOOK_PAGE_SOURCES ${out})
  # A custom command's rule is written only for a target of its own folder that needs it.
  add_custom_target(${arg_PROGRAM}_models_for_the_page DEPENDS ${out})
endfunction()
