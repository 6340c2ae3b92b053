cmake_minimum_required(VERSION 3.20)
# A question's answer against the forward plan: runs
#   kvplan QUESTION... --json
# reads the answer at key KEY (or the GPU's name for KEY=gpu), then runs
#   kvplan FLAGS... ANSWER_FLAG <answer> --json
# and checks that its document is the question's "plan", member for member.
#   cmake -DKVPLAN=kvplan -DQUESTION="fit;--concurrency;16" -DFLAGS=""
#         -DKEY=context_length -DANSWER_FLAG=--context-length -P forward.cmake
execute_process(COMMAND ${KVPLAN} ${QUESTION} --json
  OUTPUT_VARIABLE q ERROR_VARIABLE qerr RESULT_VARIABLE qst)
if(NOT qst EQUAL 0)
  message(FATAL_ERROR "kvplan ${QUESTION}: exit ${qst}\n${q}${qerr}")
endif()
string(JSON answer GET "${q}" ${KEY})
string(JSON question_plan GET "${q}" plan)
execute_process(COMMAND ${KVPLAN} ${FLAGS} ${ANSWER_FLAG} ${answer} --json
  OUTPUT_VARIABLE f ERROR_VARIABLE ferr RESULT_VARIABLE fst)
if(NOT fst EQUAL 0)
  message(FATAL_ERROR "kvplan ${FLAGS} ${ANSWER_FLAG} ${answer}: exit ${fst}\n${f}${ferr}")
endif()
# the same serializer on both sides
string(JSON forward_plan GET "{\"plan\": ${f}}" plan)
if(NOT question_plan STREQUAL forward_plan)
  message(FATAL_ERROR "the plan of kvplan ${QUESTION} differs from the "
          "forward plan at ${ANSWER_FLAG} ${answer}:\n--- question\n"
          "${question_plan}\n--- forward\n${forward_plan}")
endif()
message("kvplan ${QUESTION}: ${ANSWER_FLAG} ${answer}, the forward plan's")
