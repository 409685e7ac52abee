#!/bin/sh
# Writes DIR/BuildValues.swift, the commit and build date `locus --version` prints, for every
# build: SwiftPM runs it before each build (the build-tool plugin Sources/LocusBuildInfoPlugin),
# and the values land in the LocusBuildInfo module. The commit is the package checkout's own
# (a tarball, or a directory inside some other git repository, says "unknown"); "-dirty" when
# tracked files differ from it. The date is SOURCE_DATE_EPOCH's if set, else the commit's: the
# same commit builds the same binary. The file is rewritten only when its content changes, so
# building the same commit again compiles and links nothing.
set -eu
dir=$1
cd "$(dirname "$0")/.."
root=$(pwd -P)
commit=unknown
epoch=${SOURCE_DATE_EPOCH:-}
# --no-optional-locks: a build never takes git's index lock (a commit may be running beside it).
if top=$(git --no-optional-locks rev-parse --show-toplevel 2>/dev/null) \
    && [ "$(cd "$top" && pwd -P)" = "$root" ] \
    && head=$(git --no-optional-locks rev-parse --short=7 HEAD 2>/dev/null); then
    commit=$head
    git --no-optional-locks diff --quiet HEAD -- 2>/dev/null || commit="$commit-dirty"
    [ -n "$epoch" ] || epoch=$(git --no-optional-locks log -1 --format=%ct HEAD)
fi
date=unknown
[ -z "$epoch" ] || date=$(date -u -d "@$epoch" +%Y-%m-%d 2>/dev/null) || date=unknown
mkdir -p "$dir"
new="// Written by tools/build-info.sh before each build; not in git.
let generatedCommit = \"$commit\"
let generatedBuildDate = \"$date\""
if [ "$(cat "$dir/BuildValues.swift" 2>/dev/null)" != "$new" ]; then
    printf '%s\n' "$new" > "$dir/BuildValues.swift"
fi
