# Test helpers shared by every tool's tests/<tool>/CMakeLists.txt. Labels: unit, cli, schema, gpu, browser, fuzz.
set(VTOOLS_TESTS_DIR ${CMAKE_SOURCE_DIR}/tests)
set(VTOOLS_FUZZ_SECONDS 30 CACHE STRING "How long each fuzz target runs under ctest -L fuzz")

# vtools_unit_test(NAME n SOURCES a.cpp... LIBS lib...): a doctest executable, label unit.
function(vtools_unit_test)
  cmake_parse_arguments(T "" "NAME" "SOURCES;LIBS;LABELS" ${ARGN})
  add_executable(${T_NAME} ${T_SOURCES})
  target_link_libraries(${T_NAME} PRIVATE vtools_doctest_main vtools_doctest ${T_LIBS})
  target_compile_definitions(${T_NAME} PRIVATE VTOOLS_TEST_DATA="${VTOOLS_TESTS_DIR}/data")
  add_test(NAME ${T_NAME} COMMAND ${T_NAME})
  set_tests_properties(${T_NAME} PROPERTIES LABELS "unit;${T_LABELS}" SKIP_RETURN_CODE 77)
endfunction()

# vtools_cli_test(NAME n EXIT code [STDERR prefix] [STDOUT regex] [LABEL l] COMMAND cmd args...):
# runs the real binary through tests/cli_check.py, which asserts the exit code, the first stderr line's prefix and
# (optionally) a regex over stdout.
function(vtools_cli_test)
  cmake_parse_arguments(T "" "NAME;EXIT;STDERR;STDOUT;LABEL;STDIN" "COMMAND" ${ARGN})
  if(NOT T_LABEL)
    set(T_LABEL cli)
  endif()
  set(args --exit ${T_EXIT})
  if(DEFINED T_STDERR)
    list(APPEND args --stderr-prefix "${T_STDERR}")
  endif()
  if(DEFINED T_STDOUT)
    list(APPEND args --stdout-regex "${T_STDOUT}")
  endif()
  if(DEFINED T_STDIN)
    list(APPEND args --stdin "${T_STDIN}")
  endif()
  add_test(NAME ${T_NAME} COMMAND ${VTOOLS_PYTHON} ${VTOOLS_TESTS_DIR}/cli_check.py ${args} -- ${T_COMMAND}
           WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  set_tests_properties(${T_NAME} PROPERTIES LABELS "${T_LABEL}" SKIP_RETURN_CODE 77)
endfunction()

# vtools_schema_test(NAME n SCHEMA file DOC file [INVALID]): validates DOC with `python3 -m jsonschema`.
function(vtools_schema_test)
  cmake_parse_arguments(T "INVALID" "NAME;SCHEMA;DOC" "" ${ARGN})
  set(expect valid)
  if(T_INVALID)
    set(expect invalid)
  endif()
  add_test(NAME ${T_NAME} COMMAND ${VTOOLS_PYTHON} ${VTOOLS_TESTS_DIR}/schema_check.py --expect ${expect}
           ${T_SCHEMA} ${T_DOC})
  set_tests_properties(${T_NAME} PROPERTIES LABELS schema SKIP_RETURN_CODE 77)
endfunction()

# vtools_output_schema_test(NAME n SCHEMA file COMMAND cmd...): runs cmd, validates its stdout against SCHEMA.
function(vtools_output_schema_test)
  cmake_parse_arguments(T "" "NAME;SCHEMA;LABEL" "COMMAND" ${ARGN})
  if(NOT T_LABEL)
    set(T_LABEL "schema;cli")
  endif()
  add_test(NAME ${T_NAME} COMMAND ${VTOOLS_PYTHON} ${VTOOLS_TESTS_DIR}/schema_check.py --expect valid
           --run ${T_SCHEMA} -- ${T_COMMAND} WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  set_tests_properties(${T_NAME} PROPERTIES LABELS "${T_LABEL}" SKIP_RETURN_CODE 77)
endfunction()

# vtools_gpu_test(NAME n COMMAND cmd...): label gpu; the command exits 77 where no GPU is present (reported skipped).
function(vtools_gpu_test)
  cmake_parse_arguments(T "" "NAME;TIMEOUT" "COMMAND" ${ARGN})
  add_test(NAME ${T_NAME} COMMAND ${T_COMMAND} WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 300)
  endif()
  set_tests_properties(${T_NAME} PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT ${T_TIMEOUT})
endfunction()

if(VTOOLS_FUZZ)
  add_custom_target(vtools_fuzz_all)  # every fuzz target: `cmake --build --preset fuzz --target vtools_fuzz_all`
endif()

# vtools_fuzz_target(NAME n SOURCES a.cpp LIBS lib... CORPUS dir [SEEDS kind] [DICT file]): a libFuzzer target (only
# with VTOOLS_FUZZ=ON, which needs clang); ctest -L fuzz runs it for VTOOLS_FUZZ_SECONDS from the seed corpus, plus
# the hostile seeds tests/fuzz_seeds.py derives from it for SEEDS (long names, numbers at type limits, deep nesting),
# with DICT (tests/data/fuzz/*.dict) as libFuzzer's dictionary.
function(vtools_fuzz_target)
  cmake_parse_arguments(T "" "NAME;CORPUS;SEEDS;DICT" "SOURCES;LIBS" ${ARGN})
  if(NOT VTOOLS_FUZZ)
    return()
  endif()
  add_executable(${T_NAME} ${T_SOURCES})
  target_compile_options(${T_NAME} PRIVATE -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined)
  target_link_options(${T_NAME} PRIVATE -fsanitize=fuzzer,address,undefined)
  target_link_libraries(${T_NAME} PRIVATE ${T_LIBS})
  add_dependencies(vtools_fuzz_all ${T_NAME})
  set(work ${CMAKE_CURRENT_BINARY_DIR}/${T_NAME}-corpus)
  set(seed_cmd "")
  if(T_SEEDS)
    set(seed_cmd "&& ${VTOOLS_PYTHON} ${VTOOLS_TESTS_DIR}/fuzz_seeds.py ${T_SEEDS} ${T_CORPUS} ${work}")
  endif()
  set(dict_flag "")
  if(T_DICT)
    set(dict_flag "-dict=${VTOOLS_TESTS_DIR}/data/fuzz/${T_DICT}")
  endif()
  add_test(NAME ${T_NAME}
           COMMAND sh -c "mkdir -p ${work} && cp -r ${T_CORPUS}/. ${work}/ ${seed_cmd} && exec $<TARGET_FILE:${T_NAME}> -max_total_time=${VTOOLS_FUZZ_SECONDS} -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 ${dict_flag} -artifact_prefix=${CMAKE_CURRENT_BINARY_DIR}/${T_NAME}- ${work}")
  set_tests_properties(${T_NAME} PROPERTIES LABELS fuzz TIMEOUT 600)
endfunction()
