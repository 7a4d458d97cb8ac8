# book_native_flags(<variable>): the flags -march=native stands for on this
# processor, read from what the compiler's driver passes to the compiler proper
# (`g++ -march=native -E -v`): -march=, -mtune=, every -m<extension> and
# -mno-<extension>, and the cache sizes as --param=<name>=<value>. A compiler
# whose driver prints no such line (not GCC) gets -march=native itself.
function(book_native_flags variable)
  execute_process(
    COMMAND ${CMAKE_CXX_COMPILER} -march=native -E -v -x c++ -
    INPUT_FILE /dev/null OUTPUT_QUIET ERROR_VARIABLE driver_log RESULT_VARIABLE status)
  string(REGEX MATCH "cc1plus[^\n]*-march=[^\n]*" compiler_line "${driver_log}")
  if(NOT status EQUAL 0 OR compiler_line STREQUAL "")
    set(${variable} -march=native PARENT_SCOPE)
    return()
  endif()
  separate_arguments(arguments UNIX_COMMAND "${compiler_line}")
  set(flags "")
  set(next_is_param FALSE)
  foreach(argument IN LISTS arguments)
    if(next_is_param)
      list(APPEND flags "--param=${argument}")
      set(next_is_param FALSE)
    elseif(argument STREQUAL "--param")
      set(next_is_param TRUE)
    elseif(argument MATCHES "^-m(arch|tune)=" OR argument MATCHES "^-m(no-)?[a-z0-9][a-z0-9.-]*$")
      list(APPEND flags "${argument}")
    endif()
  endforeach()
  if(NOT flags MATCHES "-march=")
    set(flags -march=native)
  endif()
  set(${variable} ${flags} PARENT_SCOPE)
endfunction()
