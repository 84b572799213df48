"""A trace as text a player can follow: decisions, then the table at the end of each turn."""

from __future__ import annotations


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


def _act_text(entry: dict, names: CardNames) -> str:
    parts = []
    for act in entry["acts"]:
        if "exchange" in act:
            a, b = act["exchange"]
            parts.append(f"Exchange {names.name(a)} <-> {names.name(b)}")
        elif "census" in act:
            groups = act["census"]["zero_sum"]
            extra = "; zero-sum discards: " + "; ".join(
                ", ".join(names.name(c) for c in g) for g in groups) if groups else ""
            parts.append("Census" + extra)
    cards = ", ".join(names.name(c) for c in entry["discard"])
    return f"discard {cards} for " + " and ".join(parts)


def decision_text(entry: dict, names: CardNames) -> str:
    """One log entry as a sentence."""
    do = entry.get("do")
    if do == "place":
        return f"place {names.name(entry['card'])} at row {entry['row']} side {entry['side']}"
    if do == "pass":
        return f"discard {names.name(entry['card'])} for no action"
    if do == "act":
        return _act_text(entry, names)
    if do == "side":
        return f"two Chaos dealt together go to side {entry['side']}"
    if do == "chaos":
        how = entry["how"]
        if how == "place":
            return f"Chaos: placed on the more influential side of row {entry['row']}"
        if how == "clear":
            return f"Chaos: cleared the balanced city in row {entry['row']}"
        if how == "reveal":
            return "Chaos: revealed the top 4 Dream cards"
        return "Chaos: no city can take it, set aside"
    if "shuffle" in entry:
        return f"Dream deck shuffled ({len(entry['shuffle'])} cards)"
    return str(entry)


def table_text(check: dict, names: CardNames, previous_hand: list[int] | None) -> list[str]:
    """The rows, hand and counters of a check entry."""
    lines = []
    for r, row in enumerate(check["rows"]):
        left = sum(names.placed(c, "L") for c in row["L"])
        right = sum(names.placed(c, "R") for c in row["R"])
        total = left + right
        mark = "  balanced" if total == 0 and (row["L"] or row["R"]) else ""
        lines.append(
            f"    row {r}: {names.name(row['city']):<26} "
            f"L [{' '.join(names.short(c, 'L') for c in row['L']):<14}] "
            f"R [{' '.join(names.short(c, 'R') for c in row['R']):<14}] "
            f"total {total:+d}{mark}"
        )
    hand = check.get("hand", [])
    drawn = [c for c in hand if previous_hand is not None and c not in previous_hand]
    drew = f"   (drew {', '.join(names.name(c) for c in drawn)})" if drawn else ""
    lines.append(f"    hand: {', '.join(names.name(c) for c in hand)}{drew}")
    lines.append(f"    Dream deck {check['dream_deck']}, Success {check['success']}, "
                 f"discard {check['discard']}")
    return lines


def render_trace(trace: dict) -> str:
    """The whole game as text."""
    names = CardNames(trace["cards"])
    out = [f"Urbion solo game {trace['game']} of seed {trace['seed']}, policy "
           f"{trace['policy']}, card set {trace['card_set']}",
           "Setup"]
    hand = None
    for entry in trace["log"]:
        if "check" in entry:
            check = entry["check"]
            out.extend(table_text(check, names, hand))
            hand = check.get("hand", [])
            out.append(f"Turn {check['turn'] + 1}")
        else:
            out.append("  " + decision_text(entry, names))
    if out[-1].startswith("Turn"):
        out.pop()
    r = trace["result"]
    out.append(f"Result: {r['outcome'].upper()} ({r['reason']}) after {r['turns']} turns, "
               f"{r['pacified']} City cards pacified, {r['deck_left']} Dream cards left")
    return "\n".join(out)
