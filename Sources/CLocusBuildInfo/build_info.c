#include "CLocusBuildInfo.h"

// Written by `make release` (tools/build-info.sh); absent in other builds.
#if __has_include("locus_build_values.h")
#include "locus_build_values.h"
#endif

#ifndef LOCUS_GIT_COMMIT
#define LOCUS_GIT_COMMIT "unknown"
#endif
#ifndef LOCUS_BUILD_DATE
#define LOCUS_BUILD_DATE "unknown"
#endif

const char *locus_build_commit(void) { return LOCUS_GIT_COMMIT; }
const char *locus_build_date(void) { return LOCUS_BUILD_DATE; }
