"""The configuration that names a run: stored with every result."""

from __future__ import annotations

from importlib import metadata

from analyzer.cards import CardSet
from analyzer.cards.loader import packed_table
from analyzer.core.codes import RULES_VERSION

ENGINES = ("fast", "reference")


def package_version() -> str:
    """Installed version of this package."""
    try:
        return metadata.version("urbion-analyzer")
    except metadata.PackageNotFoundError:
        return "unknown"


def run_config(card_set: CardSet, policy: str, seed: int, games: int, engine: str,
               first_game: int = 0) -> dict:
    """Everything needed to reproduce a batch, for ``DataFrame.attrs`` and file metadata."""
    return {
        "seed": seed,
        "games": games,
        "first_game": first_game,
        "policy": policy,
        "engine": engine,
        "variant": card_set.variant,
        "expansions": card_set.expansion_names(),
        "card_set": card_set.name,
        "card_set_sha256": card_set.digest,
        "card_set_source": card_set.source,
        "city_cards": int(len(card_set.city_ids)),  # the most cities a game can pacify
        # the cards themselves: a report shows them though the file changes afterwards
        "card_set_table": packed_table(card_set),
        "rules_version": RULES_VERSION,
        "package_version": package_version(),
    }
