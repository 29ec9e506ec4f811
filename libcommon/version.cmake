# Writes version.cpp from version.cpp.in with the tree's `git describe`, run at every build (not only at configure),
# so a binary built after a commit names that commit. VTOOLS_GIT_DESCRIBE in the environment wins: a copy of the
# tree whose .git is stale or absent (a release tarball, a lent GPU machine's copy) can still say what it is.
# configure_file leaves DST untouched when the text is the same, so an unchanged version rebuilds nothing.
# Inputs: -DSRC=version.cpp.in -DDST=version.cpp -DTREE=<source dir> -DPROJECT_VERSION=x.y.z
if(DEFINED ENV{VTOOLS_GIT_DESCRIBE})
  set(VTOOLS_GIT_DESCRIBE "$ENV{VTOOLS_GIT_DESCRIBE}")
else()
  execute_process(COMMAND git describe --always --dirty --tags WORKING_DIRECTORY ${TREE}
                  OUTPUT_VARIABLE VTOOLS_GIT_DESCRIBE OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
endif()
configure_file(${SRC} ${DST} @ONLY)
