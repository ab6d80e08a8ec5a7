# Writes the man page and the bash and zsh completions with the built binary's hidden `__generate` command.
# Usage: cmake -DSHARDSCOPE=<the shardscope binary> -DOUT_DIR=<directory> -P generate_cli_docs.cmake
function(generate file)
  # Written aside and renamed, so a failed run never leaves a truncated file that looks up to date.
  execute_process(COMMAND ${SHARDSCOPE} ${ARGN}
                  OUTPUT_FILE ${OUT_DIR}/${file}.tmp
                  ERROR_VARIABLE errors
                  RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    file(REMOVE ${OUT_DIR}/${file}.tmp)
    message(FATAL_ERROR "${SHARDSCOPE} ${ARGN} failed (${status}): ${errors}")
  endif()
  file(RENAME ${OUT_DIR}/${file}.tmp ${OUT_DIR}/${file})
endfunction()

file(MAKE_DIRECTORY ${OUT_DIR})
generate(shardscope.1 __generate man)
generate(shardscope.bash __generate bash)
generate(_shardscope __generate zsh)
