"""How a game went, at a glance: the summary `urbion show` prints after the result.

Everything here is counted from the trace alone, as the reference replayer narrates it
(:func:`analyzer.reference.replay`) and as its checks show the table, so a trace read from
a file is summed up as well as one just played. The summary tells where the Dream deck's
cards ended up (each card once, by the event that discarded it), what the hand did, which
City cards were not pacified and how far from balance, the turn that lost the most Dream
cards, and the figures of the Postcards, the Emptiness, the Books and the team game.
"""

from __future__ import annotations

from collections import Counter

from analyzer.core.codes import Decision
from analyzer.trace.names import ALLY, BOOK_TITLES, CardNames, act_label
from analyzer.wording import plural, spoken_list

#: card types a draw does not bring into the hand: they are resolved at once (R06.2, R07)
CHAOS_TYPES = frozenset({"chaos", "chromatic"})
#: why Dream cards went to the discard pile, as the summary lists them, in its order
DISCARD_WHY = {
    "pacified": "discarded with their City card when it was pacified at a Census",
    "paid": "discarded from the hand for an action",
    "pass": "discarded from the hand for no action",
    "zero_sum": "discarded as zero-sum sets at a Census",
    "chaos_reveal": "discarded by Chaos revealing the top of the Dream deck",
    "chaos_clear": "discarded by Chaos clearing a City card in balance",
    "emptiness": "discarded by the Emptiness from City cards not in balance",
    "invisible": "made invisible by a Book",
    "burnt": "burnt by the Books at setup",
    "no_room": "discarded for want of room (a Chromatic Chaos or the card it revealed)",
}
#: the same, in a few words, for the turn that lost the most
DISCARD_SHORT = {"paid": "paid for an action", "pass": "for no action",
                 "zero_sum": "in zero-sum sets", "chaos_reveal": "by Chaos reveals",
                 "chaos_clear": "by a Chaos clearing",
                 "emptiness": "by the Emptiness", "invisible": "made invisible",
                 "burnt": "burnt by the Books", "no_room": "for want of room"}
#: how a postcard was sent away early with its negative number (R11.4, R11.6-R11.8)
SENT_AWAY = {"discarded": "dream discarded", "rocket": "Resting Rocket's dream moved",
             "flagship": "Flagship found no room", "hourglass": "Hourglass turned a fifth time"}
#: how City cards reached the Success pile
SUCCESS_WAYS = {"pacified": "pacified at a Census",
                "freedom": "pacified by the Book of Freedom-Loving Dreams",
                "bonus_perfect": "Perfect Balance bonus",
                "bonus_emptiness": "brought by the last Emptiness card"}


class GameTally:
    """The counts of one game's summary, fed with the replay's events and checks.

    Parameters
    ----------
    cards : dict
        The trace's cards by id.

    Attributes
    ----------
    why : dict
        Every Dream card discarded, by id: why (a key of ``DISCARD_WHY``).
    lost : dict
        By turn (0 for the setup): the cards discarded other than with a pacified City
        card, counted by why.
    paid, acts : Counter
        Cards paid in Phase I by the action they paid for; actions carried out, a Wizard's
        second one included.
    seen : Counter
        Events counted: City cards ``pacified`` at a Census, by the Book (``freedom``) or
        as a bonus (``bonus_perfect``, ``bonus_emptiness``), ``chaos_reveal``,
        ``chaos_clear``, ``emptiness`` clears and ``balanced`` Emptiness cities, ``wise``
        Chaos used, ``postcards`` dealt, ``swaps`` of polarity.
    drawn, placed, removed : int
        Cards drawn into the hand, placed from it, and put back into the box by polarity
        swaps (R10.4).
    scored : Counter
        Postcards in the Inhabitant pile by (points, why): why is "" for points gained,
        else ``pacified`` (condition not met) or how the postcard was sent away.
    books : list of int
        The Books laid out.
    first, last : dict
        The setup's check and the final one.
    gaps : dict
        Rows pacified that the last check leaves out, by their place in the layout: the
        City card pacified (a game that ended before its census refilled them).
    """

    def __init__(self, cards: dict[int, dict]) -> None:
        self.cards = cards
        self.turn = 0
        self.why: dict[int, str] = {}
        self.lost: dict[int, Counter] = {}
        self.paid: Counter = Counter()
        self.acts: Counter = Counter()
        self.seen: Counter = Counter()
        self.drawn = self.placed = self.removed = 0
        self.scored: Counter = Counter()
        self.books: list[int] = []
        self.first: dict = {}
        self.last: dict = {}
        self.gaps: dict[int, int] = {}

    def observe(self, check: dict) -> None:
        """Keep the setup's check and the latest one.

        Parameters
        ----------
        check : dict
            A check payload, as ``replay``'s ``observe`` receives it.
        """
        self.first = self.first or check
        self.last = check

    def narrate(self, event: str, details: dict) -> None:
        """Count one narrated event; the events nothing here counts are ignored.

        Parameters
        ----------
        event, details
            As ``replay``'s ``narrate`` receives them.
        """
        handler = getattr(self, f"_on_{event}", None)
        if handler is not None:
            handler(details)

    def discarded(self) -> Counter:
        """The Dream cards discarded, by why (the keys of ``DISCARD_WHY``)."""
        return Counter(self.why.values())

    def _discard(self, cards: list[int], why: str) -> None:
        for card in cards:
            self.why[card] = why
        if cards and why != "pacified":
            self.lost.setdefault(self.turn, Counter())[why] += len(cards)

    def _is_chaos(self, card: int) -> bool:
        return self.cards[card]["type"] in CHAOS_TYPES

    def _on_turn(self, details: dict) -> None:
        self.turn = details["turn"]

    def _on_decision(self, details: dict) -> None:
        kind, entry = details["kind"], details["entry"]
        if kind == Decision.ZERO_SUM:
            self._discard(entry or [], "zero_sum")
        elif kind == Decision.BOOK_TARGET and entry.keys() == {"card"}:  # R09.4
            self._discard([entry["card"]], "invisible")
        elif kind in (Decision.CHROMATIC, Decision.REVEALED) and entry.get("discard"):
            self._discard([details["code"][2]], "no_room")
        elif kind == Decision.PHASE1:
            self._phase_one(entry)
        elif kind == Decision.SECOND_ACT and entry is not None:
            self.acts[act_label(entry)] += 1
        elif kind == Decision.SWAP_POLARITY and entry is not None:
            self.removed += len(entry["removed"])
            self.seen["swaps"] += 1

    def _phase_one(self, entry: dict) -> None:
        if entry["do"] == "place":
            self.placed += 1
        elif entry["do"] == "pass":
            self._discard([entry["card"]], "pass")
        else:
            label = act_label(entry["acts"][0])
            self.acts[label] += 1
            self.paid[label] += len(entry["discard"])
            self._discard(entry["discard"], "paid")

    def _on_draw(self, details: dict) -> None:
        self.drawn += not self._is_chaos(details["card"])

    def _on_reveal(self, details: dict) -> None:
        """R06.2c: the revealed cards but Chaos and Chromatic Chaos go, then the Chaos."""
        kept = [card for card in details["revealed"] if not self._is_chaos(card)]
        self._discard(kept + [details["card"]], "chaos_reveal")
        self.seen["chaos_reveal"] += 1

    def _on_clear(self, details: dict) -> None:
        """R06.2b: the balanced city's dreams go, then the Chaos."""
        self._discard(details["dreams"] + [details["card"]], "chaos_clear")
        self.seen["chaos_clear"] += 1

    def _on_pacify(self, details: dict) -> None:
        if details.get("by") == "freedom":  # R09.5: a City card with no dream
            self.seen["freedom"] += 1
        else:
            self._discard(details["dreams"], "pacified")
            self.seen["pacified"] += 1

    def _on_bonus(self, details: dict) -> None:
        self.seen[f"bonus_{details['why']}"] += 1

    def _on_burn(self, details: dict) -> None:
        self._discard(details["burnt"], "burnt")

    def _on_emptiness_check(self, details: dict) -> None:
        if details["result"] == "cleared":
            self._discard(details["dreams"], "emptiness")
            self.seen["emptiness"] += 1
        self.seen["balanced"] += details["result"] == "balanced"

    def _on_wise(self, details: dict) -> None:
        self.seen["wise"] += 1

    def _on_postcard(self, details: dict) -> None:
        self.seen["postcards"] += 1

    def _on_postcard_scored(self, details: dict) -> None:
        why = "" if details["points"] > 0 else details["why"]
        self.scored[details["points"], why] += 1

    def _on_books(self, details: dict) -> None:
        self.books = list(details["kept"])


def _hands(check: dict) -> list[list[int]]:
    return check["hands"] if "hands" in check else [check.get("hand", [])]


def _why_detail(why: str, tally: GameTally) -> str:
    """What a line of the Dream deck's list adds in brackets."""
    count = tally.discarded()[why]
    if why == "pacified":
        return f" ({plural(tally.seen['pacified'], 'City card')})"
    if why == "paid":
        return ": " + ", ".join(f"{label} {n}" for label, n in tally.paid.most_common())
    if why in ("chaos_reveal", "chaos_clear"):
        chaos = tally.seen[why]
        what = ("of the cards they revealed" if why == "chaos_reveal"
                else "dreams of the City cards cleared")
        return f" ({plural(chaos, 'Chaos', 'Chaos')} and {count - chaos} {what})"
    if why == "emptiness":
        return f" ({plural(tally.seen['emptiness'], 'City card')})"
    return ""


def _deck_lines(trace: dict, tally: GameTally) -> list[str]:
    """Where the Dream deck's cards are at the end, each counted once: discarded (by the
    event that discarded it), next to the City cards, in the hand, or, when a draw from
    the empty Dream deck ended the game in the middle of a deal, drawn and not placed (a
    Chaos, Meta or Harmony dealt first waits for its partner, R02.2, R02.4; a Chromatic
    Chaos set aside, R02.5; a Chaos set aside from the opening hand or a Books' burn,
    R03.2, R09.1)."""
    start, left = len(trace["setup"]["dream_deck"]), tally.last["dream_deck"]
    discarded = tally.discarded()
    counts = [(discarded[why], text + _why_detail(why, tally))
              for why, text in DISCARD_WHY.items()]
    table = sum(len(row["L"]) + len(row["R"]) for row in tally.last["rows"])
    hands = _hands(tally.last)
    counts.append((table, "next to the City cards still in the layout"))
    counts.append((sum(map(len, hands)), "in the hand" if len(hands) == 1 else "in the hands"))
    aside = start - left - sum(count for count, _ in counts)
    counts.append((aside, "drawn but not yet placed when the game ended (set aside, or "
                          "waiting for the second card of a deal)"))
    width = len(str(max(count for count, _ in counts)))
    return ([f"  Dream deck: {start} cards at the start, {left} left; where the other "
             f"{start - left} went:"]
            + [f"    {count:>{width}}  {text}" for count, text in counts if count])


def _hand_line(tally: GameTally) -> str:
    """The cards drawn into the hand(s), and what became of them."""
    hands = _hands(tally.last)
    discarded = tally.discarded()["paid"] + tally.discarded()["pass"]
    held = sum(map(len, hands))
    where = "Hand" if len(hands) == 1 else "Hands"
    return (f"  {where}: {plural(tally.drawn, 'Dream card')} drawn into "
            f"{'it' if len(hands) == 1 else 'them'}; {tally.placed} placed next to City "
            f"cards, {discarded} discarded, {held} still held at the end")


def _balance_text(row: dict, names: CardNames) -> str:
    """How far a City card's dreams are from balance (R01.2, R01.3)."""
    dreams = len(row["L"]) + len(row["R"])
    if not dreams:
        return "no dream next to it"
    total = names.row_total(row)
    if total == 0:
        return f"{plural(dreams, 'dream')}, in balance"
    short = "Incubi" if total > 0 else "Sognae"
    return (f"{plural(dreams, 'dream')}, influences sum to {total:+d}: the {short} side is "
            f"{abs(total)} short")


def row_numbers(n_rows: int, gaps: dict[int, int]) -> list[int]:
    """The row number in the layout of each of a check's ``n_rows`` rows, which leaves out
    the pacified rows ``gaps`` (their numbers) that no City card refilled yet."""
    numbers = [r for r in range(n_rows + len(gaps)) if r not in gaps]
    return numbers[:n_rows]


def _city_lines(tally: GameTally, names: CardNames) -> list[str]:
    """How many City cards reached the Success pile and how; each one not pacified in the
    layout, with how far it is from balance, and those never drawn from the City deck."""
    last, total = tally.last, names.n_cities
    ways = ", ".join(f"{tally.seen[way]} {text}" for way, text in SUCCESS_WAYS.items()
                     if tally.seen[way])
    success = f"{last['success']} of {total}" if last["success"] < total else f"all {total}"
    lines = [f"  City cards: {success} in the Success pile" + (f" ({ways})" if ways else "")]
    if last["success"] == total:
        return lines
    lines[0] += "; not pacified:"
    at = last.get("emptiness", {}).get("at")
    numbers = row_numbers(len(last["rows"]), tally.gaps)
    lines += [f"    row {numbers[r]} {names.name(row['city'])}: {_balance_text(row, names)}"
              + ("; the Emptiness stands on it" if r == at else "")
              for r, row in enumerate(last["rows"])]
    in_deck = names.city_deck_left(last)
    if in_deck:
        lines.append(f"    {in_deck} still in the City deck")
    return lines


def _lost_line(tally: GameTally) -> list[str]:
    """The turn (the earliest of equals, the others named after it) whose discards, other
    than with a pacified City card, took the most Dream cards."""
    if not tally.lost:
        return []
    turn, whys = max(tally.lost.items(), key=lambda item: (sum(item[1].values()), -item[0]))
    most = sum(whys.values())
    when = "at setup" if turn == 0 else f"on turn {turn}"
    parts = ", ".join(f"{whys[why]} {short}" for why, short in DISCARD_SHORT.items()
                      if whys[why])
    tied = sorted(t for t, w in tally.lost.items() if t != turn and sum(w.values()) == most)
    also = "" if not tied else \
        f"; as many on turn{'s' if len(tied) > 1 else ''} {spoken_list([str(t) for t in tied])}"
    return [f"  Most Dream cards lost in one turn (discarded, not with a pacified City "
            f"card): {most} {when} ({parts}){also}"]


def _postcard_line(tally: GameTally) -> str:
    """The Inhabitant pile's sum, its +1 and -2 cards and why each -2 went there (R11)."""
    points: Counter = Counter()
    reasons: Counter = Counter()
    for (score, why), count in tally.scored.items():
        points[score] += count
        reasons[why] += count
    piled = ", ".join(f"{count} at {score:+d}" for score, count in sorted(points.items(),
                                                                         reverse=True))
    why = [f"{reasons['pacified']} condition not met"] if reasons["pacified"] else []
    why += [f"{reasons[key]} {text}" for key, text in SENT_AWAY.items() if reasons[key]]
    lying = tally.seen["postcards"] - sum(points.values())
    undealt = sum(1 for c in tally.cards.values() if c["type"] == "postcard") - \
        tally.seen["postcards"]
    pile = f": {piled}" + (f" ({', '.join(why)})" if why else "") if piled else ", empty"
    return (f"  Postcards: the Inhabitant pile sums to {tally.last['inhabitants']:+d}{pile}; "
            f"{lying} still on dreams, {undealt} never dealt; Wise Chaos used: "
            f"{tally.seen['wise']} of {tally.first['wise_chaos']}")


def _emptiness_line(tally: GameTally, names: CardNames) -> str:
    """The Emptiness cards left and how the others went back into the box (R12.2, R12.3)."""
    cards = sum(1 for c in names.cards.values() if c["type"] == "emptiness")
    return (f"  Emptiness: {tally.last['emptiness']['cards']} of {cards} Emptiness cards "
            f"left; {tally.seen['balanced']} went back into the box at a Census on a City "
            f"card in balance, {tally.acts[ALLY]} by an {ALLY}")


def _books_line(tally: GameTally, names: CardNames) -> str:
    """The Books laid out and the Book actions carried out (R09)."""
    kinds = [names.cards[book]["kind"] for book in tally.books]
    kept = ", ".join(BOOK_TITLES.get(kind, kind) for kind in kinds)
    used = ", ".join(f"{label[len('Book of '):]} {count}" for label, count
                     in tally.acts.most_common() if label.startswith("Book of "))
    return f"  Books laid out: {kept or 'none'}; Book actions: {used or 'none'}"


def summary_lines(trace: dict, tally: GameTally, names: CardNames) -> list[str]:
    """The summary the result line is followed by: "How the game went".

    Parameters
    ----------
    trace : dict
        The ``urbion-trace/1`` trace: its setup's Dream deck and its expansions.
    tally : GameTally
        The counts of the trace's replay, finished.
    names : CardNames
        The trace's cards.

    Returns
    -------
    list of str
        The lines: the Dream deck's cards by where they went, the hand, the City cards
        not pacified, the turn that lost the most Dream cards, then the Postcards, the
        Emptiness, the Books and the polarity swaps where in play.
    """
    lines = ["How the game went", *_deck_lines(trace, tally), _hand_line(tally),
             *_city_lines(tally, names), *_lost_line(tally)]
    expansions = trace.get("expansions", [])
    if "postcards" in expansions:
        lines.append(_postcard_line(tally))
    if "emptiness" in expansions:
        lines.append(_emptiness_line(tally, names))
    if "books" in expansions:
        lines.append(_books_line(tally, names))
    if tally.seen["swaps"]:
        lines.append(f"  Polarity swaps: {tally.seen['swaps']}, putting {tally.removed} "
                     "discarded cards back into the box")
    return lines
