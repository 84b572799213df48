"""Auditing traces: each one replayed against the rules by the reference replayer, with its
verdict, whichever engine or hand wrote it."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pandas as pd

from analyzer.cards.loader import CardSet
from analyzer.core.codes import RULES_VERSION
from analyzer.reference.replay import ReplayError, replay
from analyzer.trace.jsonl import TraceLine

#: One row per trace: where it is, what game it claims to be, and the verdict.
COLUMNS = ("line", "seed", "game", "variant", "expansions", "policy", "card_set", "replays",
           "error", "outcome", "reason", "turns", "deal_of_seed", "cards_of_set",
           "cards_alike", "rules_as_named", "rules_version", "passes_strict")


#: The checks of where a trace comes from, each True, False or not made (pandas' NA).
CHECKS = ("deal_of_seed", "cards_of_set", "cards_alike", "rules_as_named")


def audit(traces: list[TraceLine], card_set: CardSet | None = None) -> pd.DataFrame:
    """Replay every trace; one row per trace (:data:`COLUMNS`).

    Parameters
    ----------
    traces : list of TraceLine
        ``(line number, trace, problem)`` as ``trace.jsonl.read_traces`` gives them.
    card_set : CardSet, optional
        The set every trace's cards are checked against (``cards_of_set``), instead of the
        set each names, of which the replayer holds R14 only.

    Returns
    -------
    pandas.DataFrame
        ``replays`` True when the trace replays decision by decision to its own result;
        otherwise ``error`` says where and why it does not. ``outcome``, ``reason`` and
        ``turns`` are the replayed result (empty for a trace that does not replay);
        ``deal_of_seed`` whether its shuffles are those of the game and seed it names
        (``reference.replay.DealCheck``); ``cards_of_set`` whether its ``cards`` table is
        that of the card set it names (NA: a set the replayer does not hold, any but R14),
        or of ``card_set`` (its cards, name and hash); ``cards_alike``, with ``card_set``,
        whether its ``cards`` table holds that set's cards whatever set it names (NA
        without ``card_set``); ``rules_as_named`` whether it names the rules the replayer plays
        (or none), whose name ``rules_version`` gives; ``passes_strict`` what ``urbion
        replay --strict`` asks of a trace: it replays, and no check found it to be other
        than the game it names (a check not made counts as no such finding). The four
        checks are of pandas' nullable boolean dtype: NA where a check was not made (a
        trace that does not replay, a set the replayer does not hold), so that
        ``df[df.cards_of_set]`` selects the traces found of their set.
    """
    df = pd.DataFrame([_verdict(*item, card_set) for item in traces], columns=COLUMNS,
                      dtype=object)
    df["line"] = df["line"].astype("int64")
    df["replays"] = df["replays"].astype(bool)
    df["turns"] = df["turns"].astype("Int64")
    # None (not checked) is no finding against a trace
    doubted = df[["deal_of_seed", "cards_of_set", "rules_as_named"]].eq(False).any(axis=1)
    df["passes_strict"] = df["replays"] & ~doubted
    for column in CHECKS:  # True, False, or not checked: a mask that a notebook can use
        df[column] = df[column].astype("boolean")
    for column in ("seed", "game"):  # a trace's own fields: whole numbers unless malformed
        if all(value is None or (type(value) is int and -2**63 <= value < 2**63)
               for value in df[column]):
            df[column] = df[column].astype("Int64")
    return df


def _verdict(line: int, trace: object, problem: str | None,
             card_set: CardSet | None) -> dict:
    row = dict.fromkeys(COLUMNS, None)
    row.update(line=line, replays=False, error="")
    if isinstance(trace, dict):
        row.update({key: trace.get(key) for key in ("seed", "game", "variant", "policy",
                                                    "card_set", "rules_version")})
        expansions = trace.get("expansions")
        row["expansions"] = ",".join(map(str, expansions)) if isinstance(expansions, list) \
            else None
    if problem is not None:  # a line that is not JSON
        row["error"] = problem
        return row
    try:
        result = replay(trace, check_deal=True, card_set=card_set)
    except ReplayError as err:
        row["error"] = str(err)
        return row
    row.update(replays=True, outcome=result["outcome"], reason=result["reason"],
               turns=result["turns"], deal_of_seed=result["deal_of_seed"],
               cards_of_set=result["cards_of_set"], cards_alike=result.get("cards_alike"),
               rules_as_named=result["rules_as_named"])
    return row


def format_audit(df: pd.DataFrame, source: str, card_set: CardSet | None = None) -> str:
    """The audit as text: a line per trace, then the count; ``card_set`` the set the cards
    were checked against, if one was given."""
    lines = []
    # a check not made is None again, as _provenance_doubts reads it
    for r in df.astype({column: object for column in CHECKS}).replace({pd.NA: None}) \
            .itertuples():
        what = f"game {_json(r.game)} of seed {_json(r.seed)}" if _given(r.game) \
            else "a trace"
        if r.replays:
            lines.append(f"line {r.line}: {what} replays: {r.outcome} ({r.reason}) after "
                         f"{r.turns} turns" + _provenance_doubts(r, what, card_set))
        else:
            lines.append(f"line {r.line}: {what} does NOT replay: {r.error}")
    bad = int((~df["replays"]).sum())
    other = int((df["replays"] & (df["deal_of_seed"] == False)).sum())  # noqa: E712
    not_of_set = df["replays"] & (df["cards_of_set"] == False)  # noqa: E712
    renamed = int((not_of_set & (df["cards_alike"] == True)).sum())  # noqa: E712
    cards = int(not_of_set.sum()) - renamed
    rules = int((df["replays"] & (df["rules_as_named"] == False)).sum())  # noqa: E712
    named = "the card set named" if card_set is None else card_set.name
    lines.append(f"{source}: {len(df)} trace(s), {len(df) - bad} replay, {bad} do not"
                 + (f"; {other} replaying with the shuffles of another game than the one "
                    "named" if other else "")
                 + (f"; {cards} with other cards than {named}" if cards else "")
                 + (f"; {renamed} with the cards of {named} under another set's name "
                    "or hash" if renamed else "")
                 + (f"; {rules} naming other rules than {RULES_VERSION}" if rules else ""))
    return "\n".join(lines)


def _provenance_doubts(r: Any, what: str, card_set: CardSet | None) -> str:
    """What a trace that replays is not: the game it names, played on the set it names (or
    on ``card_set``) under the rules it names."""
    doubts = []
    if not r.deal_of_seed:
        doubts.append(f"its shuffles are not those of {what}: an edited or hand-built trace, "
                      "whose seed and game the rules do not check")
    if r.cards_of_set is False and card_set is None:
        doubts.append(f"its cards or card-set hash are not those of {r.card_set}: an edited "
                      "trace")
    elif r.cards_of_set is False and r.cards_alike and r.card_set != card_set.name:
        doubts.append(f"it names the card set {_json(r.card_set)}, not {card_set.name} "
                      f"({card_set.source}), whose cards it holds: a copy under another "
                      "name")
    elif r.cards_of_set is False and r.cards_alike:
        doubts.append(f"its card-set hash is not that of {card_set.name} ({card_set.source}), "
                      "whose cards it holds: an edited hash")
    elif r.cards_of_set is False:
        doubts.append(f"its cards are not those of {card_set.name} ({card_set.source})"
                      + ("" if r.card_set == card_set.name else
                         f": it names the card set {_json(r.card_set)}"))
    if r.rules_as_named is False:
        doubts.append(f"it names the rules {_json(r.rules_version)}, and was replayed under "
                      f"{RULES_VERSION}")
    if not doubts:
        return ""
    return "; but " + doubts[0] + "".join(f"; and {doubt}" for doubt in doubts[1:])


def _json(value: object) -> str:
    """A trace's value as the file spells it (true, null), numpy's integers as numbers."""
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    return "null" if not _given(value) else json.dumps(value, default=str)


def _given(value: object) -> bool:
    return value is not None and value is not pd.NA
