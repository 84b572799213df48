"""`urbion show`'s "How the game went": every figure is checked against facts read from
the trace itself (its setup, log entries, checks and result), never against the
summary's own figures."""

from __future__ import annotations

import re

import pytest

import analyzer
from analyzer.trace.show import render_trace

#: (expansions, variant, policy, seed): sets whose games the general checks read
CONFIGS = [("none", "solo", "greedy", 1), ("none", "solo", "random", 4),
           ("postcards", "solo", "greedy", 11), ("emptiness", "solo", "random", 3),
           ("books", "solo", "random", 11), ("all", "solo", "random", 5),
           ("all", "team", "greedy", 4)]
GAMES = 8
LEDGER = re.compile(r"^    +(\d+)  (.*)$", re.M)
DISCARDS = ("discarded ", "burnt ", "made invisible ")


@pytest.fixture(scope="module")
def games() -> list[tuple[dict, str]]:
    """(trace, summary) of the first games of every set of ``CONFIGS``."""
    out = []
    for expansions, variant, policy, seed in CONFIGS:
        for trace in analyzer.trace(seed=seed, game=0, games=GAMES, policy=policy,
                                    expansions=expansions, variant=variant):
            out.append((trace, summary(render_trace(trace))))
    return out


def summary(text: str) -> str:
    """The summary: what follows the result line."""
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("Result: "))
    assert lines[at + 1] == "How the game went"
    return "\n".join(lines[at + 2:])


def ledger(text: str) -> tuple[tuple[int, int, int], list[tuple[int, str]]]:
    """(start, left, the others) of the Dream deck's line, and its (count, where) lines."""
    head = re.search(r"^  Dream deck: (\d+) cards at the start, (\d+) left; where the "
                     r"other (\d+) went:$", text, re.M)
    body = text[head.end():text.index("\n  Hand")]
    return (tuple(int(n) for n in head.groups()),
            [(int(n), where) for n, where in LEDGER.findall(body)])


def checks(trace: dict) -> list[dict]:
    return [entry["check"] for entry in trace["log"] if "check" in entry]


def held(check: dict) -> int:
    """Cards in the hand or hands at a check."""
    return sum(map(len, check["hands"])) if "hands" in check else len(check["hand"])


def on_table(check: dict) -> int:
    return sum(len(row["L"]) + len(row["R"]) for row in check["rows"])


def of_log(trace: dict, do: str) -> list[dict]:
    return [entry for entry in trace["log"] if entry.get("do") == do]


def test_the_dream_decks_destinations_add_up_to_the_cards_that_left_it(games):
    """Deck size at setup minus the cards left is the sum of the list; its discards are
    the final discard pile and the cards polarity swaps put back into the box (R10.4); the
    table and the hand are the final check's."""
    for trace, text in games:
        (start, left, others), lines = ledger(text)
        last = checks(trace)[-1]
        assert start == len(trace["setup"]["dream_deck"])
        assert left == trace["result"]["deck_left"] == last["dream_deck"]
        assert others == start - left == sum(n for n, _ in lines)
        removed = sum(len(entry["removed"]) for entry in of_log(trace, "swap_polarity"))
        assert sum(n for n, where in lines if where.startswith(DISCARDS)) == \
            last["discard"] + removed
        assert dict((where, n) for n, where in lines).get(
            "next to the City cards still in the layout", 0) == on_table(last)
        assert sum(n for n, where in lines if where in ("in the hand", "in the hands")) == \
            held(last)


def test_the_hand_line_agrees_with_the_log(games):
    """Drawn = placed + discarded + held; placed and discarded are the log's Phase I
    entries (R04), held the final check's hand."""
    for trace, text in games:
        drawn, placed, discarded, kept = map(int, re.search(
            r"^  Hands?: (\d+) Dream cards? drawn into (?:it|them); (\d+) placed next to "
            r"City cards, (\d+) discarded, (\d+) still held at the end$", text, re.M).groups())
        assert drawn == placed + discarded + kept
        assert placed == len(of_log(trace, "place"))
        assert discarded == len(of_log(trace, "pass")) + sum(
            len(entry["discard"]) for entry in of_log(trace, "act"))
        assert kept == held(checks(trace)[-1])


def test_the_city_cards_not_pacified_are_the_final_layout_and_the_city_deck(games):
    for trace, text in games:
        last = checks(trace)[-1]
        cities = sum(1 for card in trace["cards"] if card["type"] == "city")
        head = re.search(r"^  City cards: (all (\d+)|(\d+) of (\d+)) in the Success pile",
                         text, re.M)
        if head.group(2):
            assert int(head.group(2)) == cities == last["success"]
            assert "not pacified" not in text
            continue
        assert (int(head.group(3)), int(head.group(4))) == (last["success"], cities)
        rows = re.findall(r"^    row (\d) [^#]+#(\d+)", text, re.M)
        assert [(int(r), int(city)) for r, city in rows] == \
            [(r, row["city"]) for r, row in enumerate(last["rows"])]
        deck = re.search(r"^    (\d+) still in the City deck$", text, re.M)
        assert (int(deck.group(1)) if deck else 0) == \
            cities - last["success"] - len(last["rows"])


def pacified_and_lost_by_turn(trace: dict) -> tuple[int, int, dict[int, int]]:
    """Base solo game, from the checks alone: the City cards pacified at a Census, the
    dreams they took to the discard pile, and by turn the cards discarded otherwise.

    A Census is the turn's Phase I, so it meets the layout of the previous check; a City
    card gone from the layout by the next check was pacified (R05.3), and the growth of
    the discard pile less its dreams is what the turn lost.
    """
    cities = dreams = 0
    lost = {}
    seen = checks(trace)
    for before, after in zip(seen, seen[1:], strict=False):
        gone = {row["city"] for row in before["rows"]} - {row["city"] for row in after["rows"]}
        with_city = sum(len(row["L"]) + len(row["R"]) for row in before["rows"]
                        if row["city"] in gone)
        cities, dreams = cities + len(gone), dreams + with_city
        lost[after["turn"]] = after["discard"] - before["discard"] - with_city
    return cities, dreams, lost


@pytest.mark.parametrize("game", range(12))
def test_R05_3_pacified_dreams_and_the_turn_that_lost_most_match_the_checks(game):
    trace = analyzer.trace(seed=1, game=game)[0]
    text = summary(render_trace(trace))
    cities, dreams, lost = pacified_and_lost_by_turn(trace)
    _, lines = ledger(text)
    assert (dreams, f"discarded with their City card when it was pacified at a Census "
            f"({cities} City card{'s' if cities != 1 else ''})") in lines
    most = max(lost.values())
    turns = sorted(t for t, n in lost.items() if n == most)
    line = re.search(rf"^  Most Dream cards lost in one turn \(discarded, not with a "
                     rf"pacified City card\): {most} on turn {turns[0]} \(.*$", text, re.M)
    assert line
    # turns that lost as many are named after it
    assert line[0].endswith(")") == (len(turns) == 1)
    for turn in turns[1:]:
        assert re.search(rf"as many on turns? .*\b{turn}\b", line[0])


def test_a_lost_base_game_in_numbers():
    """Seed 1 game 0, greedy, read off its trace: 8 Census and 7 Exchange act entries, 3
    passes, zero-sum groups of 4 cards in all, and 3 Chaos reveals: on turn 12 Chaos#76
    reveals Chaos#77 among 4 cards and Chaos#77 reveals 4 more (7 discarded, then both
    Chaos: 9), on turn 29 Chaos#79 reveals 4 (5 with it): 14. The last check leaves
    City#9(water/air) in row 0 with +4 against -3 and -2, so -1: 1 short of balance on the
    Sognae side; its 3 dreams and 3 cards in hand remain."""
    trace = analyzer.trace(seed=1, game=0)[0]
    acts = [next(iter(entry["acts"][0])) for entry in of_log(trace, "act")]
    assert (acts.count("census"), acts.count("exchange")) == (8, 7)
    assert len(of_log(trace, "pass")) == 3
    assert sum(len(group) for entry in of_log(trace, "act") for act in entry["acts"]
               for group in act.get("census", {}).get("zero_sum", [])) == 4
    assert sum(entry.get("how") == "reveal" for entry in trace["log"]) == 3
    text = summary(render_trace(trace))
    assert text.splitlines()[:11] == [
        "  Dream deck: 72 cards at the start, 0 left; where the other 72 went:",
        "    30  discarded with their City card when it was pacified at a Census "
        "(11 City cards)",
        "    15  discarded from the hand for an action: Census 8, Exchange 7",
        "     3  discarded from the hand for no action",
        "     4  discarded as zero-sum sets at a Census",
        "    14  discarded by Chaos revealing the top of the Dream deck (3 Chaos and 11 of "
        "the cards they revealed)",
        "     3  next to the City cards still in the layout",
        "     3  in the hand",
        "  Hand: 33 Dream cards drawn into it; 12 placed next to City cards, 18 discarded, "
        "3 still held at the end",
        "  City cards: 11 of 12 in the Success pile (11 pacified at a Census); not pacified:",
        "    row 0 City#9(water/air): 3 dreams, influences sum to -1: the Sognae side is 1 "
        "short",
    ]
    assert text.splitlines()[11] == ("  Most Dream cards lost in one turn (discarded, not "
                                     "with a pacified City card): 9 on turn 12 (9 by Chaos "
                                     "reveals)")


def test_R13_1_a_won_game_has_every_city_card_in_the_success_pile():
    """Seed 1 game 9, greedy: won with 2 Dream cards left; the last check holds no row."""
    trace = analyzer.trace(seed=1, game=9)[0]
    assert trace["result"]["outcome"] == "win"
    text = summary(render_trace(trace))
    (start, left, others), lines = ledger(text)
    assert (start, left, others) == (72, 2, 70) == (72, 2, sum(n for n, _ in lines))
    assert "  City cards: all 12 in the Success pile (12 pacified at a Census)" in \
        text.splitlines()
    assert "not pacified" not in text and "next to the City cards" not in text


def test_R11_9_the_inhabitant_pile_is_its_plus_ones_and_minus_twos():
    """The pile's sum is the final check's; +1 for each card scored, -2 for each other
    (R11.4); the Wise Chaos used are those the checks lose and the log spends (R11.3).
    Seed 11 game 6 loses on the pile: 5 at +1, 6 at -2 is -7."""
    traces = analyzer.trace(seed=11, game=0, games=7, expansions="postcards")
    traces += analyzer.trace(seed=2, game=0, games=6, policy="random", expansions="postcards")
    for trace in traces:
        line = re.search(r"^  Postcards: .*$", summary(render_trace(trace)), re.M).group(0)
        total = int(re.search(r"the Inhabitant pile sums to ([+-]\d+)", line).group(1))
        plus, minus = (int(n.group(1)) if n else 0 for n in
                       (re.search(r"(\d+) at \+1", line), re.search(r"(\d+) at -2", line)))
        first, last = checks(trace)[0], checks(trace)[-1]
        assert total == last["inhabitants"] == plus - 2 * minus
        why = re.search(r"at -2 \((.*?)\);", line)
        assert sum(map(int, re.findall(r"(\d+) [A-Za-z]", why.group(1) if why else ""))) == \
            minus
        wise, of = map(int, re.search(r"Wise Chaos used: (\d+) of (\d+)$", line).groups())
        spent = sum(entry.get("how") == "wise" or entry.get("wise") is True
                    for entry in trace["log"])
        assert (wise, of) == (first["wise_chaos"] - last["wise_chaos"], first["wise_chaos"])
        assert wise == spent
    assert "sums to -7: 5 at +1, 6 at -2 (5 condition not met, 1 Flagship found no room)" \
        in summary(render_trace(traces[6]))


def test_R12_the_emptiness_cards_left_and_how_the_others_went():
    """Left is the final check's; the Allies are the log's; the cards that left at a
    Census on a City card in balance are the rest of the pile (R12.2, R12.3)."""
    traces = analyzer.trace(seed=3, game=0, games=12, expansions="emptiness")
    traces += analyzer.trace(seed=3, game=0, games=12, policy="random", expansions="emptiness")
    for trace in traces:
        text = summary(render_trace(trace))
        left, pile, balanced, allies = map(int, re.search(
            r"^  Emptiness: (\d+) of (\d+) Emptiness cards left; (\d+) went back into the "
            r"box at a Census on a City card in balance, (\d+) by an Ally against the "
            r"Emptiness$",
            text, re.M).groups())
        assert left == checks(trace)[-1]["emptiness"]["cards"]
        assert pile == sum(card["type"] == "emptiness" for card in trace["cards"])
        assert allies == sum(any("ally" in act for act in entry["acts"])
                             for entry in of_log(trace, "act"))
        assert left + balanced + allies == pile


def test_R12_2_a_game_lost_to_the_emptiness_names_the_city_without_a_dream():
    """Seed 5 game 3, all expansions, random: the Emptiness stands on the Temple of row 0,
    which has no dream at the census of turn 12."""
    trace = analyzer.trace(seed=5, game=3, policy="random", expansions="all")[0]
    assert trace["result"]["reason"] == "emptiness"
    text = summary(render_trace(trace))
    last = checks(trace)[-1]
    assert last["emptiness"]["at"] == 0 and not last["rows"][0]["L"] + last["rows"][0]["R"]
    assert "    row 0 Temple#91(air): no dream next to it; the Emptiness stands on it" in \
        text.splitlines()


def test_R09_1_the_books_laid_out_burn_what_the_setup_discards():
    """Seed 11 game 26, Books, random: the log keeps 4 Books, the first 4 of the Book
    deck; the setup's check shows the 13 cards they burnt (nothing else is discarded
    before turn 1); the log's act entries use a Book 11 times."""
    trace = analyzer.trace(seed=11, game=26, policy="random", expansions="books")[0]
    text = summary(render_trace(trace))
    kinds = {card["id"]: card["kind"] for card in trace["cards"] if card["type"] == "book"}
    keep = of_log(trace, "books")[0]["keep"]
    kept = [kinds[book] for book in trace["setup"]["book_deck"][:keep]]
    assert kept == ["freedom", "prophecies", "prophecies", "flying_incubi"]
    assert re.search(r"^  Books laid out: Freedom-Loving Dreams, Prophecies, Prophecies, "
                     r"Flying Incubi; Book actions: ", text, re.M)
    _, lines = ledger(text)
    assert (checks(trace)[0]["discard"], "burnt by the Books at setup") in lines
    used = re.search(r"Book actions: (.*)$", text, re.M).group(1)
    book_acts = sum("book" in act for entry in of_log(trace, "act") for act in entry["acts"])
    assert sum(int(n) for n in re.findall(r" (\d+)", used)) == book_acts == 11


def test_R10_4_the_polarity_swaps_are_the_logs():
    traces = analyzer.trace(seed=3, game=0, games=4, expansions="all", variant="team")
    for trace in traces:
        swaps = of_log(trace, "swap_polarity")
        line = re.search(r"^  Polarity swaps: (\d+), putting (\d+) discarded cards back into "
                         r"the box$", summary(render_trace(trace)), re.M)
        told = tuple(map(int, line.groups())) if line else (0, 0)
        assert told == (len(swaps), 8 * len(swaps))
    assert any(of_log(trace, "swap_polarity") for trace in traces)


def test_the_summary_needs_only_the_trace(tmp_path):
    """A trace read from a file, its header renamed, is summed up as the game played."""
    import json

    trace = analyzer.trace(seed=1, game=0)[0]
    played = summary(render_trace(trace))
    trace.update(seed=99, game=5, policy="by hand")
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps(trace) + "\n")
    assert summary(analyzer.show(trace_file=path)) == played
