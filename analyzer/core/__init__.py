"""Ground floor: integer codes, per-game random streams and jit options."""
