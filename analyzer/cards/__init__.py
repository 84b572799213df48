"""Card sets: the TOML data files and their loader/validator."""

from analyzer.cards.loader import CardSet, CardSetError, default_card_set, load_card_set

__all__ = ["CardSet", "CardSetError", "default_card_set", "load_card_set"]
