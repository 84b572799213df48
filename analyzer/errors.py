"""Errors a user can cause; the CLI prints them as one line and exits with code 2."""

from __future__ import annotations


class UrbionError(Exception):
    """Base class of every error caused by a user's input."""


class PolicyError(UrbionError):
    """An unknown policy, or one that made an illegal decision."""


class ResultsFileError(UrbionError):
    """A results file that cannot be read or written."""
