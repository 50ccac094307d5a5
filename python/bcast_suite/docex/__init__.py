"""Turning the seed documents into fixture cases: read a document into blocks (reader), run its
code in torch one call at a time (interp), read what it claims (claimtext, and the recognisers
of runner's DocRunner: comments, shapes_only, functions), and write schema cases labelled by
torch (cases). bcast_suite.extract_docs is the command."""
