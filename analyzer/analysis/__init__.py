"""Analysis: pandas tables and statistics over per-game results."""
