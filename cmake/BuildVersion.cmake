# Script mode (cmake -P): writes OUT, a header with the project's version and the commit
# the source tree is at: 12 hex digits, and "-dirty-" with a hash of the changes when the
# tree differs from it ("unknown" outside a git checkout of SOURCE_DIR itself). OUT is
# rewritten only when its text changes, so an unchanged tree rebuilds nothing.
# Inputs: -DSOURCE_DIR=... -DVERSION=... -DOUT=...
set(commit "unknown")
execute_process(COMMAND git -C "${SOURCE_DIR}" rev-parse --show-toplevel
  OUTPUT_VARIABLE top OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE failed)
if(NOT failed)
  file(REAL_PATH "${SOURCE_DIR}" source)
  file(REAL_PATH "${top}" top)
endif()
# A tree inside another repository (an unpacked copy) is not that repository's commit.
if(NOT failed AND top STREQUAL source)
  execute_process(COMMAND git -C "${SOURCE_DIR}" rev-parse --short=12 HEAD
    OUTPUT_VARIABLE head OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE failed)
  execute_process(COMMAND git -C "${SOURCE_DIR}" diff HEAD --no-ext-diff --binary
    OUTPUT_VARIABLE changes ERROR_QUIET RESULT_VARIABLE diff_failed)
  if(NOT failed AND NOT head STREQUAL "")
    set(commit "${head}")
    # Two trees edited differently at one commit are two builds.
    if(diff_failed OR NOT changes STREQUAL "")
      string(SHA1 digest "${changes}")
      string(SUBSTRING "${digest}" 0 8 digest)
      set(commit "${commit}-dirty-${digest}")
    endif()
  endif()
endif()
set(text "// Written by cmake/BuildVersion.cmake at every build.\n#define FLYSIM_VERSION \"${VERSION}\"\n#define FLYSIM_COMMIT \"${commit}\"\n")
set(old "")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT old STREQUAL text)
  file(WRITE "${OUT}" "${text}")
endif()
