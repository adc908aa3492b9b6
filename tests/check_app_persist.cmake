# The native app and its config directory, under Xvfb, in a fresh $XDG_CONFIG_HOME:
# a first run saves its workspace there; a second run over a corrupt one still starts,
# says why on stderr, and sets the unreadable copy aside.
#   cmake -DAPP=... -DXVFB_RUN=... -DDIR=... -P check_app_persist.cmake
file(REMOVE_RECURSE ${DIR})
set(ENV{XDG_CONFIG_HOME} ${DIR})
set(run ${XVFB_RUN} -a -s "-screen 0 1280x720x24" ${APP} --frames 5)

execute_process(COMMAND ${run} --example gemv RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "first run failed (${rc}): ${err}")
endif()
file(READ ${DIR}/waferlab/workspace.json ws)
if(NOT ws MATCHES "\"file\": \"gemv.wk\"" OR NOT EXISTS ${DIR}/waferlab/imgui.ini)
  message(FATAL_ERROR "the workspace was not saved in ${DIR}/waferlab: ${ws}")
endif()

file(WRITE ${DIR}/waferlab/workspace.json "{\"format\": \"waferlab-workspace\", garbage")
execute_process(COMMAND ${run} RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "a corrupt saved state stopped the app (${rc}): ${err}")
endif()
if(NOT err MATCHES "saved workspace could not be read" OR NOT EXISTS ${DIR}/waferlab/workspace.bad.json)
  message(FATAL_ERROR "the corrupt saved state was not reported and set aside: ${err}")
endif()
file(REMOVE_RECURSE ${DIR})
