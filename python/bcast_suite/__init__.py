"""The Python side of the bcast conformance suite (see python/README.md).

For adapter authors, stdlib only: kit (protocol loop, inputs, outcomes), protocol, casefmt
(format, sampling), fill (fill recipes), builder (writing cases). Needing torch: torch_exec (a
case's meaning in torch), label, verify_fixtures, regen_corpus, extract_docs with docex,
adapters.torch_adapter; needing numpy: adapters.numpy_adapter. tch_op_cases writes the cases of
the tch backend's tests."""
