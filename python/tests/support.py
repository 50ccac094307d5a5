"""What the tests share: the repository's paths, its fixtures, and which libraries are here."""

import importlib.util
import json
import os

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HAS_TORCH = importlib.util.find_spec("torch") is not None
HAS_NUMPY = importlib.util.find_spec("numpy") is not None


def path(*parts):
    return os.path.join(REPO, *parts)


def load_json(*parts):
    with open(path(*parts)) as f:
        return json.load(f)


def fixture_cases(*parts):
    """The cases of a fixture file, by id."""
    return {c["id"]: c for c in load_json(*parts)["cases"]}
