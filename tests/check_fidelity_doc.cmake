# docs/fidelity.md's table of published cycle counts is `waferlab-cli bench published --markdown`,
# as this build measures it, and every row's optimised ratio is within the band (1.15x either way)
# unless the row states why not. One run of the verb serves both checks:
#   - a row outside the band without a reason ("NO, no reason given") fails: a change to the
#     engine's costs or a kernel broke fidelity, or a new row needs its reason in
#     cli/bench_published.cpp;
#   - a row with a reason back inside the band ("yes, but a reason is given") fails: drop the reason;
#   - a page that does not hold the table and the reasons under it fails (rerun the verb, paste it).
# Run from the repository root:
#   cmake -DCLI=build/native/cli/waferlab-cli -DDOC=docs/fidelity.md -P tests/check_fidelity_doc.cmake
execute_process(COMMAND ${CLI} bench published --markdown RESULT_VARIABLE rc OUTPUT_VARIABLE table ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "waferlab-cli bench published --markdown failed (${rc}): ${err}")
endif()
string(REGEX MATCHALL "\n\\| [0-9]+ \\| [^\n]*\\| NO, no reason given \\|[^\n]*" outside "\n${table}")
string(REGEX MATCHALL "\n\\| [0-9]+ \\| [^\n]*\\| yes, but a reason is given \\|[^\n]*" stale "\n${table}")
if(outside OR stale)
  string(REPLACE ";" "" rows "${outside}${stale}")
  message(FATAL_ERROR "bench published: a row's optimised ratio left the 1.15x band with no reason, or is back in it with one "
                      "(the rows' reason in cli/bench_published.cpp):${rows}")
endif()
string(REGEX MATCHALL "\n\\| [0-9]+ \\| " measured "\n${table}")
list(LENGTH measured n)
if(n LESS 1)
  message(FATAL_ERROR "bench published --markdown printed no rows:\n${table}")
endif()
file(READ ${DOC} doc)
string(FIND "${doc}" "${table}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "${DOC} does not hold the table `waferlab-cli bench published --markdown` prints now:\n${table}")
endif()
message(STATUS "fidelity table: ${n} rows, each within 1.15x or with its reason; ${DOC} holds what bench published measures")
