#!/bin/sh
# Writes OUT/man/*.1 and OUT/completions/{locus,_locus,locus.fish} from a locus BINARY, for the
# Debian package (debian/rules): the man pages by swift-argument-parser's generate-manual (the
# tool its GenerateManual plugin runs; run here on the binary being packaged, where the plugin
# would build the whole package again in a configuration of its own), the completions by the
# binary's own --generate-completion-script. Both read the command definitions, so they cannot
# drift from --help.
set -eu
binary=$1
out=$2
SWIFT=${SWIFT:-swift}
cd "$(dirname "$0")/.."

version=$("$binary" --version | cut -d' ' -f2)
# The page's date: the build's (SOURCE_DATE_EPOCH, which `make deb` sets to the commit's).
date=$(date -u -d "@${SOURCE_DATE_EPOCH:-$(date +%s)}" +%Y-%m-%d)

"$SWIFT" build --quiet --product generate-manual
generator="$("$SWIFT" build --show-bin-path)/generate-manual"

rm -rf "$out"
mkdir -p "$out/man" "$out/completions"
"$generator" "$binary" --multi-page --date "$date" --output-directory "$out/man"
# Mended for man-db and lintian: generate-manual copies a discussion's blank lines into the page,
# where mdoc wants .Pp (man --warnings: "Empty input line"); it quotes .Nd, and the quotes would
# go into the whatis database; it leaves .Os empty (the footer names the package instead).
sed -i -e 's/^$/.Pp/' -e 's/^\.Nd "\(.*\)"$/.Nd \1/' -e "s/^\.Os\$/.Os locus $version/" "$out"/man/*.1
# A subcommand's page names "locus run" in NAME, which lexgrog cannot index (a name has no
# spaces): NAME says locus.run, as the file and `man locus.run` do, and SYNOPSIS and EXIT STATUS
# keep "locus run", which mdoc would otherwise take from NAME.
for page in "$out"/man/locus.*.1; do
    name=$(basename "$page" .1)
    words=$(echo "$name" | tr . ' ')
    sed -i -e "s/^\.Nm \"$words\"\$/.Nm $name/" -e "s/^\.Nm\$/.Nm \"$words\"/" \
        -e "s/^\.Ex -std\$/.Ex -std \"$words\"/" "$page"
done

# Sourced by bash-completion, not run: no #! line (lintian: bash-completion-with-hashbang).
"$binary" --generate-completion-script bash | sed '1{/^#!/d}' > "$out/completions/locus"
"$binary" --generate-completion-script zsh > "$out/completions/_locus"
"$binary" --generate-completion-script fish > "$out/completions/locus.fish"
echo "generate-manuals: $(ls "$out/man" | wc -l) man pages, 3 completion scripts in $out"
