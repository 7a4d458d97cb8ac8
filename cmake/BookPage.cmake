# The book's WebAssembly module (src/page/book_module.cpp): the shared program
# code and every chapter's computation (its sources),
# compiled by Debian's emscripten into one self-contained JavaScript file: the
# WebAssembly inside it as base64, so the page works from file://
# (tools/link_page_module.py says why not emscripten's -sSINGLE_FILE).
#
# em++ is not the project's compiler, so each source is compiled by a custom
# command (with a depfile, so a header change recompiles what includes it, and
# through ccache where installed). Known pitfalls, each handled here: em++ at
# -O1 and above needs NODE_PATH=/usr/share/nodejs; C++ exceptions are ignored
# unless enabled (bad input must throw: -fwasm-exceptions here); -march=native must not reach it;
# nor may -I/usr/include (the host's C headers break em++), which is where
# Debian's nlohmann/json, CLI11 and fmt live: em++ gets a folder holding links
# to just those three.
#
# Defines BOOK_PAGE_MODULE, the path of the module it builds.
find_program(BOOK_EMXX em++ REQUIRED)
set(page_dir ${PROJECT_BINARY_DIR}/page)
set(page_include_dir ${page_dir}/include)
file(MAKE_DIRECTORY ${page_include_dir})
foreach(library nlohmann CLI fmt)
  if(NOT EXISTS ${page_include_dir}/${library})
    file(CREATE_LINK /usr/include/${library} ${page_include_dir}/${library} SYMBOLIC)
  endif()
endforeach()

# The sources of the `program` library (src/CMakeLists.txt), and the chapters'
# computations: what book_chapter() collected (every source but the tests; the
# objects page_call links natively, tests/CMakeLists.txt, are of the same sources).
get_target_property(program_sources program SOURCES)
list(TRANSFORM program_sources PREPEND ${PROJECT_SOURCE_DIR}/src/ OUTPUT_VARIABLE page_program_sources)
# The library's compiled part (src/CMakeLists.txt): the token classifier's passes, which the page's
# trainings run, so at -O2 with the PAGE_SPEED chapters (below).
get_target_property(compiled_library_sources attention SOURCES)
list(TRANSFORM compiled_library_sources PREPEND ${PROJECT_SOURCE_DIR}/src/ OUTPUT_VARIABLE page_library_sources)
get_property(page_chapter_sources GLOBAL PROPERTY BOOK_PAGE_SOURCES)
set(page_sources ${page_library_sources} ${page_program_sources} ${page_chapter_sources}
    ${PROJECT_SOURCE_DIR}/src/page/book_module.cpp ${PROJECT_SOURCE_DIR}/src/page/fmt_library.cpp)

set(page_launcher ${CMAKE_COMMAND} -E env NODE_PATH=/usr/share/nodejs)
if(CCACHE)
  list(APPEND page_launcher CCACHE_BASEDIR=${PROJECT_SOURCE_DIR} CCACHE_NOHASHDIR=true ${CCACHE})
endif()
# -Os and WebAssembly's own exceptions (-fwasm-exceptions, in Chromium since
# version 95 and in Node since 17) keep the module about a third smaller than
# -O2 with emscripten's JavaScript exceptions. fmt's compiled part is compiled
# once, in src/page/fmt_library.cpp, not in every object (FMT_HEADER_ONLY).
set(page_compile_flags -fwasm-exceptions -DEIGEN_MPL2_ONLY
    -Wall -Wextra -Werror
    -I${page_include_dir} -I/usr/include/eigen3 -I${PROJECT_SOURCE_DIR}/src -I${PROJECT_SOURCE_DIR})

# A chapter marked PAGE_SPEED (book_chapter) is compiled at -O2 instead: its
# training loop spends its time in Eigen's matrix-product kernels, which -Os
# leaves as separate calls per multiply-add (measured: 250 training steps took
# 61 s at -Os, 3.1 s this way; the module grows by 8 %). Its objects come first
# in the link, so that the linker keeps its copies of the kernels, which every
# chapter then shares.
#
# The sources are compiled in batches of BOOK_PAGE_BATCH_SIZE, each batch one
# translation unit (build/page/batches/*.cpp; book_batches() in cmake/Book.cmake).
# Measured on the Intel machine, em++ compiling the 29 sources at -Os one by one
# took 123 processor-seconds, all in one unit 50; the 10 sources at -O2, 82 and
# 29. A batch of five keeps most of that and leaves a chapter's edit a short
# recompile (tools/check-chapter). Core WebAssembly has no fused multiply-add,
# and the module is built without relaxed SIMD, so no number the page computes
# depends on what the compiler inlines where. A source the build writes (a
# chapter's models, below book_models_for_the_page) and fmt's compiled part are
# compiled alone.
set(BOOK_PAGE_BATCH_SIZE 5 CACHE STRING "How many sources em++ compiles as one translation unit of the page's module")
get_property(page_speed_sources GLOBAL PROPERTY BOOK_PAGE_SPEED_SOURCES)
list(APPEND page_speed_sources ${page_library_sources})

# book_page_object(<name> <optimisation> <unit> <what>): compiles the unit into
# build/page/objects/<name>.o, saying it compiles <what>; sets page_object.
function(book_page_object name optimisation unit what)
  set(object ${page_dir}/objects/${name}.o)
  add_custom_command(OUTPUT ${object}
    COMMAND ${page_launcher} ${BOOK_EMXX} -std=c++20 ${optimisation} ${page_compile_flags} -MD -MF ${object}.d -c ${unit} -o ${object}
    DEPENDS ${unit}
    DEPFILE ${object}.d
    COMMENT "em++ ${optimisation} ${what}"
    VERBATIM)
  set(page_object ${object} PARENT_SCOPE)
endfunction()

# book_page_batches(<prefix> <optimisation> <source>...): compiles the sources
# in batches, <prefix>_1.o, <prefix>_2.o, ...; sets page_batch_objects.
function(book_page_batches prefix optimisation)
  book_batches(units names ${page_dir}/batches ${prefix} ${BOOK_PAGE_BATCH_SIZE} ${ARGN})
  set(objects "")
  foreach(unit what IN ZIP_LISTS units names)
    cmake_path(GET unit STEM name)  # <prefix>_1, ...
    book_page_object(${name} ${optimisation} ${unit} "${what}")
    list(APPEND objects ${page_object})
  endforeach()
  set(page_batch_objects ${objects} PARENT_SCOPE)
endfunction()

set(page_alone_objects "")
set(speed_sources "")
set(size_sources "")
foreach(source IN LISTS page_sources)
  cmake_path(IS_PREFIX PROJECT_BINARY_DIR "${source}" NORMALIZE written_by_the_build)
  if(written_by_the_build OR source STREQUAL "${PROJECT_SOURCE_DIR}/src/page/fmt_library.cpp")
    cmake_path(GET source STEM name)
    cmake_path(GET source FILENAME file_name)
    book_page_object(${name} -Os ${source} ${file_name})
    list(APPEND page_alone_objects ${page_object})
  elseif(source IN_LIST page_speed_sources)
    list(APPEND speed_sources ${source})
  else()
    list(APPEND size_sources ${source})
  endif()
endforeach()
book_page_batches(speed_batch -O2 ${speed_sources})
set(page_objects ${page_batch_objects})  # first in the link (above)
book_page_batches(size_batch -Os ${size_sources})
list(APPEND page_objects ${page_batch_objects} ${page_alone_objects})

# BOOK_PAGE_LINK says how the module is linked. "small" (the presets') lets wasm-opt shrink it at
# -Os: 21 s on the AMD EPYC of README's table, 2.5 MB of WebAssembly. "quick" links the same objects
# at -O1, which skips that: 5 s, 3.3 MB. The browser check holds either to the native programs'
# numbers. tools/check-chapter links quick; tools/build-book and tools/run-tests run
# `cmake --preset ci`, which sets it back to small.
set(BOOK_PAGE_LINK small CACHE STRING "How the page's module is linked: small (-Os) or quick (-O1)")
set_property(CACHE BOOK_PAGE_LINK PROPERTY STRINGS small quick)
if(BOOK_PAGE_LINK STREQUAL "small")
  set(page_link_optimisation -Os)
elseif(BOOK_PAGE_LINK STREQUAL "quick")
  set(page_link_optimisation -O1)
else()
  message(FATAL_ERROR "BOOK_PAGE_LINK is ${BOOK_PAGE_LINK}; expected small or quick")
endif()

# The link (20 s, most of it wasm-opt shrinking the module) goes through
# tools/cached_command.py: ccache hands a fresh clone its objects back, and this
# hands it the module linked from them, keyed on the objects' content, the
# command, and the versions of emscripten, wasm-ld and wasm-opt.
set(BOOK_PAGE_MODULE ${page_dir}/book_module.js)
# Debian names it wasm-ld-14 (package lld-14, which emscripten brings); the package lld adds wasm-ld.
# Looked up at every configuration (NO_CACHE): the cache key reads the file, and a path kept from an
# earlier configuration may since have gone with its package.
find_program(wasm_ld NAMES wasm-ld wasm-ld-14 REQUIRED NO_CACHE)
find_program(wasm_opt wasm-opt REQUIRED NO_CACHE)
file(REAL_PATH ${wasm_ld} wasm_ld_binary)
set(page_linker ${PROJECT_SOURCE_DIR}/tools/link_page_module.py)
set(page_link_inputs /usr/share/emscripten/emscripten-version.txt ${wasm_ld_binary} ${wasm_opt} ${page_linker}
    ${page_objects})
list(TRANSFORM page_link_inputs PREPEND "--input=" OUTPUT_VARIABLE page_link_input_arguments)
add_custom_command(OUTPUT ${BOOK_PAGE_MODULE}
  COMMAND ${BOOK_PYTHON} ${PROJECT_SOURCE_DIR}/tools/cached_command.py --output ${BOOK_PAGE_MODULE} --cache page-module
          --strip ${PROJECT_BINARY_DIR} --strip ${PROJECT_SOURCE_DIR} ${page_link_input_arguments} --
          ${BOOK_PYTHON} ${page_linker} ${BOOK_PAGE_MODULE} --
          ${page_launcher} ${BOOK_EMXX} ${page_link_optimisation} -fwasm-exceptions ${page_objects}
          -sMODULARIZE=1 -sEXPORT_NAME=createBookModule -sALLOW_MEMORY_GROWTH=1 -sFILESYSTEM=0
          -sENVIRONMENT=web,worker,node -sEXPORTED_FUNCTIONS=_book_call,_book_programs
          -sEXPORTED_RUNTIME_METHODS=ccall
  DEPENDS ${page_objects} ${page_linker} ${PROJECT_SOURCE_DIR}/tools/cached_command.py
  COMMENT "em++: the book's WebAssembly module"
  VERBATIM)
add_custom_target(book_module ALL DEPENDS ${BOOK_PAGE_MODULE})
