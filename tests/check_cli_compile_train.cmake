# waferlab-cli compile-model --train plans what `train --on-mesh` runs: Cerebras-GPT-111M, whose
# vocabulary fits no row of PEs resident, plans streamed (and says so) unless the command line
# chose wafer.execution. Run from the repository root:
#   cmake -DCLI=build/native/cli/waferlab-cli -DDIR=/tmp/plans -P tests/check_cli_compile_train.cmake
set(args compile-model --config models/cerebras-gpt-111m.yaml --set model.block_size=128 --train --cache-dir ${DIR})
execute_process(COMMAND ${CLI} ${args} --json RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "waferlab-cli ${args} --json failed (${rc}): ${err}")
endif()
string(JSON execution GET "${out}" execution)
if(NOT execution STREQUAL "streaming")
  message(FATAL_ERROR "compile-model --train planned wafer.execution ${execution}, where train --on-mesh streams")
endif()
execute_process(COMMAND ${CLI} ${args} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "weights streamed \\(wafer.execution: streaming\\)")
  message(FATAL_ERROR "compile-model --train did not say it streams (${rc}): ${out}${err}")
endif()
execute_process(COMMAND ${CLI} ${args} --set wafer.execution=resident RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 0 OR NOT err MATCHES "fits with --set wafer.execution=streaming")
  message(FATAL_ERROR "compile-model --train --set wafer.execution=resident should stand, and fail naming the remedy (${rc}): ${err}")
endif()
message(STATUS "compile-model --train streams Cerebras-GPT-111M as train --on-mesh does; --set wafer.execution=resident stands")
