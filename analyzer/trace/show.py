"""A trace as text a player can follow, turn by turn.

The trace is replayed by the reference replayer, which narrates every decision, draw, deal,
reveal and pacification in game order; the table is printed at the end of each turn.
"""

from __future__ import annotations

from analyzer.core.codes import Act, Decision
from analyzer.reference import replay

CITY_KIND_NAMES = {"square": "City Square", "temple": "Temple", "garden": "Hanging Garden"}
ACT_NAMES = {Act.PASS: "none", Act.CENSUS: "Census", Act.EXCHANGE: "Exchange"}


class CardNames:
    """Readable names and values of the cards of one trace."""

    def __init__(self, cards: list[dict]) -> None:
        self.cards = {c["id"]: c for c in cards}

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

    def short(self, card_id: int, side: str) -> str:
        """A few letters for the table: C Chaos, X Chromatic, M Meta, H Harmony, W Wizard."""
        c = self.cards[card_id]
        value = f"{self.placed(card_id, side):+d}"
        prefix = {"chaos": "C", "chromatic": "X", "meta": "M", "harmony": "H",
                  "wizard": "W"}.get(c["type"], "")
        element = c["element"][0] if "element" in c else ""
        return f"{prefix}{value}{element}"


def _where(entry: dict) -> str:
    return f"row {entry['row']}, side {entry['side']}"


def decision_text(entry: dict, names: CardNames, code: tuple | None = None) -> str:
    """A Phase I, dealing, Chaos or Chromatic Chaos decision as a sentence (trace entry
    form; ``code``, the option's columns, names the card where the entry does not)."""
    do = entry.get("do")
    card = code[2] if code is not None else -1
    if do == "place":
        return f"place {names.name(entry['card'])} at {_where(entry)}"
    if do == "pass":
        return f"discard {names.name(entry['card'])} for no action"
    if do == "act":
        act = next(iter(entry["acts"][0]))
        return f"discard {names.names(entry['discard'])} for {act.replace('_', ' ').title()}"
    if do == "side":
        if card >= 0:
            role = "a Sognae" if entry["side"] == "L" else "an Incubi"
            return f"{names.name(card)} is dealt as {role}, to side {entry['side']}"
        return f"the two Chaos dealt together go to side {entry['side']}"
    if do in ("chromatic", "revealed"):
        what = names.name(card) if card >= 0 else f"the {do} card"
    if do == "chromatic":
        if entry.get("discard"):
            return f"  no side has room: {what} is discarded"
        return f"  {what} goes to {_where(entry)}"
    if do == "revealed":
        if entry.get("discard"):
            return f"  {what} cannot be placed anywhere: discarded"
        return f"  {what} goes to {_where(entry)}"
    how = entry.get("how")
    if how == "place":
        return f"  the Chaos goes to the more influential side of row {entry['row']}"
    if how == "clear":
        return f"  the Chaos clears the balanced city in row {entry['row']}"
    if how == "aside":
        return "  no city can take the Chaos: set aside"
    return ""  # a reveal is told by its own event


def event_text(event: str, details: dict, names: CardNames) -> str | None:
    """One narrated event as a line, or None for events told elsewhere."""
    if event == "decision":
        kind, entry, code = details["kind"], details["entry"], details.get("code")
        if kind == Decision.ZERO_SUM:
            return f"  zero-sum discard: {names.names(entry)}" if entry else None
        if kind == Decision.EXCHANGE_PAIR:
            return f"  swap {names.name(entry[0])} <-> {names.name(entry[1])}"
        if kind == Decision.SECOND_ACT:
            if entry is None:
                return "  the Wizard's second action: none"
            return f"  the Wizard's second action: {ACT_NAMES[code[0]]}"
        if kind == Decision.REBUILD_ROWS:
            return f"  rebuild: the City cards of rows {entry[0]} and {entry[1]} swap places"
        if kind == Decision.CHANGE_SIDES_CARD:
            card, row, side = code[0], code[1], code[2]
            return (f"  change sides: {names.name(card)} in row {row} moves from side "
                    f"{'LR'[side]} to side {'RL'[side]}, its influence turned over")
        text = decision_text(entry, names, code)
        return f"  {text}" if text else None
    if event == "draw":
        return f"  draw {names.name(details['card'])}"
    if event == "hold":
        return (f"  {names.name(details['card'])} is set aside until the setup or census is "
                "done, a replacement drawn")
    if event == "deal":
        return f"  row {details['row']} is dealt {names.names(details['cards'])}"
    if event == "reveal":
        return (f"  the Chaos reveals {names.names(details['revealed'])}; the cards among "
                "them other than Chaos are discarded")
    if event == "chromatic_reveal":
        return f"  the Chromatic Chaos reveals {names.name(details['revealed'])}"
    if event == "pacify":
        return f"  row {details['row']} is balanced: {names.name(details['city'])} pacified"
    if event == "bonus":
        return f"  Perfect Balance: {names.name(details['city'])} joins the Success pile"
    if event == "new_city":
        return f"  row {details['row']} takes {names.name(details['city'])}"
    return None


def table_text(check: dict, names: CardNames) -> list[str]:
    """The rows, hand and counters of a check entry."""
    lines = []
    for r, row in enumerate(check["rows"]):
        total = sum(names.placed(c, "L") for c in row["L"]) + \
            sum(names.placed(c, "R") for c in row["R"])
        mark = "  balanced" if total == 0 and (row["L"] or row["R"]) else ""
        lines.append(
            f"    row {r}: {names.name(row['city']):<26} "
            f"L [{' '.join(names.short(c, 'L') for c in row['L']):<14}] "
            f"R [{' '.join(names.short(c, 'R') for c in row['R']):<14}] "
            f"total {total:+d}{mark}"
        )
    lines.append(f"    hand: {names.names(check.get('hand', []))}")
    lines.append(f"    Dream deck {check['dream_deck']}, Success {check['success']}, "
                 f"discard {check['discard']}")
    return lines


def render_trace(trace: dict) -> str:
    """The whole game as text."""
    names = CardNames(trace["cards"])
    expansions = ", ".join(trace.get("expansions", [])) or "none"
    out = [f"Urbion solo game {trace['game']} of seed {trace['seed']}, policy "
           f"{trace['policy']}, card set {trace['card_set']}, expansions: {expansions}",
           "Setup"]

    def narrate(event: str, details: dict) -> None:
        line = event_text(event, details, names)
        if line:
            out.append(line)

    def observe(check: dict) -> None:
        out.extend(table_text(check, names))
        out.append(f"Turn {check['turn'] + 1}")

    replay(trace, observe=observe, narrate=narrate)
    out.pop()  # no turn follows the final check
    r = trace["result"]
    out.append(f"Result: {r['outcome'].upper()} ({r['reason']}) after {r['turns']} turns, "
               f"{r['pacified']} City cards pacified, {r['deck_left']} Dream cards left")
    return "\n".join(out)
