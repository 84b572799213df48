"""The names of a trace's cards and acts, as the rulebook prints them, for the game text
(``show``) and its summary."""

from __future__ import annotations

BOOK_TITLES = {"flying_sognae": "Flying Sognae", "flying_incubi": "Flying Incubi",
               "invisible_sognae": "Invisible Sognae", "invisible_incubi": "Invisible Incubi",
               "freedom": "Freedom-Loving Dreams", "perfect_balance": "Perfect Balance",
               "prophecies": "Prophecies"}
POSTCARD_TITLES = {"dreamcatcher": "Dreamcatcher", "doves": "Doves", "seer": "Seer",
                   "magicians": "Magicians on Holiday", "hourglass": "Repentant Hourglass",
                   "flagship": "Flagship", "rocket": "Resting Rocket", "planbot": "Planbot"}


class CardNames:
    """Readable names and values of the cards of one trace."""

    def __init__(self, cards: list[dict]) -> None:
        self.cards = {c["id"]: c for c in cards}
        self.n_cities = sum(1 for c in cards if c["type"] == "city")

    def city_deck_left(self, check: dict) -> int:
        """City cards still in the City deck at a check: those neither on the table nor in
        the Success pile."""
        return self.n_cities - check["success"] - len(check["rows"])

    def name(self, card_id: int) -> str:
        c = self.cards[card_id]
        kind = c["type"]
        if kind == "city":
            if c.get("kind") == "square":
                return f"City Square#{card_id}"
            if c.get("kind") == "garden":
                return f"Hanging Garden#{card_id}"
            label = "Temple" if c.get("kind") == "temple" else "City"
            return f"{label}#{card_id}({'/'.join(c['elements'])})"
        if kind == "chaos":
            return f"Chaos#{card_id}"
        if kind == "chromatic":
            return f"Chromatic#{card_id}"
        if kind == "meta":
            return f"Meta {c['sognae_value']:+d}/{c['incubi_value']:+d} {c['element']}#{card_id}"
        if kind == "harmony":
            return f"Harmony {c['sognae_value']:+d}/{c['incubi_value']:+d}#{card_id}"
        if kind == "book":
            return f"Book of {BOOK_TITLES.get(c['kind'], c['kind'])}#{card_id}"
        if kind == "postcard":
            return f"Postcard {POSTCARD_TITLES[c['kind']]}#{card_id}"
        if kind == "emptiness":
            return f"Emptiness card#{card_id}"
        return f"{kind.capitalize()} {c['value']:+d} {c['element']}#{card_id}"

    def names(self, card_ids: list[int]) -> str:
        return ", ".join(self.name(c) for c in card_ids) or "nothing"

    def placed(self, card_id: int, side: str) -> int:
        """The card's influence where it lies."""
        c = self.cards[card_id]
        if c["type"] in ("chaos", "chromatic"):
            return c["value"] if side == "L" else -c["value"]
        if c["type"] in ("meta", "harmony"):
            return c["sognae_value"] if side == "L" else c["incubi_value"]
        return c["value"]

    def row_total(self, row: dict) -> int:
        """The sum of the influences of a check row's dreams (0: in balance, R01.2)."""
        return (sum(self.placed(c, "L") for c in row["L"])
                + sum(self.placed(c, "R") for c in row["R"]))

    def short(self, card_id: int, side: str) -> str:
        """A few letters for the table: C Chaos, X Chromatic, M Meta, H Harmony, W Wizard."""
        c = self.cards[card_id]
        value = f"{self.placed(card_id, side):+d}"
        prefix = {"chaos": "C", "chromatic": "X", "meta": "M", "harmony": "H",
                  "wizard": "W"}.get(c["type"], "")
        element = c["element"][0] if "element" in c else ""
        return f"{prefix}{value}{element}"


#: The rulebook's name of the Emptiness action (R12.3).
ALLY = "Ally against the Emptiness"


def act_label(act: dict) -> str:
    """An act as the rulebook names it.

    Parameters
    ----------
    act : dict
        One act of a trace's act entry (``{"census": ...}``, ``{"book": "prophecies"}``).

    Returns
    -------
    str
        "Census", "Exchange", "Rebuild", "Change Sides", "Ally against the Emptiness" or
        "Book of " and the Book's title.
    """
    if "book" in act:
        return f"Book of {BOOK_TITLES.get(act['book'], act['book'])}"
    name = next(iter(act))
    return ALLY if name == "ally" else name.replace("_", " ").title()
