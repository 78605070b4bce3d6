# Script mode (cmake -P): writes OUT, a header with the project's version and the commit
# the source tree is at ("unknown" outside a git checkout). OUT is rewritten only when
# its text changes, so an unchanged commit rebuilds nothing.
# Inputs: -DSOURCE_DIR=... -DVERSION=... -DOUT=...
execute_process(COMMAND git -C "${SOURCE_DIR}" describe --always --dirty --abbrev=12
  OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE failed)
if(failed OR commit STREQUAL "")
  set(commit "unknown")
endif()
set(text "// Written by cmake/BuildVersion.cmake at every build.\n#define FLYSIM_VERSION \"${VERSION}\"\n#define FLYSIM_COMMIT \"${commit}\"\n")
set(old "")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT old STREQUAL text)
  file(WRITE "${OUT}" "${text}")
endif()
