"""A trace as text a player can follow, turn by turn, then how the game went.

The trace is replayed by the reference replayer, which narrates every decision, draw, deal,
reveal and pacification in game order; the table is printed at the end of each turn. With
the later expansions the text also tells the Books kept and used (R09), the postcards
(dealt, scored or sent away) and the Wise Chaos (R11), the Emptiness figure and cards (R12),
and in the team game the seats and the polarity (R10).
"""

from __future__ import annotations

from analyzer.core.codes import Act, Decision
from analyzer.reference import replay
from analyzer.reference.engine import HOURGLASS_TURNS
from analyzer.reference.replay import with_reserved_id_renamed
from analyzer.trace.names import CardNames, act_label
from analyzer.trace.summary import GameTally, row_numbers, summary_lines
from analyzer.wording import plural, shown_as_written

ACT_NAMES = {Act.PASS: "none", Act.CENSUS: "Census", Act.EXCHANGE: "Exchange"}
SENT_AWAY_WHY = {"discarded": "its dream is discarded", "rocket": "its dream moved",
                 "flagship": "no room in the next row", "hourglass": "turned a fifth time"}
#: the postcards with a special rule instead of a condition: +1 when their city is pacified
SPECIAL_RULE_KINDS = frozenset({"hourglass", "flagship", "rocket"})
POLARITY_NAMES = ("Sognae", "Incubi")
#: how to read a table row (CardNames.short)
TABLE_KEY = ("Table rows: L the Sognae side, R the Incubi side; each dream as its influence "
             "there and its element's initial (earth, water, fire, air); C Chaos, "
             "X Chromatic Chaos, M Meta, H Harmony, W Wizard")
#: how the cards and the citations read, under TABLE_KEY
NAMES_KEY = ("Cards: each named by its kind and its id after # (Chromatic#98 is a Chromatic "
             "Chaos); R02.5 and the like cite the rulings that settle what the rulebook "
             "leaves open (RULINGS.md, beside the rulebook)")
#: how the team game reads (R10), under TABLE_KEY
TEAM_KEY = ("Team game: the seat holding the Sognae polarity places dreams on left sides "
            "only, the other on right sides (Metas, Harmony and Wizards too); either may "
            "discard any card for an action; before its Phase I, with 8 or more cards in the "
            "discard pile, a seat may put 8 of them in the box and swap polarities (R10)")
#: why a game ended, by the result's ``reason`` (R13)
REASON_TEXTS = {"all_pacified": "every City card is in the Success pile",
                "deck_empty": "a card had to be drawn from the empty Dream deck",
                "emptiness": "the Emptiness stood on a city without a dream at a census",
                "inhabitants": "every City card is pacified, but the Inhabitant pile sums "
                               "below 0"}


def _where(entry: dict) -> str:
    return f"row {entry['row']}, side {entry['side']}"


def _act_title(act: dict) -> str:
    """How the first act of an act entry is named after "discard ... for"."""
    return f"the {act_label(act)}" if "book" in act else act_label(act)


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
        return f"discard {names.names(entry['discard'])} for {_act_title(entry['acts'][0])}"
    if do == "swap_polarity":
        return (f"the seats swap polarities: {names.names(entry['removed'])} go from the "
                "discard pile back into the box")
    if do == "side":
        if card >= 0:
            role = "a Sognae" if entry["side"] == "L" else "an Incubi"
            return f"{names.name(card)} is dealt as {role}, to side {entry['side']}"
        row = f" to row {code[1]}" if code is not None else ""
        return f"the two Chaos dealt together{row} go to side {entry['side']}"
    if do in ("chromatic", "revealed"):
        what = names.name(card) if card >= 0 else f"the {do} card"
    if do == "chromatic":
        if entry.get("wise"):
            return ""  # told by the wise event
        if entry.get("discard"):
            return f"  no side has room: {what} is discarded"
        return f"  {what} goes to {_where(entry)}"
    if do == "revealed":
        if entry.get("discard"):
            return f"  {what} cannot be placed anywhere: discarded"
        return f"  {what} goes to {_where(entry)}"
    how = entry.get("how")
    # the option's code names the Chaos (docs/engine.md): after a chain of reveals, which
    # one goes where
    chaos = names.name(code[3]) if code is not None and code[3] >= 0 else "the Chaos"
    if how == "place":
        return f"  {chaos} goes to the more influential side of row {entry['row']}"
    if how == "clear":
        return f"  {chaos} clears the balanced city in row {entry['row']}"
    if how == "aside":
        return f"  no city can take {chaos}: set aside"
    return ""  # a reveal or a Wise Chaos is told by its own event


def _book_target_text(entry: dict, code: tuple, names: CardNames) -> str:
    """The target of a Flying, Invisible or Freedom-Loving Dreams Book (R09.3-R09.5)."""
    if "card" in entry and "row" in entry:
        return (f"  the Book flies {names.name(entry['card'])} from row {code[1]} to row "
                f"{code[2]}, side {'LR'[code[3]]}")
    if "card" in entry:
        return f"  the Book makes {names.name(entry['card'])} in row {code[1]} invisible: discarded"
    return f"  the Book frees the dreamless city in row {entry['row']}"


def _decision_event(details: dict, names: CardNames) -> str | None:
    kind, entry, code = details["kind"], details["entry"], details.get("code")
    if kind == Decision.ZERO_SUM:
        return f"  zero-sum discard from row {code[1]}: {names.names(entry)}" if entry else None
    if kind == Decision.EXCHANGE_PAIR:
        return None  # told by the exchange event, which names the rows
    if kind == Decision.SECOND_ACT:
        if entry is None:
            return "  the Wizard's second action: none"
        if code[0] == Act.BOOK:
            return f"  the Wizard's second action: {_act_title(entry)}"
        return f"  the Wizard's second action: {ACT_NAMES[code[0]]}"
    if kind == Decision.REBUILD_ROWS:
        return f"  rebuild: the City cards of rows {entry[0]} and {entry[1]} swap places"
    if kind == Decision.CHANGE_SIDES_CARD:
        card, row, side = code[0], code[1], code[2]
        return (f"  change sides: {names.name(card)} in row {row} moves from side "
                f"{'LR'[side]} to side {'RL'[side]}, its influence turned over")
    if kind == Decision.BOOK_TARGET:
        return _book_target_text(entry, code, names)
    if kind == Decision.PROPHECY_ORDER:
        return _prophecy_text(entry["order"], details.get("seen"), names)
    if kind in (Decision.BOOKS, Decision.SWAP_POLARITY) and not isinstance(entry, dict):
        return None  # the Books step is told by its books event; a kept polarity is silent
    text = decision_text(entry, names, code)
    return f"  {text}" if text else None


def _prophecy_text(order: list[int], seen: list[int] | None, names: CardNames) -> str:
    """The Book of Prophecies (R09.7): the top Dream cards ``seen``, and the ``order`` they
    are put back in."""
    if not order:
        return "  Prophecies: the Dream deck is empty, nothing to see"
    if seen is None:  # a view that was not told what was seen
        return f"  Prophecies: the top Dream cards now read {names.names(order)}"
    top = "the top Dream card reads" if len(order) == 1 else "the top Dream cards read"
    if list(seen) == list(order):
        return f"  Prophecies: {top} {names.names(order)}, left so"
    return f"  Prophecies: {top} {names.names(seen)}, put back as {names.names(order)}"


def _postcard_text(details: dict, names: CardNames) -> str:
    postcard, card, points = details["postcard"], details["card"], details["points"]
    what = f"{names.name(postcard)} on {names.name(card)}"
    if details["why"] == "pacified":
        kind = names.cards[postcard]["kind"]
        if kind in SPECIAL_RULE_KINDS:
            why = "its city is pacified"
        else:
            why = "condition met" if points > 0 else "condition not met"
        return f"  {what} goes to the Inhabitant pile ({why}): {points:+d}"
    return f"  {what} is sent away ({SENT_AWAY_WHY[details['why']]}): {points:+d}"


def _emptiness_text(event: str, details: dict, names: CardNames) -> str:
    if event == "emptiness":
        if details["row"] < 0:
            return "  the Emptiness figure stands on its pile"
        return f"  the Emptiness moves to row {details['row']} ({names.name(details['city'])})"
    if event == "emptiness_card":
        if details["left"] == 0:
            return ("  the last Emptiness card goes back into the box, and the figure with "
                    "it")
        figure = "lies flat on" if details["flat"] else "stands on"
        return (f"  an Emptiness card goes back into the box ({details['left']} left); the "
                f"figure {figure} the pile")
    where = f"the Emptiness city in row {details['row']}"
    return {"balanced": f"  {where} is balanced: not pacified",
            "cleared": f"  {where} is not balanced: its dreams are discarded",
            "empty": f"  {where} has no dream: the game is lost"}[details["result"]]


def _deck_empty_text(details: dict, names: CardNames) -> str:
    """A draw from the empty Dream deck, which loses (R13.2): while dealing a row (its
    ``row`` and the card ``dealt`` to it so far), or into the hand."""
    if "row" not in details:
        return "  a Dream card is to be drawn, but the Dream deck is empty"
    dealt = details["dealt"]
    if not dealt:
        return (f"  row {details['row']} is to be dealt 2 Dream cards, but the Dream deck is "
                "empty")
    if details.get("waits"):  # a Chaos, Meta or Harmony takes its side with the second
        return (f"  {names.name(dealt[0])} is drawn for row {details['row']}, its side "
                "waiting for the second card, but the Dream deck is empty")
    return (f"  row {details['row']} is dealt {names.name(dealt[0])}, but the Dream deck is "
            "empty before its second card")


def _moved_up(details: dict) -> str:
    """Where a row a census refills or removes stands by then, when a row removed above
    moved it up: its lines name it as the census numbered it."""
    was, row = details.get("was", details["row"]), details["row"]
    return "" if was == row else f" (row {row} by then, a row above gone)"


def event_text(event: str, details: dict, names: CardNames,
               team: bool = False) -> str | None:
    """One narrated event as a line, or None for events told elsewhere; in the ``team``
    game a draw names the seat drawing."""
    if event == "decision":
        return _decision_event(details, names)
    if event == "draw":
        seat = details.get("seat")
        return f"  draw {names.name(details['card'])}" + (
            f" (seat {seat})" if team and seat is not None else "")
    if event == "hold":
        return (f"  {names.name(details['card'])} is set aside until the setup or census is "
                "done, a replacement drawn; then it is resolved (R02.5)")
    if event == "shuffled_back":  # the hand is full: R03.2
        cards = details["cards"]
        return (f"  {names.names(cards)} {'is' if len(cards) == 1 else 'are'} shuffled back "
                "into the Dream deck, the hand holding 4 cards (R03.2)")
    if event == "deal":  # the city named: the setup's table comes after every deal
        city = f" ({names.name(details['city'])})" if "city" in details else ""
        return f"  row {details['row']}{city} is dealt {names.names(details['cards'])}"
    if event == "reveal":
        if not details["revealed"]:
            return f"  {names.name(details['card'])} reveals nothing: the Dream deck is empty"
        chaos = names.name(details["card"])
        return (f"  {chaos} reveals {names.names(details['revealed'])}; the cards among them "
                "other than Chaos and Chromatic Chaos are discarded, the others resolved in "
                f"turn, then {chaos} is discarded")
    if event == "clear":  # R06.2 b
        return (f"    {names.names(details['dreams'])} go to the discard pile, then "
                f"{names.name(details['card'])}")
    if event == "exchange":
        (a, b), (row_a, row_b) = details["cards"], details["rows"]
        return (f"  exchange {names.name(a)} (row {row_a}) <-> {names.name(b)} "
                f"(row {row_b})")
    if event == "element_ignored":  # R07.2
        if not details.get("shown", True):  # else a player looks for a full city of it
            return "    no city in the layout shows its element: it is placed ignoring it"
        side = "LR"[details["side"]]
        return (f"    no city showing its element has room on side {side}: it is placed "
                "ignoring the element")
    if event == "deck_empty":  # R13.2
        return _deck_empty_text(details, names)
    if event == "chromatic_reveal":
        # named: in a chain of Chromatic Chaos, which one reveals what
        if details["revealed"] is None:  # the trace has no entry for it
            return (f"  {names.name(details['card'])} reveals nothing: the Dream deck is "
                    "empty")
        return f"  {names.name(details['card'])} reveals {names.name(details['revealed'])}"
    if event == "pacify":
        if details.get("by") == "freedom":  # no dream, so not balanced (R01.3, R09.5)
            return (f"  row {details['row']} has no dream: {names.name(details['city'])} "
                    "pacified by the Book")
        return f"  row {details['row']} is balanced: {names.name(details['city'])} pacified"
    if event == "bonus":
        if details.get("why") == "emptiness":
            return (f"  the last Emptiness card brings {names.name(details['city'])} to the "
                    "Success pile")
        return f"  Perfect Balance: {names.name(details['city'])} joins the Success pile"
    if event == "new_city":
        return f"  row {details.get('was', details['row'])}{_moved_up(details)} takes " \
            f"{names.name(details['city'])}"
    if event == "row_removed":
        city = details.get("pacified")
        return (f"  row {details.get('was', details['row'])}"
                f"{'' if city is None else f' ({names.name(city)} pacified)'} is removed"
                f"{_moved_up(details)}: the City deck is empty (R01.5); any rows below it "
                "move up")
    return _expansion_event_text(event, details, names)


def _expansion_event_text(event: str, details: dict, names: CardNames) -> str | None:
    """:func:`event_text` of the expansions' own events (Books, postcards, Wise Chaos, the
    Emptiness), or None for an event told elsewhere."""
    if event == "books":
        kept = details["kept"]
        return f"  Books laid out: {names.names(kept)}" if kept else "  no Book is laid out"
    if event == "burn":  # R09.1
        burnt, back = details["burnt"], details["back"]
        text = (f"  the Books burn {len(burnt) + len(back)} Dream cards: "
                f"{names.names(burnt) or 'none'} discarded")
        if back:
            text += (f"; {names.names(back)} {'is' if len(back) == 1 else 'are'} shuffled "
                     "back into the Dream deck")
        return text
    if event == "postcard":
        return (f"  {names.name(details['postcard'])} is dealt on "
                f"{names.name(details['card'])} in row {details['row']}")
    if event == "postcard_scored":
        return _postcard_text(details, names)
    if event == "hourglass_turned":  # R11.6: sent away at the end of turn after the last
        return (f"  {names.name(details['postcard'])} on {names.name(details['card'])} is "
                f"turned ({details['turns']} of {HOURGLASS_TURNS} turns)")
    if event == "flagship_stays":
        return (f"  {names.name(details['postcard'])} on {names.name(details['card'])} "
                "stays: one city is left")
    if event == "flagship":
        return (f"  {names.name(details['postcard'])} sails {names.name(details['card'])} "
                f"from row {details['from']} to row {details['to']}")
    if event == "wise":
        return (f"  a Wise Chaos puts {names.name(details['card'])} back {_wise_place(details)} "
                f"({details['left']} Wise Chaos left)")
    if event in ("emptiness", "emptiness_check", "emptiness_card"):
        return _emptiness_text(event, details, names)
    return None


def _hand_lines(check: dict, names: CardNames) -> list[str]:
    if "hands" not in check:
        return [f"    hand: {names.names(check.get('hand', []))}"]
    return [f"    hand of seat {seat} ({POLARITY_NAMES[seat != check['polarity']]}): "
            f"{names.names(hand)}" for seat, hand in enumerate(check["hands"])]


def _counters(check: dict, city_deck: int | None = None,
              numbers: list[int] | None = None) -> str:
    """The counters line of a check; ``numbers``, each check row's number in the layout
    (:func:`row_numbers`), names the Emptiness city's row."""
    text = (f"    Dream deck {check['dream_deck']}, "
            + (f"City deck {city_deck}, " if city_deck is not None else "")
            + f"Success {check['success']}, discard {check['discard']}")
    if "inhabitants" in check:
        text += f", inhabitants {check['inhabitants']:+d}, Wise Chaos {check['wise_chaos']}"
    if "emptiness" in check:
        empt = check["emptiness"]
        if empt["cards"] == 0:
            where = "gone"
        elif empt["at"] is not None:
            where = f"on row {empt['at'] if numbers is None else numbers[empt['at']]}"
        else:
            where = "lying flat on the pile" if empt["flat"] else "on the pile"
        text += f", Emptiness cards {empt['cards']} (figure {where})"
    return text


def table_text(check: dict, names: CardNames, postcards: dict[int, int] | None = None,
               books: list[int] | None = None, gaps: dict[int, int] | None = None
               ) -> list[str]:
    """The rows, hand(s) and counters of a check entry; the postcards on the dreams and the
    Books laid out when given; ``gaps``, the rows pacified that the check leaves out (by
    their place in the layout: the City card), each in its place."""
    lines = []
    gaps = gaps or {}
    at = check.get("emptiness", {}).get("at")
    numbers = row_numbers(len(check["rows"]), gaps)
    shown = sorted([(numbers[r], r) for r in range(len(numbers))] +
                   [(r, None) for r in gaps])
    for number, r in shown:
        if r is None:
            lines.append(f"    row {number}: {names.name(gaps[number])} pacified; the game "
                         "ended before the row was refilled")
            continue
        row = check["rows"][r]
        total = names.row_total(row)
        mark = "  balanced" if total == 0 and (row["L"] or row["R"]) else ""
        mark += "  <- the Emptiness" if at == r else ""
        lines.append(
            f"    row {number}: {names.name(row['city']):<26} "
            f"L [{' '.join(names.short(c, 'L') for c in row['L']):<14}] "
            f"R [{' '.join(names.short(c, 'R') for c in row['R']):<14}] "
            f"total {total:+d}{mark}"
        )
    if postcards:
        lying = [f"{names.name(postcards[c])} on {names.name(c)} in row {numbers[r]}"
                 for r, row in enumerate(check["rows"]) for c in row["L"] + row["R"]
                 if c in postcards]
        if lying:
            lines.append(f"    postcards: {'; '.join(lying)}")
    if books:
        lines.append(f"    Books: {names.names(books)}")
    lines.extend(_hand_lines(check, names))
    lines.append(_counters(check, names.city_deck_left(check), numbers))
    return lines


#: Keys this package's traces add to a header (TRACE.md allows added keys), as ``show``
#: names them.
MADE_BY = (("engine", "engine"), ("rules_version", "rules"), ("package_version", "urbion"),
           ("commit", "commit"), ("policy_params_sha256", "policy parameters sha256"),
           ("policy_source_sha256", "policy source sha256"))


def _made_by(trace: dict) -> list[str]:
    """A line naming what wrote the trace, from the keys of :data:`MADE_BY` it holds (none
    for a trace of another program); hashes cut to 12 characters."""
    parts = []
    for key, name in MADE_BY:
        value = trace.get(key)
        if isinstance(value, str) and value:
            value = value[:12] if key.endswith("sha256") else value
            parts.append(f"{name} {shown_as_written(value)}")
    return [f"Made by: {', '.join(parts)}"] if parts else []


def render_trace(trace: dict) -> str:
    """The whole game as text: the setup, every turn, the result and how the game went
    (:mod:`analyzer.trace.summary`)."""
    trace, alias = with_reserved_id_renamed(trace)  # the ids the replay tells of
    narrator = Narrator(trace, _heading(trace, alias))
    replay(trace, observe=narrator.observe, narrate=narrator.narrate)
    return narrator.text(trace)


def _heading(trace: dict, alias: int | None) -> list[str]:
    """The lines before the setup: the game, who played it, the table's key."""
    expansions = ", ".join(trace.get("expansions", [])) or "none"
    variant = trace.get("variant", "solo")
    digest = trace.get("card_set_sha256")  # ours write it; TRACE.md does not require it
    card_set = trace["card_set"] + (f" (sha256 {shown_as_written(digest[:12])})"
                                    if isinstance(digest, str) else "")
    return [shown_as_written(f"Urbion {variant} game {trace['game']} of seed {trace['seed']}, "
                             f"policy {trace['policy']}, card set {card_set}, expansions: "
                             f"{expansions}"),
            *_made_by(trace), TABLE_KEY, NAMES_KEY, *([TEAM_KEY] if variant == "team" else []),
            *([f"Card -1 of the trace is shown as card {alias}."] if alias is not None
              else []),
            "Setup"]


class Narrator:
    """The game text as the replay tells it: a line per event, the table at each check,
    and what the text keeps from one to the next (the postcards and Books on the table, the
    team turn's header line, the rows a refill renumbers)."""

    def __init__(self, trace: dict, heading: list[str]) -> None:
        self.out = heading
        self.names = CardNames(trace["cards"])
        self.team = trace.get("variant", "solo") == "team"
        self.tally = GameTally(self.names.cards)
        self.postcards: dict[int, int] = {}
        self.books: list[int] = []
        self.header: dict[str, int] = {}  # where the team turn's header is, its seats
        # a refill numbers rows as they stand after the rows removed above (R01.5); shown
        # as the census numbered them, with the city pacified in a row removed
        self.pacified: dict[int, int] = {}
        self.removed = 0
        # rows pacified and not yet refilled or removed, which a check leaves out: only a
        # game that ended in the middle of a census has them at its last check
        self.unfilled: dict[int, int] = {}
        self.seen: list[int] | None = None  # the cards a Book of Prophecies shows

    def observe(self, check: dict) -> None:
        self.tally.observe(check)
        # a won game's last check has no row left: nothing to place the gaps between
        self.tally.gaps = self.unfilled if check["rows"] else {}
        self.unfilled = {}
        self.out.extend(table_text(check, self.names, self.postcards, self.books,
                                   self.tally.gaps))
        self.out.append(f"Turn {check['turn'] + 1}")

    def narrate(self, event: str, details: dict) -> None:
        self.tally.narrate(event, details)
        self._keep(event, details)
        if event in ("new_city", "row_removed"):
            was = details["row"] + self.removed
            details = {**details, "was": was, "pacified": self.pacified.get(was)}
            self.removed += event == "row_removed"
            self.unfilled.pop(was, None)
        else:
            self.removed = 0
        if event == "pacify":
            self.pacified[details["row"]] = details["city"]
            self.unfilled[details["row"]] = details["city"]
        if event == "prophecy_seen":
            self.seen = details["cards"]
        elif event == "decision" and details["kind"] == Decision.PROPHECY_ORDER:
            details = {**details, "seen": self.seen}
        line = event_text(event, details, self.names, team=self.team)
        if line:
            self.out.append(line)

    def _keep(self, event: str, details: dict) -> None:
        """What later lines need of an event: the cards on the table, the seat's line."""
        if event == "postcard":
            self.postcards[details["card"]] = details["postcard"]
        elif event == "postcard_scored":
            self.postcards.pop(details["card"], None)
        elif event == "books":
            self.books.extend(details["kept"])
        elif event == "turn" and self.team:
            self.header.update(line=len(self.out), seat=details["seat"],
                               sognae=details["polarity"])
            self.out.append(self._seat_line())
        elif event == "decision" and isinstance(details["entry"], dict) and \
                details["entry"].get("do") == "swap_polarity":
            # the swap comes before Phase I (R10): the seat plays this turn swapped
            self.header["sognae"] = 1 - self.header["sognae"]
            self.out[self.header["line"]] = self._seat_line(swapped=True)
        elif event == "decision" and details["kind"] == Decision.SWAP_POLARITY:
            # a swap the seat could have made: the discard pile is as the last check left it
            self.out.append(f"  polarities kept (a swap was possible: "
                            f"{self.tally.last['discard']} cards in the discard pile)")

    def _seat_line(self, swapped: bool = False) -> str:
        polarity = POLARITY_NAMES[self.header["seat"] != self.header["sognae"]]
        return (f"  seat {self.header['seat']} plays ({polarity} polarity"
                f"{' after the swap below' if swapped else ''})")

    def text(self, trace: dict) -> str:
        """The text so far, ended: the result and how the game went."""
        self.out.pop()  # no turn follows the final check
        self.out.append(result_text(trace["result"], self.tally.last))
        self.out.extend(summary_lines(trace, self.tally, self.names))
        return "\n".join(self.out)


def _wise_place(details: dict) -> str:
    """Where a Wise Chaos put its card back (R11.3): below the top 3 Dream cards, or at the
    bottom of a deck of 3 or fewer."""
    depth = details["depth"]
    if not details["bottom"]:
        return f"below the top {depth} Dream cards"
    if depth == 0:
        return "as the only Dream card"
    return f"at the bottom of the Dream deck, below its {depth} card{'s' if depth > 1 else ''}"


def result_text(result: dict, check: dict) -> str:
    """The result line: outcome, why the game ended and, with the postcards, the
    Inhabitant pile's sum at the final ``check`` (R11.9, R13)."""
    why = REASON_TEXTS.get(result["reason"])
    reason = f"{result['reason']}: {why}" if why else result["reason"]
    text = (f"Result: {result['outcome'].upper()} ({reason}) after "
            f"{plural(result['turns'], 'turn')}, {plural(result['pacified'], 'City card')} "
            f"pacified, {plural(result['deck_left'], 'Dream card')} left")
    if "inhabitants" in check:
        text += f", inhabitants {check['inhabitants']:+d}"
    return text
