// What `locus --version` says about the build it is: the git commit and the build date.
//
// `make release` writes both into locus_build_values.h in its scratch directory and puts that
// directory on the include path (the Makefile's BUILD_INFO): only build_info.c is compiled
// again when they change, not every Swift module, as a -D flag per commit would cause. A plain
// `swift build` has no such header and says "unknown".
#ifndef LOCUS_CLOCUSBUILDINFO_H
#define LOCUS_CLOCUSBUILDINFO_H

/// The commit the binary was built from: 7 or more hex digits, "-dirty" appended when tracked
/// files differed from it; "unknown" outside `make release`. A static string.
const char *locus_build_commit(void);

/// The build date, YYYY-MM-DD in UTC: SOURCE_DATE_EPOCH if the build set it, else the commit's
/// date, so the same commit builds the same binary; "unknown" outside `make release`.
const char *locus_build_date(void);

#endif
