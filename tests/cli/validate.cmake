# validate.cmake: included by the *_schema.cmake scripts. validate(SCHEMA
# WHAT FILE...) runs test_schema (${VALIDATE}) on the files and fails the
# test, naming WHAT, when one does not validate.
function(validate schema what)
  execute_process(COMMAND ${VALIDATE} ${schema} ${ARGN}
    OUTPUT_VARIABLE out ERROR_VARIABLE verr RESULT_VARIABLE vstatus)
  message("${verr}${out}")
  if(NOT vstatus EQUAL 0)
    message(FATAL_ERROR "${what} does not validate against ${schema}")
  endif()
endfunction()
