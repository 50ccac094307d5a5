#!/usr/bin/env bash
# Installs torch 2.13.0, numpy, pyyaml and expecttest (which torch's OpInfo test database,
# read by python -m bcast_suite.opinfo, imports) into a cached venv outside the repository (reused when it
# already holds that version) and prints the environment the `torch` feature (tch) needs:
#
#     eval "$(scripts/setup-torch.sh)"
#     cargo test --features torch
#
# The venv is $BCAST_TORCH_VENV, by default ~/.cache/bcast-torch/venv. Progress goes to
# stderr; only the exports go to stdout. Quick and idempotent once the venv exists.
set -euo pipefail

TORCH_VERSION=2.13.0
VENV="${BCAST_TORCH_VENV:-$HOME/.cache/bcast-torch/venv}"

say() { echo "setup-torch: $*" >&2; }

installed() {
    # The dist-info directories pip writes; no Python import needed, so this is instant.
    compgen -G "$VENV/lib/python3*/site-packages/torch-${TORCH_VERSION}*.dist-info" >/dev/null &&
        compgen -G "$VENV/lib/python3*/site-packages/numpy-*.dist-info" >/dev/null &&
        compgen -G "$VENV/lib/python3*/site-packages/[Pp]y[Yy][Aa][Mm][Ll]-*.dist-info" >/dev/null &&
        compgen -G "$VENV/lib/python3*/site-packages/expecttest-*.dist-info" >/dev/null &&
        [ -x "$VENV/bin/python" ]
}

make_venv() {
    if python3 -m venv "$VENV" 2>/dev/null; then
        return
    fi
    # Debian ships venv support separately.
    if command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
        say "installing python3-venv"
        apt-get update -qq >&2 && apt-get install -y -qq python3-venv >&2
        rm -rf "$VENV"
        python3 -m venv "$VENV"
    else
        say "python3 -m venv failed; install Python's venv module"
        exit 1
    fi
}

if installed; then
    say "torch $TORCH_VERSION already in $VENV"
else
    say "installing torch==$TORCH_VERSION, numpy, pyyaml (torchgen reads YAML) and expecttest (OpInfo) into $VENV"
    mkdir -p "$(dirname "$VENV")"
    [ -x "$VENV/bin/python" ] || make_venv
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check \
        "torch==$TORCH_VERSION" numpy pyyaml expecttest >&2
    installed || { say "the install did not leave torch $TORCH_VERSION in $VENV"; exit 1; }
fi

echo "export LIBTORCH_USE_PYTORCH=1"
echo "export PATH=\"$VENV/bin:\$PATH\""
echo "export BCAST_PYTHON=\"$VENV/bin/python\""
