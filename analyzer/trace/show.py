"""A trace as text a player can follow, turn by turn.

The trace is replayed by the reference replayer, which narrates every decision, draw, deal,
reveal and pacification in game order; the table is printed at the end of each turn.
"""

from __future__ import annotations

from analyzer.core.codes import Decision
from analyzer.reference import replay


class CardNames:
    """Readable names and values of the cards of one trace."""

    def __init__(self, cards: list[dict]) -> None:
        self.cards = {c["id"]: c for c in cards}

    def name(self, card_id: int) -> str:
        c = self.cards[card_id]
        if c["type"] == "city":
            return f"City#{card_id}({'/'.join(c['elements'])})"
        if c["type"] == "chaos":
            return f"Chaos#{card_id}"
        return f"{c['type'].capitalize()} {c['value']:+d} {c['element']}#{card_id}"

    def names(self, card_ids: list[int]) -> str:
        return ", ".join(self.name(c) for c in card_ids) or "nothing"

    def placed(self, card_id: int, side: str) -> int:
        c = self.cards[card_id]
        if c["type"] == "chaos":
            return c["value"] if side == "L" else -c["value"]
        return c["value"]

    def short(self, card_id: int, side: str) -> str:
        c = self.cards[card_id]
        if c["type"] == "chaos":
            return f"C{self.placed(card_id, side):+d}"
        return f"{c['value']:+d}{c['element'][0]}"


def decision_text(entry: dict, names: CardNames) -> str:
    """A Phase I or Chaos decision as a sentence (trace entry form)."""
    do = entry.get("do")
    if do == "place":
        return f"place {names.name(entry['card'])} at row {entry['row']}, side {entry['side']}"
    if do == "pass":
        return f"discard {names.name(entry['card'])} for no action"
    if do == "act":
        act = next(iter(entry["acts"][0]))
        return f"discard {names.names(entry['discard'])} for {act.replace('_', ' ').title()}"
    if do == "side":
        return f"the two Chaos dealt together go to side {entry['side']}"
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
        kind, entry = details["kind"], details["entry"]
        if kind == Decision.ZERO_SUM:
            return f"  zero-sum discard: {names.names(entry)}" if entry else None
        if kind == Decision.EXCHANGE_PAIR:
            return f"  swap {names.name(entry[0])} <-> {names.name(entry[1])}"
        text = decision_text(entry, names)
        return f"  {text}" if text else None
    if event == "draw":
        return f"  draw {names.name(details['card'])}"
    if event == "deal":
        return f"  row {details['row']} is dealt {names.names(details['cards'])}"
    if event == "reveal":
        return (f"  the Chaos reveals {names.names(details['revealed'])}; the Sognae and "
                "Incubi among them are discarded")
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
    out = [f"Urbion solo game {trace['game']} of seed {trace['seed']}, policy "
           f"{trace['policy']}, card set {trace['card_set']}", "Setup"]

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
