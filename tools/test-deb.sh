#!/usr/bin/env bash
# The Debian package on this machine (issue 34; CI runs it as root after `make test`): builds it
# with `make deb` (lintian included), installs it with apt as README's "Install" says, and checks
#   - locus --version names the package version, this commit and a date; --verbose lists the
#     protocol version and every schema in schemas/ with its x-locus-version;
#   - the user locus and the groups exist, /var/lib/locus is theirs (also when root made it
#     before); `locus check` accepts the shipped config as root and
#     as locus; /etc/locus/config.yaml is a conffile;
#   - systemd-analyze verify accepts the installed unit (which starts /usr/bin/locus and links
#     to its man page), and the unit is not enabled;
#   - man locus and man locus.run render; bash completes `locus`; zsh and fish scripts exist;
#   - the docs and schemas are in /usr/share/doc/locus;
#   - reinstalling over the installed package (the upgrade path) works;
#   - remove keeps the conffile, the state and the user; purge leaves nothing behind.
# Refuses to run where a locus package is installed already: it would purge it.
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
[ "$(id -u)" = 0 ] || SUDO=sudo
failures=0
say() { echo "test-deb: $*"; }
fail() { echo "test-deb: FAIL: $*" >&2; failures=$((failures + 1)); }
die() { echo "test-deb: FAIL: $*" >&2; exit 1; }
check() { # check DESCRIPTION COMMAND...: runs COMMAND, a failure is counted with its output
    local what=$1; shift
    local out
    if out=$("$@" 2>&1); then say "ok: $what"; else fail "$what: $* said: $out"; fi
}
absent() { [ ! -e "$1" ]; }
no_user() { ! getent passwd "$1" >/dev/null; }
no_group() { ! getent group "$1" >/dev/null; }

if dpkg-query -W -f='${db:Status-Status}' locus 2>/dev/null | grep -qv '^not-installed$'; then
    die "a locus package is installed here ($(dpkg-query -W -f='${Version} ${db:Status-Status}' locus)); this test installs and purges its own: dpkg -P locus first"
fi
for name in locus locus-subscribers locus-publishers; do
    getent passwd "$name" >/dev/null && die "a user $name exists without the package; the purge check would remove it: remove it first"
    getent group "$name" >/dev/null && die "a group $name exists without the package; the purge check would remove it: remove it first"
done

start=$(date +%s)
make deb
version=$(dpkg-parsechangelog -SVersion)
deb=locus_${version}_$(dpkg --print-architecture).deb
[ -f "$deb" ] || die "make deb did not write $deb"
say "built $deb ($(du -h "$deb" | cut -f1)) in $(($(date +%s) - start)) s"

# A root-owned /var/lib/locus, as a root `locus run` without HOME leaves it (make test's daemons
# did, before this test in CI): the package takes it over, as the unit's StateDirectory= would.
if [ ! -e /var/lib/locus ]; then
    $SUDO install -d -m 0700 /var/lib/locus
    $SUDO touch /var/lib/locus/left-by-root
fi

say "installing $deb"
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "./$deb" >/dev/null || die "apt-get install ./$deb failed"
[ "$(dpkg-query -W -f='${db:Status-Status}' locus)" = installed ] || die "locus is not fully installed after apt-get install: $(dpkg-query -W -f='${db:Status-Status}' locus)"

# The version: package version, this commit (when this is a git checkout), a date.
line=$(/usr/bin/locus --version) || die "locus --version failed"
say "locus --version: $line"
commit=$(git rev-parse --short=7 HEAD 2>/dev/null || echo unknown)
[[ $line =~ ^locus\ ${version//./\\.}\ \(commit\ ${commit}(-dirty)?,\ built\ [0-9]{4}-[0-9]{2}-[0-9]{2}\)$ ]] ||
    fail "locus --version says '$line'; expected 'locus $version (commit $commit, built YYYY-MM-DD)'"
verbose=$(/usr/bin/locus --version --verbose) || die "locus --version --verbose failed"
check "--version --verbose names every schema in schemas/ with its x-locus-version" python3 - "$verbose" <<'EOF'
import glob, json, re, sys
out = sys.argv[1].splitlines()
assert any(re.fullmatch(r"protocol \d+", l) for l in out), "no 'protocol N' line"
listed = dict(l.split() for l in out if l.startswith("  "))
for path in glob.glob("schemas/*.schema.json"):
    schema = json.load(open(path))
    if "x-locus-version" not in schema:
        continue
    name = path.split("/")[-1].removesuffix(".schema.json")
    assert listed.get(name) == str(schema["x-locus-version"]), f"{name}: {listed.get(name)} vs schema {schema['x-locus-version']}"
EOF

# The user, the groups, the config.
check "user locus is a system user without a login shell" bash -c '[ "$(getent passwd locus | cut -d: -f7)" = /usr/sbin/nologin ] && [ "$(id -u locus)" -lt 1000 ]'
check "locus is in locus-subscribers and locus-publishers" bash -c 'id -nG locus | tr " " "\n" | grep -qx locus-subscribers && id -nG locus | tr " " "\n" | grep -qx locus-publishers'
check "the unit's supplementary groups exist" getent group dialout bluetooth
check "/etc/locus/keys is the locus user's, 0700" bash -c '[ "$(stat -c "%U %a" /etc/locus/keys)" = "locus 700" ]'
check "/var/lib/locus is the locus user's, 0700" bash -c '[ "$(stat -c "%U %a" /var/lib/locus)" = "locus 700" ]'
check "/etc/locus/config.yaml is a conffile" bash -c "dpkg-query -W -f='\${Conffiles}' locus | grep -q ' /etc/locus/config.yaml '"
check "locus check /etc/locus/config.yaml (root)" /usr/bin/locus check /etc/locus/config.yaml
check "locus check /etc/locus/config.yaml (as locus)" $SUDO runuser -u locus -- /usr/bin/locus check /etc/locus/config.yaml

# The unit.
unit=$(dpkg -L locus | grep '/systemd/system/locus\.service$' || true)
[ -n "$unit" ] || die "the package installs no locus.service: $(dpkg -L locus | grep -i systemd || echo 'no systemd files')"
check "the unit runs /usr/bin/locus" grep -q '^ExecStart=/usr/bin/locus run /etc/locus/config.yaml$' "$unit"
check "systemd-analyze verify $unit" bash -c "out=\$(systemd-analyze verify '$unit' 2>&1); echo \"\$out\"; [ -z \"\$out\" ]"
check "the unit is not enabled on installation" bash -c '! ls /etc/systemd/system/*.wants/locus.service 2>/dev/null'
security=$(systemd-analyze security --offline=true "$unit" 2>/dev/null | tail -1 || true)
[ -z "$security" ] || say "systemd-analyze security: $security"

# Man pages, completions, docs.
check "man locus renders and documents --version" bash -c 'man locus 2>/dev/null | grep -q -- "--version"'
check "man locus.run renders" bash -c 'man locus.run 2>/dev/null | grep -q "locus run"'
check "man pages render without warnings" bash -c 'for f in /usr/share/man/man1/locus*.1.gz; do w=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l -Tutf8 -Z "$f" 2>&1 >/dev/null); [ -z "$w" ] || { echo "$f: $w"; exit 1; }; done'
check "bash completes locus" bash -c 'source /usr/share/bash-completion/completions/locus && complete -p locus'
check "zsh and fish completions" test -s /usr/share/zsh/vendor-completions/_locus -a -s /usr/share/fish/vendor_completions.d/locus.fish
check "README, docs and plugin READMEs in /usr/share/doc/locus" test -f /usr/share/doc/locus/README.md -a -f /usr/share/doc/locus/docs/security.md -a -f /usr/share/doc/locus/Plugins/Gpsd/README.md
check "every schema in /usr/share/doc/locus/schemas" bash -c 'for f in schemas/*.json schemas/protocol/*.json; do cmp -s "$f" "/usr/share/doc/locus/$f" || { echo "$f differs or is missing"; exit 1; }; done'

# The upgrade path: configure runs again over an existing user, groups and key directory.
$SUDO dpkg -i "$deb" >/dev/null || fail "reinstalling $deb over itself failed"

# Remove: the conffile, the state and the user stay.
$SUDO runuser -u locus -- touch /var/lib/locus/journal-stand-in
$SUDO dpkg -r locus >/dev/null || die "dpkg -r locus failed"
check "remove: /usr/bin/locus is gone" absent /usr/bin/locus
check "remove: the unit is gone" absent "$unit"
check "remove: the conffile stays" test -f /etc/locus/config.yaml
check "remove: the state stays" test -f /var/lib/locus/journal-stand-in
check "remove: the user stays" getent passwd locus

# Purge: nothing left.
$SUDO dpkg -P locus >/dev/null || die "dpkg -P locus failed"
check "purge: the package is gone" bash -c '! dpkg-query -W -f="\${db:Status-Status}" locus 2>/dev/null | grep -qv "^not-installed$"'
check "purge: /etc/locus is gone" absent /etc/locus
check "purge: /var/lib/locus is gone" absent /var/lib/locus
check "purge: the user locus is gone" no_user locus
for group in locus locus-subscribers locus-publishers; do
    check "purge: the group $group is gone" no_group "$group"
done

if [ "$failures" -gt 0 ]; then
    echo "test-deb: $failures check(s) failed" >&2
    exit 1
fi
say "all checks passed ($(($(date +%s) - start)) s)"
