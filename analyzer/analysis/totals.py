"""A run known by its totals only: the summary file of a ``--summary-only`` run.

A report reads such a run beside results files: its headline, survival curve, loss reasons
and Chaos choices come from the tally (``runner.tally``) exactly as from per-game rows; what
needs each game (the margin at victory, the cities pacified in lost games, the convergence
of the estimate, a comparison paired game by game) it cannot give.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from analyzer.core.codes import REASON_NAMES, Outcome
from analyzer.runner.tally import SUMMED, loss_counts, part, tally_results


@dataclass(eq=False)
class Totals:
    """A run's tally (int64, ``runner.tally.LAYOUT``) and its configuration (``attrs``, as
    a results frame's). ``len()`` is its number of games, as a results frame's is."""

    tally: np.ndarray
    attrs: dict = field(default_factory=dict)

    def __len__(self) -> int:
        return int(part(self.tally, "games")[0])

    @property
    def wins(self) -> int:
        """Games won."""
        return int(part(self.tally, "wins")[0])

    @property
    def games_range(self) -> tuple[int, int]:
        """The games played: from ``first_game``, as many as the tally counts, as
        (first, one past the last)."""
        first = int(self.attrs.get("first_game") or 0)
        return first, first + len(self)

    def total(self, column: str) -> int:
        """The sum of a per-game column (``runner.tally.SUMMED``) over the run's games."""
        return int(part(self.tally, "sums")[SUMMED.index(column)])

    def loss_reasons(self) -> pd.Series:
        """Number of lost games by reason, most first; ``run_stats.loss_reasons`` adds the
        reasons in play that no game met."""
        counts = pd.Series(loss_counts(self.tally), dtype=np.int64)
        return counts.sort_values(ascending=False, kind="stable")


def frame_totals(df: pd.DataFrame) -> Totals | None:
    """A results frame's games as a tally (``runner.tally.tally_results``), to join a
    summary of the same run; None for a frame without every column a tally counts."""
    if any(name not in df for name in ("won", "reason", *SUMMED)):
        return None
    results = np.zeros(len(df), dtype=[("outcome", np.int64), ("reason", np.int64),
                                       *((name, np.int64) for name in SUMMED)])
    results["outcome"] = np.where(df["won"].to_numpy(dtype=bool), Outcome.WIN, Outcome.LOSS)
    reasons = {name: code for code, name in enumerate(REASON_NAMES)}
    results["reason"] = [reasons.get(str(reason), 0) for reason in df["reason"]]
    for name in SUMMED:
        results[name] = df[name].to_numpy(dtype=np.int64)
    return Totals(tally_results(results), dict(df.attrs))


def joined_totals(pieces: list[Totals]) -> Totals:
    """The pieces of one run (consecutive games, one configuration) as one: tallies add up."""
    tally = np.sum([piece.tally for piece in pieces], axis=0)
    first = min(pieces, key=lambda piece: piece.games_range[0])
    ordered = [first, *(piece for piece in pieces if piece is not first)]
    return Totals(tally, joined_attrs([piece.attrs for piece in ordered],
                                      int(part(tally, "games")[0])))


#: How :func:`joined_commit` names a piece whose results file recorded no commit.
UNRECORDED = "not recorded"


def joined_commit(configs: list[dict]) -> str | None:
    """The commit that played pieces of one run (their configurations), or each distinct
    one, joined with commas, where pieces were played by different code (their games agree
    all the same: the rules version is part of a run's identity); None where none recorded
    one (files older than commits in results)."""
    commits = dict.fromkeys(str(c.get("commit") or UNRECORDED) for c in configs)
    if list(commits) == [UNRECORDED]:
        return None
    return ", ".join(commits)


def joined_attrs(pieces: list[dict], games: int) -> dict:
    """The configuration of a run joined from pieces (their ``attrs``, the first game's
    piece first): the first's, with the whole run's ``games``, ``joined_files``,
    ``games_resumed`` and ``seconds``, every piece's ``commit`` when they differ, and what
    the weights were tuned on (``policy_tuned_for``) from any piece that recorded it."""
    attrs = dict(pieces[0])
    attrs.update(games=games, joined_files=len(pieces),
                 games_resumed=sum(p.get("games_resumed", 0) or 0 for p in pieces),
                 seconds=sum(p.get("seconds", 0.0) or 0.0 for p in pieces))
    commit = joined_commit(pieces)
    attrs.pop("commit", None)
    if commit is not None:
        attrs["commit"] = commit
    tuned = next((p["policy_tuned_for"] for p in pieces if p.get("policy_tuned_for")), None)
    if tuned is not None:
        attrs["policy_tuned_for"] = tuned
    return attrs
