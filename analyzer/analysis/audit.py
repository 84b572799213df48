"""Auditing traces: each one replayed against the rules by the reference replayer, with its
verdict, whichever engine or hand wrote it."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pandas as pd

from analyzer.reference.replay import ReplayError, replay
from analyzer.trace.jsonl import TraceLine

#: One row per trace: where it is, what game it claims to be, and the verdict.
COLUMNS = ("line", "seed", "game", "variant", "expansions", "policy", "card_set", "replays",
           "error", "outcome", "reason", "turns", "deal_of_seed", "cards_of_set")


def audit(traces: list[TraceLine]) -> pd.DataFrame:
    """Replay every trace; one row per trace (:data:`COLUMNS`).

    Parameters
    ----------
    traces : list of TraceLine
        ``(line number, trace, problem)`` as ``trace.jsonl.read_traces`` gives them.

    Returns
    -------
    pandas.DataFrame
        ``replays`` True when the trace replays decision by decision to its own result;
        otherwise ``error`` says where and why it does not. ``outcome``, ``reason`` and
        ``turns`` are the replayed result (empty for a trace that does not replay);
        ``deal_of_seed`` whether its shuffles are those of the game and seed it names
        (``reference.replay.DealCheck``); ``cards_of_set`` whether its ``cards`` table is
        that of the card set it names (None: a set the replayer does not hold, any but R14).
    """
    df = pd.DataFrame([_verdict(*item) for item in traces], columns=COLUMNS, dtype=object)
    df["line"] = df["line"].astype("int64")
    df["replays"] = df["replays"].astype(bool)
    df["turns"] = df["turns"].astype("Int64")
    for column in ("seed", "game"):  # a trace's own fields: whole numbers unless malformed
        if all(value is None or (type(value) is int and -2**63 <= value < 2**63)
               for value in df[column]):
            df[column] = df[column].astype("Int64")
    return df


def _verdict(line: int, trace: object, problem: str | None) -> dict:
    row = dict.fromkeys(COLUMNS, None)
    row.update(line=line, replays=False, error="")
    if isinstance(trace, dict):
        row.update({key: trace.get(key) for key in ("seed", "game", "variant", "policy",
                                                    "card_set")})
        expansions = trace.get("expansions")
        row["expansions"] = ",".join(map(str, expansions)) if isinstance(expansions, list) \
            else None
    if problem is not None:  # a line that is not JSON
        row["error"] = problem
        return row
    try:
        result = replay(trace, check_deal=True)
    except ReplayError as err:
        row["error"] = str(err)
        return row
    row.update(replays=True, outcome=result["outcome"], reason=result["reason"],
               turns=result["turns"], deal_of_seed=result["deal_of_seed"],
               cards_of_set=result["cards_of_set"])
    return row


def format_audit(df: pd.DataFrame, source: str) -> str:
    """The audit as text: a line per trace, then the count."""
    lines = []
    for r in df.itertuples():
        what = f"game {_json(r.game)} of seed {_json(r.seed)}" if _given(r.game) \
            else "a trace"
        if r.replays:
            lines.append(f"line {r.line}: {what} replays: {r.outcome} ({r.reason}) after "
                         f"{r.turns} turns" + _provenance_doubts(r, what))
        else:
            lines.append(f"line {r.line}: {what} does NOT replay: {r.error}")
    bad = int((~df["replays"]).sum())
    other = int((df["replays"] & (df["deal_of_seed"] == False)).sum())  # noqa: E712
    cards = int((df["replays"] & (df["cards_of_set"] == False)).sum())  # noqa: E712
    lines.append(f"{source}: {len(df)} trace(s), {len(df) - bad} replay, {bad} do not"
                 + (f"; {other} replaying with the shuffles of another game than the one "
                    "named" if other else "")
                 + (f"; {cards} with other cards than the card set named" if cards else ""))
    return "\n".join(lines)


def _provenance_doubts(r: Any, what: str) -> str:
    """What a trace that replays is not: the game it names, or played on the set it names."""
    doubts = ""
    if not r.deal_of_seed:
        doubts += (f"; but its shuffles are not those of {what}: an edited or hand-built "
                   "trace, whose seed and game the rules do not check")
    if r.cards_of_set is False:
        doubts += (f"; {'and' if doubts else 'but'} its cards are not those of "
                   f"{r.card_set}: an edited card table")
    return doubts


def _json(value: object) -> str:
    """A trace's value as the file spells it (true, null), numpy's integers as numbers."""
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    return "null" if not _given(value) else json.dumps(value, default=str)


def _given(value: object) -> bool:
    return value is not None and value is not pd.NA
