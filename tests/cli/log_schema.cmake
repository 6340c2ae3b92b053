cmake_minimum_required(VERSION 3.20)
# Runs kvplan log --json on every log of tests/logs, and on one with no
# model, and validates every document against docs/log.schema.json.
#   cmake -DKVPLAN=... -DVALIDATE=test_schema -DSCHEMA=... -DLOGS=dir -DOUT=dir -P ...
include(${CMAKE_CURRENT_LIST_DIR}/validate.cmake)
file(MAKE_DIRECTORY ${OUT})
file(GLOB logs ${LOGS}/*.log)
set(files)
set(i 0)
foreach(log IN LISTS logs)
  foreach(extra "" "--gpu;H100-80GB")
    execute_process(COMMAND ${KVPLAN} log ${log} ${extra} --json
      OUTPUT_FILE ${OUT}/log${i}.json ERROR_VARIABLE err RESULT_VARIABLE status)
    if(NOT status EQUAL 0)
      message(FATAL_ERROR "kvplan log ${log} exited ${status}: ${err}")
    endif()
    list(APPEND files ${OUT}/log${i}.json)
    math(EXPR i "${i} + 1")
  endforeach()
endforeach()
validate(${SCHEMA} "a kvplan log --json document" ${files})
