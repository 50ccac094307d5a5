"""The protocol adapters that ship with the suite: NumPy (numpy_adapter) and PyTorch itself
(torch_adapter). Run one with `python -m bcast_suite.adapters.numpy_adapter`."""
