"""Asking the policy: the one place a kernel calls the policy callable."""

from __future__ import annotations

from analyzer.core.codes import Info, Outcome, Reason
from analyzer.core.jit import jit
from analyzer.rules.log_nb import log_decision_nb


@jit
def ask_nb(policy, g, cards, kind, n_options):
    """Ask ``policy`` to choose among ``g.options[:n_options]``; log and return the index.

    An index outside the options ends the game with ``Outcome.ERROR`` (the runner reports
    it) and returns -1.
    """
    state = (g.layout, g.hands, g.info)
    choice = policy(kind, g.options, n_options, state, cards, g.params, g.policy_rng)
    if choice < 0 or choice >= n_options:
        g.info[Info.OUTCOME] = Outcome.ERROR
        g.info[Info.REASON] = Reason.ILLEGAL_DECISION
        g.info[Info.ERROR_KIND] = kind
        g.info[Info.ERROR_CHOICE] = choice
        return -1
    log_decision_nb(g, kind, choice)
    return choice


@jit
def set_option_nb(options, i, a, b, c, d):
    """Write option row ``i``."""
    options[i, 0] = a
    options[i, 1] = b
    options[i, 2] = c
    options[i, 3] = d
