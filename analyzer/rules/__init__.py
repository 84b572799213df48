"""Rules kernels: numba functions over the state arrays of ``state_nb`` (no pandas)."""
