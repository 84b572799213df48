"""Traces: the fast engine's log as ``urbion-trace/1`` JSON, and the text ``show`` view."""
