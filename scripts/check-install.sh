#!/usr/bin/env bash
# `cargo install` of bcast as a user without the repository gets it: packages the crates the
# command is built from (`cargo package`, the corpus crate with the fixtures in it), checks each
# against crates.io's 10 MB limit, unpacks them into a temporary directory, installs `bcast`
# from the unpacked bcast-cli with the other packages in place of crates.io (offline), and runs
# the installed `bcast` from an empty directory over the embedded corpus.
#
#     scripts/check-install.sh            # the whole check (a release build: minutes)
#     scripts/check-install.sh --package  # packaging and sizes only (seconds; .ci/run runs this)
#
# The install builds in target/check-install (kept, so a second run is quicker), apart from
# the workspace's own target/release, whose `bcast` it would otherwise replace.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)

CRATES=(bcast-case bcast-engine bcast-corpus bcast-conformance bcast-fuzzing bcast-cli)
LIMIT=$((10 * 1000 * 1000))  # crates.io's limit on a .crate
version=$(cargo metadata --no-deps --format-version 1 --offline |
    python3 -c 'import json, sys; print(next(p["version"] for p in json.load(sys.stdin)["packages"] if p["name"] == "bcast-cli"))')
say() { printf 'check-install: %s\n' "$*"; }

started=$(date +%s)
args=()
for c in "${CRATES[@]}"; do args+=(-p "$c"); done
# --allow-dirty: what is checked is the working tree as it is.
cargo package --no-verify --allow-dirty --quiet "${args[@]}"
for c in "${CRATES[@]}"; do
    crate="target/package/$c-$version.crate"
    size=$(stat -c %s "$crate")
    say "$crate: $((size / 1000)) kB"
    if [ "$size" -ge "$LIMIT" ]; then
        say "$crate is over crates.io's limit of $LIMIT bytes"
        exit 1
    fi
done
# The corpus crate carries every fixture file (through the link corpus/fixtures).
want=$(cd fixtures && find . -type f -name '*.json' | sort)
got=$(tar tzf "target/package/bcast-corpus-$version.crate" | sed -n "s|^bcast-corpus-$version/fixtures/|./|p" |
    grep '\.json$' | sort)
if [ "$want" != "$got" ]; then
    say "the packaged bcast-corpus does not carry fixtures/ as it is:"
    diff <(echo "$want") <(echo "$got") || true
    exit 1
fi
say "packaged ${#CRATES[@]} crates in $(( $(date +%s) - started )) s; bcast-corpus carries $(echo "$want" | wc -l) fixture files"
[ "${1:-}" = "--package" ] && exit 0

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/src" "$work/empty"
patches=()
for c in "${CRATES[@]}"; do
    tar xzf "target/package/$c-$version.crate" -C "$work/src"
    [ "$c" = bcast-cli ] || patches+=(--config "patch.crates-io.$c.path=\"$work/src/$c-$version\"")
done
started=$(date +%s)
CARGO_TARGET_DIR="$repo/target/check-install" cargo install --offline --quiet --path "$work/src/bcast-cli-$version" \
    --root "$work/root" "${patches[@]}"
say "installed from the packages in $(( $(date +%s) - started )) s"

cd "$work/empty"
"$work/root/bin/bcast" --version
started=$(date +%s)
"$work/root/bin/bcast" run --quiet | tail -1
say "the installed bcast ran the embedded corpus from an empty directory in $(( $(date +%s) - started )) s"
[ -z "$(ls -A .)" ] || { say "it left files behind: $(ls -A .)"; exit 1; }
