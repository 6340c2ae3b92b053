cmake_minimum_required(VERSION 3.20)
# Runs kvplan check --json on every manifest of tests/k8s (and one with
# --sglang-version main) and validates every document against
# docs/check.schema.json; a manifest that is not YAML answers an error
# document instead, and is left out.
#   cmake -DKVPLAN=... -DVALIDATE=test_schema -DSCHEMA=... -DK8S=dir -DOUT=dir -P ...
include(${CMAKE_CURRENT_LIST_DIR}/validate.cmake)
file(MAKE_DIRECTORY ${OUT})
file(GLOB manifests ${K8S}/*)
set(files)
set(i 0)
foreach(m IN LISTS manifests)
  foreach(extra "" "--sglang-version;main")
    execute_process(COMMAND ${KVPLAN} check ${m} ${extra} --json
      OUTPUT_FILE ${OUT}/check${i}.json ERROR_VARIABLE err RESULT_VARIABLE status)
    file(READ ${OUT}/check${i}.json doc)
    if(status GREATER 3 OR (NOT doc MATCHES "\"servers\"" AND NOT m MATCHES "bad-yaml"))
      message(FATAL_ERROR "kvplan check ${m} exited ${status}: ${err}")
    endif()
    if(doc MATCHES "\"servers\"")
      list(APPEND files ${OUT}/check${i}.json)
    endif()
    math(EXPR i "${i} + 1")
  endforeach()
endforeach()
validate(${SCHEMA} "a kvplan check --json document" ${files})
