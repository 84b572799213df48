"""Per-run figures behind the balance report, as DataFrames (one row per game in, tables
out): headline, survival by turn, convergence of the estimate, loss reasons, margins."""

from __future__ import annotations

import numpy as np
import pandas as pd

from analyzer.analysis.compare import paired_difference
from analyzer.analysis.stats import newcombe_difference, wilson_interval


def run_label(attrs: dict, fallback: str) -> str:
    """A short name for a run: its policy, expansions, variant (team only) and seed."""
    expansions = "+".join(attrs.get("expansions") or []) or "base"
    team = " / team" if attrs.get("variant") == "team" else ""
    return (f"{attrs.get('policy', fallback)} / {expansions}{team} / seed "
            f"{attrs.get('seed', '?')}")


def headline(runs: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """One row per run: games, wins, win rate with its 95% Wilson interval, mean turns,
    mean cities pacified."""
    rows = []
    for label, df in runs.items():
        wins, games = int(df["won"].sum()), len(df)
        low, high = wilson_interval(wins, games)
        rows.append({"run": label, "games": games, "wins": wins, "win_rate": wins / games,
                     "ci_low": low, "ci_high": high, "mean_turns": df["turns"].mean(),
                     "mean_pacified": df["pacified"].mean()})
    return pd.DataFrame(rows).set_index("run")


def differences(runs: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """Each run's win rate against the first run's, one row per later run.

    Runs of the same seed over the same game numbers are paired game by game (their games
    share the random streams of (seed, g)): Newcombe's square-and-add interval for paired
    proportions and McNemar's exact p. Other runs are independent samples: Newcombe's
    hybrid score interval, and no p-value. Columns: ``against``, ``games``, ``difference``,
    ``low``, ``high``, ``paired`` (bool), ``mcnemar_p``.
    """
    (first_label, first), *others = runs.items()
    rows = []
    for label, df in others:
        row = {"run": label, "against": first_label, "games": len(df),
               "difference": df["won"].mean() - first["won"].mean()}
        if _paired(first, df):
            paired = paired_difference(df.sort_values("game")["won"].to_numpy(),
                                       first.sort_values("game")["won"].to_numpy())
            row.update(low=paired["diff_low"], high=paired["diff_high"], paired=True,
                       mcnemar_p=paired["mcnemar_p"])
        else:
            low, high = newcombe_difference(int(df["won"].sum()), len(df),
                                            int(first["won"].sum()), len(first))
            row.update(low=low, high=high, paired=False, mcnemar_p=np.nan)
        rows.append(row)
    return pd.DataFrame(rows, columns=["run", "against", "games", "difference", "low", "high",
                                       "paired", "mcnemar_p"]).set_index("run")


def _paired(a: pd.DataFrame, b: pd.DataFrame) -> bool:
    """Whether two runs played the same games of the same seed."""
    return (a.attrs.get("seed") is not None and a.attrs.get("seed") == b.attrs.get("seed")
            and len(a) == len(b)
            and np.array_equal(np.sort(a["game"].to_numpy()), np.sort(b["game"].to_numpy())))


def survival(df: pd.DataFrame) -> pd.Series:
    """Share of games still running after each turn (index: turn 0 .. the longest game)."""
    turns = df["turns"].to_numpy()
    ends = np.bincount(turns, minlength=turns.max() + 1)
    still = 1.0 - np.cumsum(ends) / len(turns)
    return pd.Series(still, index=pd.RangeIndex(len(still), name="turn"), name="running")


def convergence(df: pd.DataFrame, points: int = 60) -> pd.DataFrame:
    """The win-rate estimate and its 95% interval after the first n games, at ``points``
    values of n spaced evenly on a log scale."""
    won = df.sort_values("game")["won"].to_numpy()
    counts = np.unique(np.geomspace(1, len(won), points).astype(int))
    wins = np.cumsum(won)[counts - 1]
    bounds = [wilson_interval(int(w), int(n)) for w, n in zip(wins, counts, strict=True)]
    return pd.DataFrame({"games": counts, "win_rate": wins / counts,
                         "ci_low": [b[0] for b in bounds], "ci_high": [b[1] for b in bounds]})


def loss_reasons(df: pd.DataFrame) -> pd.Series:
    """Number of lost games by reason."""
    return df.loc[~df["won"], "reason"].astype(str).value_counts()


def margin_at_victory(df: pd.DataFrame) -> pd.Series:
    """Wins by Dream cards left in the deck at the moment of victory."""
    return df.loc[df["won"], "deck_left"].value_counts().sort_index()


def pacified_at_defeat(df: pd.DataFrame) -> pd.Series:
    """Lost games by City cards pacified."""
    return df.loc[~df["won"], "pacified"].value_counts().sort_index()


def chaos_choices(df: pd.DataFrame) -> pd.Series:
    """Mean number per game of each way a Chaos drawn in Phase II was taken."""
    columns = {"placed": "chaos_placed", "cleared a city": "chaos_cleared",
               "revealed": "chaos_revealed"}
    return pd.Series({name: df[col].mean() for name, col in columns.items()})
