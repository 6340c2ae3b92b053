cmake_minimum_required(VERSION 3.20)
# Runs kvplan --json on representative plans and validates every document
# against docs/plan.schema.json.
#   cmake -DKVPLAN=... -DVALIDATE=test_schema -DSCHEMA=... -DOUT=dir -P ...
include(${CMAKE_CURRENT_LIST_DIR}/validate.cmake)
file(MAKE_DIRECTORY ${OUT})
set(plans
  "--json"
  "--model-path,llama-3.1-8b-instruct,--available-bytes,107374182400,--page-size,64,--json"
  "--model-path,deepseek-v3,--speculative-algorithm,EAGLE,--tp-size,8,--gpu,H200,--json,--explain"
  "--model-path,deepseek-v3.2,--gpu,B200,--tp-size,8,--json"
  "--model-path,gpt-oss-120b,--gpu,H100-80GB,--json"
  "--model-path,gpt-oss-20b,--disable-radix-cache,--max-running-requests,64,--json"
  "--model-path,deepseek-v4-flash,--gpu,B200,--tp-size,4,--json"
  "--model-path,qwen3-next-80b-a3b-thinking,--tp-size,4,--gpu,H200,--json"
  "--model-path,llama-3.1-70b-instruct,--tp-size,4,--pp-size,2,--json"
  "--model-path,mimo-v2-flash,--tp-size,8,--gpu,H200,--json"
  "--model-path,gpt-oss-120b,--host,0.0.0.0,--cpu-offload-gb,4,--json,--explain"
  "--gpu,MI300X,--kv-cache-dtype,fp8_e4m3,--json"
  "--model-path,qwen3-next-80b-a3b-thinking,--tp,4,--gpu,H200,--mamba-ssm-dtype,bfloat16,--moe-a2a-backend,deepep,--json")
set(files)
set(i 0)
foreach(plan IN LISTS plans)
  string(REPLACE "," ";" args "${plan}")
  execute_process(COMMAND ${KVPLAN} ${args} OUTPUT_FILE ${OUT}/plan${i}.json
    ERROR_VARIABLE err RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "kvplan ${args} exited ${status}: ${err}")
  endif()
  list(APPEND files ${OUT}/plan${i}.json)
  math(EXPR i "${i} + 1")
endforeach()
validate(${SCHEMA} "a --json plan" ${files})
