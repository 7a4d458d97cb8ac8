# cmake -D SOURCE=tests/fuzz -D BINARY=<dir> -D COMPILER=clang++ -D GENERATOR=Ninja -P build_fuzz_targets.cmake
# Configures and builds the fuzz targets: the setup of the fuzz tests (fuzz_tests.cmake).
foreach(variable IN ITEMS SOURCE BINARY COMPILER GENERATOR)
  if(NOT DEFINED ${variable})
    message(FATAL_ERROR "build_fuzz_targets.cmake needs -D ${variable}=...")
  endif()
endforeach()
file(MAKE_DIRECTORY ${BINARY}/artifacts)
execute_process(
  COMMAND ${CMAKE_COMMAND} -S ${SOURCE} -B ${BINARY} -G ${GENERATOR} -DCMAKE_CXX_COMPILER=${COMPILER}
  COMMAND_ERROR_IS_FATAL ANY)
execute_process(COMMAND ${CMAKE_COMMAND} --build ${BINARY} COMMAND_ERROR_IS_FATAL ANY)
