cmake_minimum_required(VERSION 3.20)
# kvplan pools over a golden file, then every answer compared with the
# reference's, call by call.
#   cmake -DKVPLAN=... -DCOMPARE=test_golden -DINPUT=... -DOUTPUT=... -P ...
execute_process(COMMAND ${KVPLAN} pools INPUT_FILE ${INPUT}
  OUTPUT_FILE ${OUTPUT} ERROR_VARIABLE err RESULT_VARIABLE status)
if(NOT status EQUAL 0 OR NOT err STREQUAL "")
  message(FATAL_ERROR "kvplan pools exited ${status}: ${err}")
endif()
execute_process(COMMAND ${COMPARE} --compare ${INPUT} ${OUTPUT}
  OUTPUT_VARIABLE out ERROR_VARIABLE cerr RESULT_VARIABLE cstatus)
message("${cerr}${out}")
if(NOT cstatus EQUAL 0)
  message(FATAL_ERROR "kvplan pools differs from the golden answers")
endif()
