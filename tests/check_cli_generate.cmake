# waferlab-cli generate --on-mesh, greedy, against the reference's generate in another process:
# the same text; the prompt's forward and the steps from the KV cache reported apart, their
# the steps' cycles on top of the prompt's. Run from the repository root:
#   cmake -DCLI=build/native/cli/waferlab-cli -DDIR=/tmp/plans -P tests/check_cli_generate.cmake
set(args generate --config models/gpt-nano.yaml --prompt "To be" --tokens 6 --temperature 0 --json)

function(generate var)
  execute_process(COMMAND ${CLI} ${args} ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "waferlab-cli ${args} ${ARGN} failed (${rc}): ${err}")
  endif()
  set(${var} "${out}" PARENT_SCOPE)
endfunction()

generate(ref)
generate(mesh --on-mesh --cache-dir ${DIR})
string(JSON ref_text GET "${ref}" text)
string(JSON mesh_text GET "${mesh}" text)
if(NOT ref_text STREQUAL mesh_text)
  message(FATAL_ERROR "the mesh generated '${mesh_text}', the reference '${ref_text}'")
endif()
# The keys, and (for one release) the names they had before the _s rule (engine/core/json_text.h).
foreach(key prompt_tokens prompt_s prompt_cycles wall_s_per_token tokens_per_s cycles_per_step wafer_tokens_per_s
            prompt_seconds seconds_per_token tokens_per_second wafer_tokens_per_second)
  string(JSON value ERROR_VARIABLE missing GET "${mesh}" ${key})
  if(missing OR value LESS_EQUAL 0)
    message(FATAL_ERROR "generate --on-mesh --json: ${key} is '${value}' ${missing}: ${mesh}")
  endif()
endforeach()
string(JSON cycles GET "${mesh}" cycles)
string(JSON prompt_cycles GET "${mesh}" prompt_cycles)
if(NOT cycles GREATER prompt_cycles)
  message(FATAL_ERROR "generate --on-mesh --json: the run's ${cycles} cycles are not more than the prompt's ${prompt_cycles}")
endif()
