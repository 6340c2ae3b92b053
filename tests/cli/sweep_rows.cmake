cmake_minimum_required(VERSION 3.20)
# Every row of a sweep is the single plan of its flags: runs
#   kvplan sweep SWEEP... --json
# then, for each row, kvplan ROW_FLAGS... --json, and compares its document
# with the row's "plan", member for member; rows that do not plan must not
# plan alone either, with the same message.
#   cmake -DKVPLAN=kvplan -DSWEEP="--gpu;H100-80GB,H200" -P sweep_rows.cmake
execute_process(COMMAND ${KVPLAN} sweep ${SWEEP} --json
  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE st)
if(NOT st EQUAL 0 AND NOT st EQUAL 1)
  message(FATAL_ERROR "kvplan sweep ${SWEEP}: exit ${st}\n${out}${err}")
endif()
string(JSON rows LENGTH "${out}")
if(rows EQUAL 0)
  message(FATAL_ERROR "kvplan sweep ${SWEEP}: no rows")
endif()
math(EXPR last "${rows} - 1")
set(planned 0)
foreach(i RANGE ${last})
  string(JSON nflags LENGTH "${out}" ${i} flags)
  set(flags)
  if(nflags GREATER 0)
    math(EXPR lastflag "${nflags} - 1")
    foreach(j RANGE ${lastflag})
      string(JSON f GET "${out}" ${i} flags ${j})
      list(APPEND flags "${f}")
    endforeach()
  endif()
  string(JSON plans GET "${out}" ${i} plans)
  execute_process(COMMAND ${KVPLAN} ${flags} --json
    OUTPUT_VARIABLE single ERROR_VARIABLE serr RESULT_VARIABLE sst)
  if(plans)
    if(NOT sst EQUAL 0)
      message(FATAL_ERROR "row ${i} plans in the sweep, not alone (${flags}): ${single}${serr}")
    endif()
    string(JSON row_plan GET "${out}" ${i} plan)
    string(JSON single_plan GET "{\"plan\": ${single}}" plan)
    if(NOT row_plan STREQUAL single_plan)
      message(FATAL_ERROR "row ${i} (${flags}) differs from its single plan:\n"
              "--- row\n${row_plan}\n--- single\n${single_plan}")
    endif()
    math(EXPR planned "${planned} + 1")
  else()
    string(JSON row_msg GET "${out}" ${i} error message)
    string(JSON single_msg GET "${single}" message)
    if(sst EQUAL 0 OR NOT row_msg STREQUAL single_msg)
      message(FATAL_ERROR "row ${i} (${flags}) does not plan in the sweep "
              "(${row_msg}); alone: exit ${sst}, ${single}")
    endif()
  endif()
endforeach()
message("kvplan sweep ${SWEEP}: ${rows} rows, ${planned} planned, each its single plan")
