"""Runner: seeds, chunks and worker threads around the rules kernels."""
