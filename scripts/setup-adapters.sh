#!/usr/bin/env bash
# Installs the libraries of the extra protocol adapters, JAX (CPU) and array-api-strict, pinned,
# into a cached venv outside the repository (reused when it already holds those versions), and
# prints the environment that runs them:
#
#     eval "$(scripts/setup-adapters.sh)"
#     bcast run --backend "$BCAST_ADAPTERS_PYTHON scripts/adapters/jax_adapter.py"
#     bcast run --backend "$BCAST_ADAPTERS_PYTHON scripts/adapters/array_api_strict_adapter.py"
#
# The venv is $BCAST_ADAPTERS_VENV, by default ~/.cache/bcast-adapters/venv: a venv of its own,
# not the torch one of scripts/setup-torch.sh, so that JAX's numpy and jaxlib pins never move
# the numpy the NumPy adapter is measured with. `bcast-dev matrix` finds it there by itself.
# Progress goes to stderr; only the exports go to stdout. Quick and idempotent once the venv
# exists; what is installed is printed (to stderr) either way.
set -euo pipefail

JAX_VERSION=0.10.2
ARRAY_API_STRICT_VERSION=2.6.1
VENV="${BCAST_ADAPTERS_VENV:-$HOME/.cache/bcast-adapters/venv}"

say() { echo "setup-adapters: $*" >&2; }

installed() {
    # The dist-info directories pip writes; no Python import needed, so this is instant.
    local sp="$VENV/lib/python3*/site-packages"
    compgen -G "$sp/jax-${JAX_VERSION}.dist-info" >/dev/null &&
        compgen -G "$sp/jaxlib-${JAX_VERSION}.dist-info" >/dev/null &&
        compgen -G "$sp/array_api_strict-${ARRAY_API_STRICT_VERSION}.dist-info" >/dev/null &&
        compgen -G "$sp/numpy-*.dist-info" >/dev/null &&
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
    say "jax $JAX_VERSION and array-api-strict $ARRAY_API_STRICT_VERSION already in $VENV"
else
    say "installing jax[cpu]==$JAX_VERSION and array-api-strict==$ARRAY_API_STRICT_VERSION into $VENV"
    mkdir -p "$(dirname "$VENV")"
    [ -x "$VENV/bin/python" ] || make_venv
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check \
        "jax[cpu]==$JAX_VERSION" "jaxlib==$JAX_VERSION" \
        "array-api-strict==$ARRAY_API_STRICT_VERSION" >&2
    installed || { say "the install did not leave jax $JAX_VERSION and array-api-strict $ARRAY_API_STRICT_VERSION in $VENV"; exit 1; }
fi

# What is there, as the packages themselves say (numpy comes with jax and array-api-strict).
"$VENV/bin/python" - >&2 <<'EOF'
from importlib.metadata import version
for dist in ("jax", "jaxlib", "array-api-strict", "numpy", "ml_dtypes"):
    try:
        print(f"setup-adapters: {dist} {version(dist)}")
    except Exception:  # noqa: BLE001 - a missing optional dependency is just not listed
        pass
EOF

echo "export BCAST_ADAPTERS_PYTHON=\"$VENV/bin/python\""
