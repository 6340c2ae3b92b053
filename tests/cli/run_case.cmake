cmake_minimum_required(VERSION 3.20)
# Runs one CLI case and compares exact stdout, stderr and exit status.
#   cmake -DKVPLAN=path/to/kvplan -DCASE=cases/NAME.cmd -P run_case.cmake
# NAME.cmd holds the arguments, one per line (empty: no arguments).
# NAME.stdin (optional) is fed to standard input.
# NAME.stdout, NAME.stderr (absent: must be empty) and NAME.status (absent:
# 0) hold what is expected. @DATA@ in the arguments is the tests' data
# folder (-DDATA=...), and that folder reads as @DATA@ in the output, so
# the expectations do not depend on where the project lives.
get_filename_component(dir ${CASE} DIRECTORY)
get_filename_component(name ${CASE} NAME_WE)
set(base ${dir}/${name})

file(STRINGS ${CASE} args)
if(DEFINED DATA)
  string(REPLACE "@DATA@" "${DATA}" args "${args}")
endif()
set(input_opt)
if(EXISTS ${base}.stdin)
  set(input_opt INPUT_FILE ${base}.stdin)
else()
  set(input_opt INPUT_FILE /dev/null)
endif()
execute_process(COMMAND ${KVPLAN} ${args} ${input_opt}
  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE status)

if(DEFINED DATA)
  string(REPLACE "${DATA}" "@DATA@" out "${out}")
  string(REPLACE "${DATA}" "@DATA@" err "${err}")
endif()
set(want_out "")
set(want_err "")
set(want_status 0)
if(EXISTS ${base}.stdout)
  file(READ ${base}.stdout want_out)
endif()
if(EXISTS ${base}.stderr)
  file(READ ${base}.stderr want_err)
endif()
if(EXISTS ${base}.status)
  file(STRINGS ${base}.status want_status LIMIT_COUNT 1)
endif()

set(failed FALSE)
if(NOT out STREQUAL want_out)
  message("stdout differs.\n--- expected\n${want_out}--- got\n${out}---")
  set(failed TRUE)
endif()
if(NOT err STREQUAL want_err)
  message("stderr differs.\n--- expected\n${want_err}--- got\n${err}---")
  set(failed TRUE)
endif()
if(NOT status STREQUAL want_status)
  message("exit status: expected ${want_status}, got ${status}")
  set(failed TRUE)
endif()
if(failed)
  message(FATAL_ERROR "case ${name} failed")
endif()
