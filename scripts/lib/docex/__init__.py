"""Turning the seed documents into fixture cases: read a document into blocks (reader), run its
code in torch one call at a time (interp), read what it claims (claimtext, recognisers), and
write schema cases labelled by torch (cases)."""
