cmake_minimum_required(VERSION 3.20)
# Runs kvplan --engine vllm|trtllm --json and kvplan compare --json on
# representative models, and validates each document against
# docs/engine.schema.json or docs/compare.schema.json (a compare's
# nested vllm and trtllm plans against the engine schema too).
#   cmake -DKVPLAN=... -DVALIDATE=test_schema -DDOCS=docs -DOUT=dir -P ...
include(${CMAKE_CURRENT_LIST_DIR}/validate.cmake)
file(MAKE_DIRECTORY ${OUT})
set(engine_plans
  "--engine,vllm,--json"
  "--engine,vllm,--model-path,deepseek-v3.2,--tp-size,8,--gpu,B200,--json"
  "--engine,vllm,--model-path,gpt-oss-20b,--kv-cache-memory,16GiB,--json"
  "--engine,vllm,--model-path,qwen3-next-80b-a3b-thinking,--tp-size,4,--gpu,H200,--json"
  "--engine,vllm,--model-path,gemma-3-4b-it,--gpu,H100-80GB,--max-model-len,32768,--activation-memory,3GiB,--non-torch-memory,1GiB,--cuda-graph-memory,1GiB,--json"
  "--engine,vllm,--model-path,deepseek-v4-flash,--tp-size,2,--gpu,H200,--fp4-indexer-cache,--json"
  "--engine,trtllm,--json"
  "--engine,trtllm,--model-path,deepseek-v2-lite,--max-tokens,100000,--json"
  "--engine,trtllm,--model-path,deepseek-v4-flash,--tp-size,8,--gpu,H200,--json")
set(compare_plans
  "compare,--json"
  "compare,--model-path,gpt-oss-120b,--gpu,H100-80GB,--json"
  "compare,--model-path,deepseek-v4-flash,--gpu,B200,--tp-size,4,--json"
  "compare,--model-path,qwen3-next-80b-a3b-thinking,--gpu,H100-80GB,--tp-size,4,--json")
function(run_all list prefix out_files)
  set(files)
  set(i 0)
  foreach(plan IN LISTS ${list})
    string(REPLACE "," ";" args "${plan}")
    execute_process(COMMAND ${KVPLAN} ${args}
      OUTPUT_FILE ${OUT}/${prefix}${i}.json
      ERROR_VARIABLE err RESULT_VARIABLE status)
    if(NOT status EQUAL 0)
      message(FATAL_ERROR "kvplan ${args} exited ${status}: ${err}")
    endif()
    list(APPEND files ${OUT}/${prefix}${i}.json)
    math(EXPR i "${i} + 1")
  endforeach()
  set(${out_files} ${files} PARENT_SCOPE)
endfunction()
run_all(engine_plans engine engine_files)
run_all(compare_plans compare compare_files)
# a compare's nested plans, each in a file of its own
set(nested)
foreach(f IN LISTS compare_files)
  file(READ ${f} doc)
  foreach(key vllm trtllm)
    string(JSON sub ERROR_VARIABLE missing GET "${doc}" ${key})
    if(NOT missing)
      string(JSON tp GET "${doc}" requested)
      string(JSON sub SET "${sub}" requested "${tp}")
      file(WRITE ${f}.${key}.json "${sub}")
      list(APPEND nested ${f}.${key}.json)
    endif()
  endforeach()
endforeach()
foreach(pair "engine;${engine_files};${nested}" "compare;${compare_files}")
  list(POP_FRONT pair schema)
  validate(${DOCS}/${schema}.schema.json "a document" ${pair})
endforeach()
