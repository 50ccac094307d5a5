"""The tests of bcast_suite (stdlib unittest), run from the repository root with

    python -m unittest discover -s python/tests -t python

Tests that need torch or numpy skip without them; CI runs them with the venv that has both."""
