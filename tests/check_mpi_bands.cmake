# waferlab-cli under mpirun (docs/scale.md). run: the mesh split by bands of rows over 2 and 4 ranks,
# in cycle and in fast mode, ends exactly as in one process (the --json report, output and cycles; only "ranks" differs), a
# fault on another rank than 0 names its PE, place and rank, more ranks than rows are refused
# before anything runs, and a rank that dies ends the job instead of hanging it. train: SwarmX's
# 2 wafers one a rank give one process's steps and checkpoint, bit for bit. Run from the
# repository root:
#   cmake -DCLI=build/native/cli/waferlab-cli -DMPIRUN=/usr/bin/mpirun -DDIR=/tmp/mpi -P tests/check_mpi_bands.cmake
# The ranks share this machine's cores (--oversubscribe), yielding while they wait.
set(ENV{OMPI_ALLOW_RUN_AS_ROOT} 1)            # CI runs as root; Open MPI refuses root without both
set(ENV{OMPI_ALLOW_RUN_AS_ROOT_CONFIRM} 1)
set(mpi ${MPIRUN} --oversubscribe --mca mpi_yield_when_idle 1)

function(run_json var np kernel)
  if(np EQUAL 1)
    set(cmd ${CLI} run ${kernel} --json ${ARGN})
  else()
    set(cmd ${mpi} -np ${np} ${CLI} run ${kernel} --json ${ARGN})
  endif()
  execute_process(COMMAND ${cmd} OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 300 RESULT_VARIABLE rc)
  if(rc MATCHES "timeout")
    message(FATAL_ERROR "${cmd}: did not end within 300 s")
  endif()
  string(JSON out ERROR_VARIABLE bad REMOVE "${out}" ranks)
  if(bad)
    message(FATAL_ERROR "${cmd} (${rc}): no --json report: ${out} ${err}")
  endif()
  string(JSON rank ERROR_VARIABLE none GET "${out}" fault_rank)
  if(NOT none)
    string(JSON out REMOVE "${out}" fault_rank)
  endif()
  set(${var} "${out}" PARENT_SCOPE)
  set(${var}_rank "${rank}" PARENT_SCOPE)
endfunction()

foreach(mode cycle fast)
  foreach(kernel examples/summa.wk examples/cannon.wk examples/stencil.wk examples/published/meshgemv.wk
                 tests/kernels/adversarial/oob_lower_band.wk tests/kernels/adversarial/deadlock_lower_band.wk)
    run_json(one 1 ${kernel} --mode ${mode})
    foreach(np 2 4)
      run_json(split ${np} ${kernel} --mode ${mode})
      if(NOT one STREQUAL split)
        message(FATAL_ERROR "${kernel}, ${mode} mode: ${np} ranks ended otherwise than one process:\n${split}\none process:\n${one}")
      endif()
    endforeach()
  endforeach()
endforeach()

# A fault on the last rank: its PE, place and rank.
run_json(oob 4 tests/kernels/adversarial/oob_lower_band.wk)
string(JSON error GET "${oob}" error)
if(NOT error MATCHES "out_of_bounds at PE \\(0,3\\) .*oob_lower_band.wk:19:9" OR NOT oob_rank EQUAL 3)
  message(FATAL_ERROR "oob_lower_band.wk on 4 ranks: '${error}', on rank '${oob_rank}' (want PE (0,3) at :19:9, on rank 3)")
endif()

# More ranks than rows: refused before anything runs, by every rank.
execute_process(COMMAND ${mpi} -np 2 ${CLI} run examples/hello.wk OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 120 RESULT_VARIABLE rc)
if(rc EQUAL 0 OR NOT err MATCHES "2 MPI ranks for a grid of 1 row" OR out MATCHES "cycles")
  message(FATAL_ERROR "hello.wk (1 row) on 2 ranks: exit ${rc}, '${err}', '${out}'")
endif()

# A rank killed part-way: mpirun ends the others and the job fails; nothing waits for ever.
execute_process(COMMAND ${mpi} -np 2 sh -c "if [ \"$OMPI_COMM_WORLD_RANK\" = 1 ]; then (sleep 2; kill -9 $$) & fi; exec ${CLI} run tests/kernels/adversarial/loop_across_bands.wk --budget 1000000000000"
                OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 120 RESULT_VARIABLE rc)
if(rc MATCHES "timeout" OR rc EQUAL 0 OR NOT err MATCHES "rank 1 .* exited on signal 9")
  message(FATAL_ERROR "a rank killed part-way: mpirun ended with '${rc}' (want it to report rank 1 killed, within 120 s): ${err}")
endif()

# train --on-mesh --wafers 2: one process, then a wafer a rank. Every step's and evaluation's line
# (but its wall times) and the checkpoint's bytes are the same.
file(MAKE_DIRECTORY ${DIR})
function(train var np)
  set(cmd ${CLI} train --config models/gpt-nano.yaml --on-mesh --wafers 2 --steps 2 --json --out ${DIR}/wafers_${np}.ckpt)
  if(np GREATER 1)
    set(cmd ${mpi} -np ${np} ${cmd})
  endif()
  execute_process(COMMAND ${cmd} OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 300 RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${cmd} failed (${rc}): ${err}")
  endif()
  string(REPLACE "\n" ";" lines "${out}")
  set(kept "")
  foreach(line ${lines})
    if(line MATCHES "\"summary\"")
      continue()
    endif()
    foreach(key tokens_per_s tokens_per_second step_s elapsed_s)   # host times (and the old name json_text keeps beside one)
      string(JSON line ERROR_VARIABLE none REMOVE "${line}" ${key})
    endforeach()
    list(APPEND kept "${line}")
  endforeach()
  set(${var} "${kept}" PARENT_SCOPE)
endfunction()
train(one 1)
train(two 2)
list(LENGTH one n)
if(n LESS 4 OR NOT one STREQUAL two)
  message(FATAL_ERROR "train --wafers 2 on 2 ranks:\n${two}\none process:\n${one}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${DIR}/wafers_1.ckpt ${DIR}/wafers_2.ckpt RESULT_VARIABLE differ)
if(differ)
  message(FATAL_ERROR "train --wafers 2: the checkpoint from 2 ranks differs from one process's")
endif()
execute_process(COMMAND ${mpi} -np 2 ${CLI} train --config models/gpt-nano.yaml --on-mesh --steps 1 OUTPUT_VARIABLE out ERROR_VARIABLE err
                TIMEOUT 120 RESULT_VARIABLE rc)
if(rc EQUAL 0 OR NOT err MATCHES "give --on-mesh --wafers 2 for 2 ranks")
  message(FATAL_ERROR "train on 2 ranks without --wafers 2: exit ${rc}, '${err}'")
endif()

# bench scale: one process and 2 ranks in one run (it fails itself if they end differently), in
# each mode: a cycle mode's exchange a cycle, fast mode's a window.
foreach(mode cycle fast)
  execute_process(COMMAND ${mpi} -np 2 ${CLI} bench scale --mode ${mode} --const K=8 --const NG=32 --json OUTPUT_VARIABLE out ERROR_VARIABLE err
                  TIMEOUT 120 RESULT_VARIABLE rc)
  string(JSON ranks ERROR_VARIABLE bad GET "${out}" ranks)
  string(JSON rss ERROR_VARIABLE bad2 LENGTH "${out}" peak_rss_mb_per_rank)
  string(JSON exchanges ERROR_VARIABLE bad3 GET "${out}" exchanges)
  string(JSON cycles ERROR_VARIABLE bad4 GET "${out}" cycles)
  string(JSON waits ERROR_VARIABLE bad5 LENGTH "${out}" wait_s_per_rank)
  if(mode STREQUAL cycle)
    math(EXPR least "${cycles} / 2")   # one a cycle, but for the idle skips
  else()
    set(least 1)
  endif()
  if(NOT rc EQUAL 0 OR bad OR bad2 OR bad3 OR bad4 OR NOT ranks EQUAL 2 OR NOT rss EQUAL 2 OR bad5 OR NOT waits EQUAL 2 OR exchanges LESS least OR NOT out MATCHES "\"mode\":\"${mode}\"")
    message(FATAL_ERROR "bench scale --mode ${mode} on 2 ranks: exit ${rc}: ${out} ${err}")
  endif()
endforeach()
