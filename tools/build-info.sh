#!/bin/sh
# Writes DIR/locus_build_values.h, the commit and build date `locus --version` prints
# (Sources/CLocusBuildInfo), for `make release`. The date is SOURCE_DATE_EPOCH's if set, else the
# commit's: the same commit builds the same binary. The file is rewritten only when its content
# changes, so building the same commit again compiles and links nothing.
set -eu
dir=$1
cd "$(dirname "$0")/.."
commit=unknown
epoch=${SOURCE_DATE_EPOCH:-}
if head=$(git rev-parse --short=7 HEAD 2>/dev/null); then
    commit=$head
    git diff --quiet HEAD -- 2>/dev/null || commit="$commit-dirty"
    [ -n "$epoch" ] || epoch=$(git log -1 --format=%ct HEAD)
fi
date=unknown
[ -z "$epoch" ] || date=$(date -u -d "@$epoch" +%Y-%m-%d)
mkdir -p "$dir"
new="#define LOCUS_GIT_COMMIT \"$commit\"
#define LOCUS_BUILD_DATE \"$date\""
if [ "$(cat "$dir/locus_build_values.h" 2>/dev/null)" != "$new" ]; then
    printf '%s\n' "$new" > "$dir/locus_build_values.h"
fi
echo "locus build: commit $commit, built $date"
