cmake_minimum_required(VERSION 3.20)
# Runs one CLI case and compares exact stdout, stderr and exit status.
#   cmake -DKVPLAN=path/to/kvplan -DCASE=cases/NAME.cmd [-DUPDATE=1]
#         -P run_case.cmake
# NAME.cmd holds the arguments, one per line (empty: no arguments).
# NAME.stdin (optional) is fed to standard input.
# NAME.stdout, NAME.stderr (absent: must be empty) and NAME.status (absent:
# 0) hold what is expected. @DATA@ in the arguments is the tests' data
# folder (-DDATA=...), and that folder reads as @DATA@ in the output, so
# the expectations do not depend on where the project lives.
#
# A failure prints a unified diff (diff -u, where installed) of what was
# expected against what was printed. With -DUPDATE=1 the expectations are
# written from what the command printed instead (an empty stream or
# status 0 removes its file): run `ctest -L cli` with KVPLAN_UPDATE=1 in
# the environment, then review `git diff tests/cli`.
get_filename_component(dir ${CASE} DIRECTORY)
get_filename_component(name ${CASE} NAME_WE)
set(base ${dir}/${name})
if(NOT DEFINED UPDATE AND DEFINED ENV{KVPLAN_UPDATE})
  set(UPDATE $ENV{KVPLAN_UPDATE})
endif()

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

if(UPDATE)
  foreach(stream stdout stderr)
    if(stream STREQUAL "stdout")
      set(text "${out}")
    else()
      set(text "${err}")
    endif()
    if(text STREQUAL "")
      file(REMOVE ${base}.${stream})
    else()
      file(WRITE ${base}.${stream} "${text}")
    endif()
  endforeach()
  if(status STREQUAL "0")
    file(REMOVE ${base}.status)
  else()
    file(WRITE ${base}.status "${status}\n")
  endif()
  message("case ${name}: expectations written")
  return()
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

# What differs, as a diff when diff is installed, else both whole.
find_program(DIFF diff)
function(show_difference stream want got)
  if(DIFF)
    # a JSON document is one long line: diffed member by member
    string(REPLACE ", \"" ",\n\"" want "${want}")
    string(REPLACE ", \"" ",\n\"" got "${got}")
    string(RANDOM LENGTH 8 tag)
    set(tmp ${CMAKE_CURRENT_BINARY_DIR}/kvplan-case-${name}-${tag})
    file(WRITE ${tmp}.want "${want}")
    file(WRITE ${tmp}.got "${got}")
    execute_process(COMMAND ${DIFF} -u --label expected --label got
                            ${tmp}.want ${tmp}.got OUTPUT_VARIABLE d)
    file(REMOVE ${tmp}.want ${tmp}.got)
    message("${stream} differs:\n${d}")
  else()
    message("${stream} differs.\n--- expected\n${want}--- got\n${got}---")
  endif()
endfunction()

set(failed FALSE)
if(NOT out STREQUAL want_out)
  show_difference(stdout "${want_out}" "${out}")
  set(failed TRUE)
endif()
if(NOT err STREQUAL want_err)
  show_difference(stderr "${want_err}" "${err}")
  set(failed TRUE)
endif()
if(NOT status STREQUAL want_status)
  message("exit status: expected ${want_status}, got ${status}")
  set(failed TRUE)
endif()
if(failed)
  message(FATAL_ERROR "case ${name} failed (KVPLAN_UPDATE=1 ctest -R ${name} "
          "writes what it printed as the expectation)")
endif()
