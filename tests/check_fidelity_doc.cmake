# docs/fidelity.md's table of published cycle counts is `waferlab-cli bench published --markdown`,
# as this build measures it: a change to the engine's costs, a kernel of examples/published or a
# published row that leaves the page behind fails here (rerun the verb and paste its table).
# Run from the repository root:
#   cmake -DCLI=build/native/cli/waferlab-cli -DDOC=docs/fidelity.md -P tests/check_fidelity_doc.cmake
execute_process(COMMAND ${CLI} bench published --markdown RESULT_VARIABLE rc OUTPUT_VARIABLE table ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "waferlab-cli bench published --markdown failed (${rc}): ${err}")
endif()
file(READ ${DOC} doc)
string(FIND "${doc}" "${table}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "${DOC} does not hold the table `waferlab-cli bench published --markdown` prints now:\n${table}")
endif()
message(STATUS "fidelity table: ${DOC} holds what bench published measures")
