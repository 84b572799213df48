"""`urbion show`: the text a player follows with the cards on the table, checked against the
trace of the same game."""

from __future__ import annotations

import re
from collections import Counter

import pytest

import analyzer
from analyzer.trace.show import render_trace, result_text


@pytest.fixture(scope="module")
def postcard_traces():
    """Greedy postcard games of seed 11: game 6 pacifies every City card and loses on the
    Inhabitant pile (R11.9)."""
    return {t["game"]: t for t in analyzer.trace(seed=11, game=0, games=7,
                                                 expansions="postcards")}


def _result_line(text: str) -> str:
    """The result line, which the summary of how the game went follows."""
    return next(line for line in text.splitlines() if line.startswith("Result: "))


def test_R13_the_result_says_why_the_game_ended_and_the_inhabitant_sum(postcard_traces):
    trace = postcard_traces[6]
    assert trace["result"]["reason"] == "inhabitants"
    checks = [e["check"] for e in trace["log"] if "check" in e]
    line = _result_line(render_trace(trace))
    assert line.startswith("Result: LOSS (inhabitants: every City card is pacified")
    assert line.endswith(f", inhabitants {checks[-1]['inhabitants']:+d}")
    assert checks[-1]["inhabitants"] < 0


def test_R13_2_a_base_game_loss_names_the_empty_dream_deck_and_no_inhabitants():
    trace = analyzer.trace(seed=1, game=0)[0]
    assert trace["result"]["reason"] == "deck_empty"
    line = _result_line(render_trace(trace))
    assert "(deck_empty: a card had to be drawn from the empty Dream deck)" in line
    assert "inhabitants" not in line


@pytest.mark.parametrize("count, words", [
    (1, "after 1 turn, 1 City card pacified, 1 Dream card left"),
    (2, "after 2 turns, 2 City cards pacified, 2 Dream cards left"),
    (0, "after 0 turns, 0 City cards pacified, 0 Dream cards left"),
])
def test_the_result_line_says_one_in_the_singular(count, words):
    result = {"outcome": "loss", "reason": "deck_empty", "turns": count, "pacified": count,
              "deck_left": count}
    assert result_text(result, {}).endswith(words)


def _turn_blocks(text: str) -> dict[int, str]:
    """The text of each turn (0 for the setup), by turn number."""
    parts = re.split(r"^(?:Setup|Turn (\d+))$", text, flags=re.M)
    pairs = zip(parts[1::2], parts[2::2], strict=True)
    return {int(number or 0): body for number, body in pairs}


def test_R11_6_every_turn_of_a_repentant_hourglass_is_told_before_it_is_sent_away():
    """Seed 5 game 3, all expansions, random: the Hourglass dealt at setup is turned at the
    end of turns 1 to 4 and sent away at the end of turn 5 (R11.6)."""
    trace = analyzer.trace(seed=5, game=3, policy="random", expansions="all")[0]
    text = render_trace(trace)
    blocks = _turn_blocks(text)
    hourglass = int(re.search(r"Hourglass#(\d+) is dealt", blocks[0]).group(1))
    name = f"Postcard Repentant Hourglass#{hourglass} on "
    turned = {turn: re.findall(rf"^  {name}.* is turned \((\d) of 4 turns\)$", body, re.M)
              for turn, body in blocks.items()}
    assert {turn: k for turn, k in turned.items() if k} == {1: ["1"], 2: ["2"], 3: ["3"],
                                                           4: ["4"]}
    last = blocks[5].splitlines()
    sent = next(i for i, line in enumerate(last) if line.startswith(f"  {name}"))
    assert last[sent].endswith("is sent away (turned a fifth time): -2")
    assert last[sent + 1].startswith("    row 0:")  # at the end of the turn, after the draws


def test_R09_5_a_city_freed_by_the_book_is_not_called_balanced():
    """Seed 11 game 26, Books, random: turn 6 frees the dreamless city in row 2. A city
    with no dream is not in balance (R01.3)."""
    trace = analyzer.trace(seed=11, game=26, policy="random", expansions="books")[0]
    freed = [e for e in trace["log"] if e.get("do") == "act"
             and any(a.get("book") == "freedom" for a in e["acts"])]
    text = render_trace(trace)
    lines = text.splitlines()
    frees = [i for i, line in enumerate(lines) if "the Book frees the dreamless city" in line]
    assert len(frees) == len(freed) > 0
    for i in frees:
        row = lines[i].split()[-1]
        assert re.fullmatch(rf"  row {row} has no dream: City#\d+\(\w+/\w+\) pacified by the "
                            "Book", lines[i + 1]), lines[i + 1]


def test_R07_2_each_chromatic_chaos_of_a_chain_is_named_with_what_it_reveals():
    """Seed 5 game 3, all expansions, random: on turn 9 a drawn Chromatic Chaos reveals
    another, which reveals a Harmony."""
    trace = analyzer.trace(seed=5, game=3, policy="random", expansions="all")[0]
    turn = _turn_blocks(render_trace(trace))[9].splitlines()
    assert turn[3:9] == ["  draw Chromatic#98",
                         "    Chromatic#98 goes to row 0, side R",
                         "  Chromatic#98 reveals Chromatic#100",
                         "    Chromatic#100 goes to row 2, side R",
                         "  Chromatic#100 reveals Harmony +1/-1#116",
                         "    Harmony +1/-1#116 goes to row 1, side L"]


def test_R07_2_R06_3_a_chromatic_chaos_resolved_on_an_empty_deck_says_it_reveals_nothing():
    """The hand-built Books game of the reference tests: the held Chromatic Chaos is
    resolved once the opening hand has taken the last Dream card. The trace has no entry
    for the reveal that does not happen; the text must still say so."""
    from tests.test_reference_expansions2 import books_trace

    setup = _turn_blocks(render_trace(books_trace()))[0].splitlines()
    placed = setup.index("    Chromatic#60 goes to row 0, side R")
    assert setup[placed + 1] == "  Chromatic#60 reveals nothing: the Dream deck is empty"


def test_R07_2_a_revealed_card_placed_ignoring_its_element_says_why():
    """Seed 5 game 1, Chromatic Chaos, random, turn 24: the fire dream a Chromatic reveals
    goes to an earth/air city, the only fire city's side R being full (its last table:
    row 3, City#7(water/fire), R [-3a C-5 -3f]). The text showed a placement against the
    element rule with no word of why."""
    trace = analyzer.trace(seed=5, game=1, policy="random", expansions="chromatic_chaos")[0]
    blocks = _turn_blocks(render_trace(trace))
    assert "row 3: City#7(water/fire)         L [              ] R [-3a C-5 -3f   ]" \
        in blocks[23]
    turn = blocks[24].splitlines()
    at = turn.index("  Chromatic#103 reveals Incubi -1 fire#61")
    assert turn[at + 1:at + 3] == [
        "    Incubi -1 fire#61 goes to row 1, side R",
        "    no city showing its element has room on side R: it is placed ignoring the "
        "element"]
    # a card placed by its element says nothing more
    assert turn[at - 1] == "    Chromatic#103 goes to row 1, side L"
    assert "ignoring" not in turn[at - 1] and "ignoring" not in turn[at - 3]


def test_R07_2_a_revealed_card_whose_element_no_city_shows_says_so():
    """Seed 0 game 0, Chromatic Chaos, greedy, turn 17: no city of the layout shows fire,
    and the text sent a player looking for a fire city full on that side."""
    trace = analyzer.trace(seed=0, game=0, expansions="chromatic_chaos")[0]
    turn = _turn_blocks(render_trace(trace))[17].splitlines()
    at = turn.index("  Chromatic#99 reveals Incubi -2 fire#65")
    rows = [line.strip() for line in turn if line.strip().startswith("row ")]
    assert rows and not any("fire" in line.split(")")[0] for line in rows)
    assert turn[at + 2] == "    no city in the layout shows its element: it is placed " \
        "ignoring it"


def test_R13_2_the_draw_from_the_empty_deck_that_loses_is_told():
    """The text ended at the step before the losing draw: the deal of a census's new city
    (seed 2 game 8, random), a Phase II draw (the hand-built game's draw after a pass)."""
    trace = analyzer.trace(seed=2, game=8, policy="random")[0]
    last = list(_turn_blocks(render_trace(trace)).values())[-1].splitlines()
    assert last[1:5] == ["  discard Incubi -2 earth#48 for Census",
                         "  row 3 is balanced: City#1(earth/water) pacified",
                         "  row 3 takes City#0(earth/water)",
                         "  row 3 is dealt Sognae +2 fire#30, but the Dream deck is empty "
                         "before its second card"]
    assert trace["result"]["reason"] == "deck_empty"
    drawn = analyzer.trace(seed=1, game=0, policy="random", games=30)
    lost = next(t for t in drawn if t["result"]["reason"] == "deck_empty"
                and t["log"][-2].get("do") in ("pass", "place"))
    end = list(_turn_blocks(render_trace(lost)).values())[-1].splitlines()
    assert "  a Dream card is to be drawn, but the Dream deck is empty" in end


def test_R09_7_prophecies_say_what_was_seen_and_how_it_went_back():
    """Seed 11 game 5, Books, random: the text gave the new order alone, so a reader could
    not tell whether the cards were moved. The cards seen are those the trace puts back, in
    the order they lay; a Book that moves none says so."""
    trace = analyzer.trace(seed=11, game=5, policy="random", expansions="books")[0]
    text = render_trace(trace)
    orders = [act["order"] for entry in trace["log"] for act in entry.get("acts", [])
              if act.get("book") == "prophecies"]
    lines = re.findall(r"^  Prophecies: the top Dream cards read (.*)$", text, re.M)
    assert len(lines) == len(orders) == 8
    moved = 0
    for line, order in zip(lines, orders, strict=True):
        ids = [int(i) for i in re.findall(r"#(\d+)", line)]
        if line.endswith(", left so"):
            assert ids == order
        else:
            seen, back = ids[:len(order)], ids[len(order):]
            assert back == order and sorted(seen) == sorted(order) and seen != order
            moved += 1
    assert 0 < moved < len(orders)


def test_R09_7_one_card_seen_by_prophecies_reads_in_the_singular():
    trace = analyzer.trace(seed=11, game=26, policy="random", expansions="books")[0]
    assert "  Prophecies: the top Dream card reads Incubi -3 air#74, left so" in \
        render_trace(trace).splitlines()


def test_R02_2_a_deal_cut_short_says_its_chaos_was_waiting_for_its_side():
    """Team, random, seed 3 game 54: a Chaos drawn first for row 3 waits for the second
    card to take its side (R02.2); the deck is then empty. "row 3 is dealt Chaos#79" read
    as if it were placed, and the table shows row 3 without it."""
    trace = analyzer.trace(seed=3, game=54, policy="random", variant="team")[0]
    text = render_trace(trace)
    assert ("  Chaos#79 is drawn for row 3, its side waiting for the second card, but the "
            "Dream deck is empty") in text.splitlines()
    assert "row 3 is dealt Chaos#79" not in text


def test_R09_1_the_books_burn_4_cards_each_and_shuffle_the_chaos_back():
    trace = analyzer.trace(seed=11, game=5, policy="random", expansions="books")[0]
    keep = next(e["keep"] for e in trace["log"] if e.get("do") == "books")
    burn = next(line for line in render_trace(trace).splitlines() if "the Books burn" in line)
    assert burn.startswith(f"  the Books burn {4 * keep} Dream cards: ")
    assert burn.endswith("discarded; Chaos#76 is shuffled back into the Dream deck")
    assert len(re.findall(r"#\d+", burn)) == 4 * keep


def test_R05_7_a_game_lost_mid_census_keeps_each_row_in_its_place():
    """Seed 31 game 5, The Emptiness and Postcards, random: a census pacifies row 1, then
    the Emptiness on row 0 loses the game before row 1 takes a new City card. The last
    check leaves the pacified row out; the table and the summary moved the rows below it
    up a place (R01.5 removes a row only when the City deck is empty)."""
    trace = analyzer.trace(seed=31, game=5, policy="random", expansions="emptiness,postcards")[0]
    text = render_trace(trace)
    last = list(_turn_blocks(text).values())[-1].split("Result:")[0]
    rows = re.findall(r"^    row (\d): (City#\d+\([a-z/]+\))", last, re.M)
    assert rows == [("0", "City#5(earth/air)"), ("1", "City#10(fire/air)"),
                    ("2", "City#2(earth/fire)"), ("3", "City#11(fire/air)")]
    assert "row 1: City#10(fire/air) pacified; the game ended before the row was refilled" \
        in text
    assert "    row 2 City#2(earth/fire): 4 dreams" in text
    assert "    row 3 City#11(fire/air): 2 dreams" in text
    assert "in row 2; Postcard Magicians on Holiday#157 on Chaos#78 in row 3" in text
    # the counters name the Emptiness city's row as the table marks it (seed 10 game 43:
    # row 0 pacified above it)
    trace = analyzer.trace(seed=10, game=43, policy="random", expansions="emptiness")[0]
    last = render_trace(trace).split("Result:")[0].splitlines()
    assert last[-3].startswith("    row 3: City#11(fire/air)") and \
        last[-3].endswith("<- the Emptiness")
    assert last[-1].endswith("Emptiness cards 6 (figure on row 3)")


def test_R11_7_a_flagship_with_one_city_left_says_it_stays():
    """Seed 3 game 38, Postcards, greedy: a census removes row 0 for want of a City card,
    leaving one city with a Flagship on it. Nothing moves (R11.7), which the text left
    unsaid, so a player wondered where the sail went."""
    trace = analyzer.trace(seed=3, game=38, expansions="postcards")[0]
    blocks = _turn_blocks(render_trace(trace))
    assert "Postcard Flagship#162 on Chaos#80 in row 0" in blocks[32]
    assert blocks[33].splitlines()[1] == ("  Postcard Flagship#162 on Chaos#80 stays: one city "
                                          "is left")
    assert not any("sails" in blocks[turn] for turn in blocks if turn >= 33)


def test_R02_3_R05_5_the_row_of_two_chaos_dealt_together_and_of_a_zero_sum_discard():
    """Seed 1 game 9, base game: row 2 is dealt two Chaos at setup; seed 11 game 3, Books,
    random: a Book of Perfect Balance census discards a zero-sum set from row 3 on turn 10."""
    # each deal names its row's city: the setup's table comes only after every deal
    setup = _turn_blocks(analyzer.show(seed=1, game=9))[0].splitlines()
    assert setup[3:5] == ["  the two Chaos dealt together to row 2 go to side R",
                          "  row 2 (City#11(fire/air)) is dealt Chaos#78, Chaos#81"]
    trace = analyzer.trace(seed=11, game=3, policy="random", expansions="books")[0]
    blocks = _turn_blocks(render_trace(trace))
    assert ("  zero-sum discard from row 3: Chaos#83, Incubi -2 earth#47, Incubi -3 air#75"
            in blocks[10].splitlines())
    rows = [r for turn, body in blocks.items() if turn < 10 for r in body.splitlines()
            if r.startswith("    row 3: ")]
    assert "C+5 +4e" in rows[-1] and "-2e -3a" in rows[-1]  # the row the cards left


def test_R11_4_a_scored_postcard_says_whether_its_condition_held(postcard_traces):
    """Game 6's last census: the Magicians on Holiday score +1, the Dreamcatcher -2."""
    last = list(_turn_blocks(render_trace(postcard_traces[6])).values())[-1]
    scored = re.findall(r"^  Postcard (.*)#\d+ on .* goes to the Inhabitant pile \((.*)\): "
                        r"([+-]\d)$", last, re.M)
    assert scored == [("Magicians on Holiday", "condition met", "+1"),
                      ("Dreamcatcher", "condition not met", "-2")]


def test_the_text_says_how_to_read_the_letters_of_a_table_row():
    text = analyzer.show(seed=5, game=3, policy="random", expansions="all")
    key = text.splitlines()[2]  # after the game's line and what made it
    assert re.search(r"    row \d: .*X\+4", text)  # a Chromatic Chaos on a table row
    for letters in ("C Chaos", "X Chromatic Chaos", "M Meta", "H Harmony", "W Wizard",
                    "L the Sognae side", "R the Incubi side"):
        assert letters in key, letters


def test_the_text_says_what_its_card_names_and_ruling_ids_are():
    """A player met "Chromatic#98" and "(R02.5)" with no word of what they are."""
    text = analyzer.show(seed=5, game=3, policy="random", expansions="all")
    assert "Chromatic#" in text
    key = text.splitlines()[3]
    assert key.startswith("Cards: each named by its kind and its id after # (Chromatic#98 "
                          "is a Chromatic Chaos); R02.5 and the like cite the rulings")
    assert "RULINGS.md" in key


def test_R06_2c_a_reveal_says_what_is_discarded_and_that_the_revealing_chaos_goes_too():
    """Seed 1 game 9, base game, turn 7: Chaos#82 reveals Chaos#83 among 4 cards."""
    turn = _turn_blocks(analyzer.show(seed=1, game=9))[7]
    assert ("  Chaos#82 reveals Incubi -2 water#57, Incubi -3 air#75, Chaos#83, Sognae +4 "
            "air#42; the cards among them other than Chaos and Chromatic Chaos are discarded, "
            "the others resolved in turn, then Chaos#82 is discarded") in turn.splitlines()


@pytest.mark.parametrize("depth, bottom, place", [
    (3, False, "back below the top 3 Dream cards"),
    (3, True, "back at the bottom of the Dream deck, below its 3 cards"),
    (1, True, "back at the bottom of the Dream deck, below its 1 card"),
    (0, True, "back as the only Dream card"),
])
def test_R11_3_a_wise_chaos_says_where_its_card_went_back(depth, bottom, place):
    """Below the top 3 Dream cards, or at the bottom of a deck of 3 or fewer."""
    from analyzer.trace.show import CardNames, event_text

    trace = analyzer.trace(seed=1, game=0)[0]
    names = CardNames(trace["cards"])
    chaos = next(c["id"] for c in trace["cards"] if c["type"] == "chaos")
    line = event_text("wise", {"card": chaos, "left": 1, "depth": depth, "bottom": bottom},
                      names)
    assert line == f"  a Wise Chaos puts {names.name(chaos)} {place} (1 Wise Chaos left)"


def test_R11_3_the_engine_tells_where_a_wise_chaos_put_its_card():
    """Every Wise Chaos of some random postcard games goes back 3 cards deep, or to the
    bottom of a shorter deck."""
    from analyzer.reference.replay import replay

    seen = []
    for trace in analyzer.trace(seed=2, game=0, games=40, policy="random",
                                expansions="postcards"):
        replay(trace, narrate=lambda event, details: seen.append(details)
               if event == "wise" else None)
    assert len(seen) >= 5
    assert all(d["depth"] == 3 or (d["bottom"] and d["depth"] < 3) for d in seen)
    assert any(not d["bottom"] for d in seen)


def test_R06_2_b_a_chaos_that_clears_a_city_lists_the_dreams_it_discards():
    """Seed 1 game 42, greedy: a drawn Chaos clears the balanced city of row 2; the text
    names the three dreams the next check no longer shows there, then the Chaos."""
    trace = analyzer.trace(seed=1, game=42)[0]
    lines = render_trace(trace).splitlines()
    at = next(i for i, line in enumerate(lines) if "clears the balanced city in row 2" in line)
    chaos = re.search(r"(Chaos#\d+) clears", lines[at]).group(1)
    cleared = lines[at + 1]
    assert cleared.startswith("    ") and cleared.endswith(f"go to the discard pile, then {chaos}")
    ids = [int(i) for i in re.findall(r"#(\d+)", cleared.split(" go to ")[0])]
    assert len(ids) == 3
    checks = [e["check"] for e in trace["log"] if "check" in e]
    on_table = {c for check in checks for row in check["rows"] for c in row["L"] + row["R"]}
    assert set(ids) <= on_table


def test_R12_2_a_balanced_emptiness_city_says_once_that_a_card_leaves():
    """The check's line and the card's line do not both say an Emptiness card goes, and
    the figure goes where the rulebook puts it: back onto the pile, or into the box with the
    last card (a balanced city's line said it returned to its pile even then)."""
    found = 0
    for trace in analyzer.trace(seed=3, game=0, games=30, expansions="emptiness"):
        lines = render_trace(trace).splitlines()
        for at, line in enumerate(lines):
            if re.fullmatch(r"  the Emptiness city in row \d is balanced: not pacified", line):
                found += 1
                assert re.fullmatch(r"  an Emptiness card goes back into the box \([1-7] "
                                    r"left\); the figure stands on the pile", lines[at + 1]) \
                    or lines[at + 1] == ("  the last Emptiness card goes back into the box, "
                                         "and the figure with it"), lines[at + 1]
    assert found > 0, "no balanced Emptiness city at a census in 30 games"


def test_the_header_names_the_card_sets_hash():
    """An edited copy of the shipped cards and the shipped cards differ in the hash only."""
    trace = analyzer.trace(seed=1, game=0)[0]
    header = render_trace(trace).splitlines()[0]
    assert f"card set R14-default (sha256 {trace['card_set_sha256'][:12]})," in header
    del trace["card_set_sha256"]  # a trace written by another program may lack it
    assert ", card set R14-default, " in render_trace(trace).splitlines()[0]


def test_R11_1_the_postcards_line_names_each_postcards_row(postcard_traces):
    """A player finds a postcard on the table by its row: at the end of the setup each lies
    on the dream, in the row, it was dealt with."""
    setup = render_trace(postcard_traces[6]).split("\nTurn 1\n")[0]
    dealt = re.findall(r"^  Postcard (.*#\d+) is dealt on (.*#\d+) in row (\d)$", setup, re.M)
    line = next(line for line in setup.splitlines() if line.startswith("    postcards: "))
    shown = [re.fullmatch(r"Postcard (.*#\d+) on (.*#\d+) in row (\d)", item).groups()
             for item in line.removeprefix("    postcards: ").split("; ")]
    assert len(dealt) >= 4 and sorted(shown) == sorted(dealt)


def test_a_team_game_is_shown_with_its_rules_and_every_swap_not_taken():
    text = analyzer.show(seed=3, game=5, variant="team")
    lines = text.splitlines()
    assert lines[4].startswith("Team game: the seat holding the Sognae polarity places")
    kept = [line for line in lines if line.startswith("  polarities kept")]
    assert kept, "greedy keeps its polarity some turn of this game"
    for line in kept:  # offered only with 8 or more discards (R10.4)
        assert int(re.search(r"possible: (\d+) cards in the discard pile", line)[1]) >= 8
    assert not any(line.startswith("Team game") or "polarities kept" in line
                   for line in analyzer.show(seed=3, game=5).splitlines())


def test_show_ends_with_the_weights_note_simulate_prints_for_the_same_run():
    """weighted on expansions plays weights tuned elsewhere: show says so as simulate does."""
    shown = analyzer.show(seed=0, game=3, policy="weighted", expansions="emptiness")
    played = analyzer.simulate(games=1, seed=0, first_game=3, policy="weighted",
                               expansions="emptiness")
    note = analyzer.weights_note(played)
    assert note and note.startswith("note: weighted plays weights tuned on R14's base game")
    assert shown.endswith("\n" + note)
    assert "note:" not in analyzer.show(seed=0, game=3, policy="weighted")
    assert "note:" not in analyzer.show(seed=0, game=3, expansions="emptiness")


def test_show_notes_a_tuning_game_by_the_game_it_shows():
    """The shipped weights were tuned on games 0-29,999 of seed 2026: game 5 is one of
    them, game 30,000 is not."""
    shown = analyzer.show(seed=2026, game=5, policy="weighted")
    assert shown.endswith("\nnote: 1 of these games (game 5 of seed 2026) is among those the "
                          "weights of weighted were tuned on (games 0-29,999), where they win "
                          "more than on new deals: play another --seed to measure them")
    assert "note:" not in analyzer.show(seed=2026, game=30_000, policy="weighted")


def test_show_prepares_the_policy_once(monkeypatch):
    """A user's policy compiles as it loads: show, which also plays the game to find it
    (--won), must not load it twice."""
    from analyzer.api import common

    loads = []
    real = common.checked_policy

    def counted(policy):
        if isinstance(policy, str):  # a name is loaded; a PolicySpec is one loaded already
            loads.append(policy)
        return real(policy)

    monkeypatch.setattr(common, "checked_policy", counted)
    analyzer.show(seed=0, game=0, policy="greedy", won=True)
    assert loads == ["greedy"]


def test_a_swap_names_the_rows_of_its_two_dreams_as_the_next_table_shows_them_swapped():
    """A swap named its two cards by id alone, which the table does not show: the player
    searched back for them. Each now says its row as it stands at the Exchange, also after a
    census or a postcard sent away earlier in the turn (the rows were left out there); the
    next table shows each dream in the other's row."""
    checked = named = exchanged = 0
    for expansions in ("none", "all"):
        for trace in analyzer.trace(seed=7, game=0, games=30, expansions=expansions):
            text = render_trace(trace)
            swaps = re.findall(r"^  exchange .*#(\d+)( \(row (\d)\))? <-> "
                               r".*#(\d+)( \(row (\d)\))?$", text, re.MULTILINE)
            log = trace["log"]
            exchanges = [(i, act["exchange"]) for i, e in enumerate(log)
                         for act in e.get("acts", []) if "exchange" in act]
            assert len(swaps) == len(exchanges), trace["game"]
            exchanged += len(exchanges)
            for (a, _, x, b, _, y), (i, pair) in zip(swaps, exchanges, strict=True):
                assert [int(a), int(b)] == pair
                named += bool(x)
                after = log[i + 1].get("check") if i + 1 < len(log) else None
                if not x or after is None or len(log[i]["acts"]) > 1:
                    continue  # a Wizard's second action comes before the next table
                where = {card: r for r, row in enumerate(after["rows"])
                         for card in row["L"] + row["R"]}
                if pair[0] in where and pair[1] in where:  # a Rocket moved is sent away
                    assert (where[pair[0]], where[pair[1]]) == (int(y), int(x)), \
                        (expansions, trace["game"], i)
                    checked += 1
    assert checked > 100 and named == exchanged


def test_a_row_a_census_removes_says_where_it_stands_now():
    """"row 3 ... is removed" came after "row 0 ... is removed; rows below move up": the
    census's numbering, with where the row stands now beside it."""
    from analyzer.trace.names import CardNames
    from analyzer.trace.show import event_text

    names = CardNames(analyzer.trace(seed=7, game=42)[0]["cards"])
    moved = event_text("row_removed", {"row": 2, "was": 3, "pacified": 2}, names)
    assert re.match(r"  row 3 \(City#2\S* pacified\) is removed \(row 2 by then, a row "
                    r"above gone\): the City deck is empty", moved), moved
    kept = event_text("row_removed", {"row": 0, "was": 0, "pacified": None}, names)
    assert kept.startswith("  row 0 is removed: ")
    taken = event_text("new_city", {"row": 1, "was": 2, "city": 4}, names)
    assert re.match(r"  row 2 \(row 1 by then, a row above gone\) takes City#4", taken), taken


def test_a_chaos_set_aside_in_the_opening_hand_goes_back_into_the_deck_in_the_text():
    """R03.2: a Chaos no city can take is shuffled back once the hand holds 4 cards; the
    text left the player holding it. A Chromatic Chaos set aside is resolved instead
    (R02.5), and says so."""
    text = analyzer.show(seed=0, game=226, expansions="chromatic_chaos")
    aside = text.index("no city can take Chaos#80: set aside")
    back = text.index("Chaos#80 is shuffled back into the Dream deck, the hand holding 4 "
                      "cards (R03.2)")
    assert aside < back < text.index("Turn 1\n")
    held = re.findall(r"^  (Chromatic#\d+) is set aside until the setup or census is done, "
                      r"a replacement drawn; then it is resolved \(R02\.5\)$", text, re.M)
    assert held and "Chromatic" not in text[aside:back]
    for card in held:
        assert re.search(rf"^ +{card} (goes to row|reveals)|no side has room: {card}", text,
                         re.M), card


def test_a_stop_while_show_looks_for_a_game_won_counts_the_search(monkeypatch):
    """Stopped in its third batch, the search said 'interrupted after 0 of 32,000 games':
    the count of that batch, not of the games searched."""
    import pandas as pd

    from analyzer import api
    from analyzer.errors import RunStopped

    batches = []

    def lost_every_game(games, seed, first_game, **options):
        batches.append(games)
        if len(batches) == 3:
            raise RunStopped(f"interrupted after 0 of {games:,} games; nothing was saved",
                             True)
        return pd.DataFrame({"game": range(first_game, first_game + games), "won": False})

    monkeypatch.setattr(api.simulation, "simulate", lost_every_game)
    with pytest.raises(RunStopped, match="^interrupted while looking for a game won, 10,000 "
                                         "games of seed 4 from game 7 played without a win$"):
        analyzer.show(seed=4, game=7, won=True)
    assert batches == [2_000, 8_000, 32_000]


def test_every_card_kind_is_named_as_the_rulebook_prints_it():
    """Each card type and kind of TRACE.md's card table, by hand: the Books and Postcards
    by their printed titles, Metas and Harmony by their Sognae value, then their Incubi
    one; and the acts of an act entry."""
    from analyzer.trace.names import CardNames, act_label

    books = {"flying_sognae": "Flying Sognae", "flying_incubi": "Flying Incubi",
             "invisible_sognae": "Invisible Sognae", "invisible_incubi": "Invisible Incubi",
             "freedom": "Freedom-Loving Dreams", "perfect_balance": "Perfect Balance",
             "prophecies": "Prophecies"}
    postcards = {"dreamcatcher": "Dreamcatcher", "doves": "Doves", "seer": "Seer",
                 "magicians": "Magicians on Holiday", "hourglass": "Repentant Hourglass",
                 "flagship": "Flagship", "rocket": "Resting Rocket", "planbot": "Planbot"}
    cards = [
        {"id": 0, "type": "city", "kind": "base", "elements": ["earth", "water"]},
        {"id": 1, "type": "city", "kind": "temple", "elements": ["air"]},
        {"id": 2, "type": "city", "kind": "square", "elements": []},
        {"id": 3, "type": "city", "kind": "garden", "elements": []},
        {"id": 4, "type": "sognae", "element": "fire", "value": 3},
        {"id": 5, "type": "incubi", "element": "air", "value": -2},
        {"id": 6, "type": "chaos", "value": 5},
        {"id": 7, "type": "chromatic", "value": 4},
        {"id": 8, "type": "meta", "element": "water", "sognae_value": 2, "incubi_value": -3},
        {"id": 9, "type": "harmony", "sognae_value": 1, "incubi_value": -4},
        {"id": 10, "type": "wizard", "polarity": "incubi", "element": "earth", "value": -1},
        {"id": 11, "type": "emptiness"},
        *({"id": 20 + k, "type": "book", "kind": kind} for k, kind in enumerate(books)),
        *({"id": 40 + k, "type": "postcard", "kind": kind} for k, kind in enumerate(postcards)),
    ]
    names = CardNames(cards)
    assert [names.name(c) for c in range(12)] == [
        "City#0(earth/water)", "Temple#1(air)", "City Square#2", "Hanging Garden#3",
        "Sognae +3 fire#4", "Incubi -2 air#5", "Chaos#6", "Chromatic#7",
        "Meta +2/-3 water#8", "Harmony +1/-4#9", "Wizard -1 earth#10", "Emptiness card#11"]
    assert [names.name(20 + k) for k in range(len(books))] == \
        [f"Book of {title}#{20 + k}" for k, title in enumerate(books.values())]
    assert [names.name(40 + k) for k in range(len(postcards))] == \
        [f"Postcard {title}#{40 + k}" for k, title in enumerate(postcards.values())]
    assert [act_label({"book": kind}) for kind in books] == \
        [f"Book of {title}" for title in books.values()]
    assert [act_label(act) for act in ({"census": {"zero_sum": []}}, {"exchange": [4, 5]},
                                       {"rebuild": [0, 1]}, {"change_sides": 4},
                                       {"ally": True})] == \
        ["Census", "Exchange", "Rebuild", "Change Sides", "Ally against the Emptiness"]


def test_R02_4_R08_a_card_dealt_to_a_side_and_a_card_changing_sides_name_the_sides():
    """Random games of Squares and Metas, Temples and Harmony, Gardens and Wizards, seed 5:
    a Meta or Harmony dealt to side L is dealt as a Sognae, to side R as an Incubi (L is
    the Sognae side); a card that changes sides moves from the side the last table showed
    it on to the other."""
    dealt, changed = Counter(), 0
    for trace in analyzer.trace(seed=5, game=0, games=5, policy="random",
                                expansions="gardens_wizards,squares_metas,temples_harmony"):
        text = render_trace(trace)
        for role, side in re.findall(r"^  (?:Meta|Harmony) .*#\d+ is dealt as (a Sognae|an "
                                     r"Incubi), to side ([LR])$", text, re.M):
            assert (role, side) in (("a Sognae", "L"), ("an Incubi", "R"))
            dealt[side] += 1
        moves = re.findall(r"^  change sides: .*#(\d+) in row (\d) moves from side ([LR]) to "
                           r"side ([LR]), its influence turned over$", text, re.M)
        acts = [(i, act["change_sides"]) for i, e in enumerate(trace["log"])
                for act in e.get("acts", []) if "change_sides" in act]
        assert len(moves) == len(acts) > 0
        for (card, row, before, after), (i, moved) in zip(moves, acts, strict=True):
            assert int(card) == moved and {before, after} == {"L", "R"}
            first = trace["log"][i]["acts"][0]
            last = next(e["check"] for e in reversed(trace["log"][:i]) if "check" in e)
            if "change_sides" in first:  # the table as Phase I meets it
                assert moved in last["rows"][int(row)][before]
                changed += 1
    assert dealt["L"] > 0 and dealt["R"] > 0 and changed > 10


def test_R10_the_seat_holding_the_sognae_polarity_is_the_checks():
    """Team, greedy, seed 3 game 0: a check's ``polarity`` is the seat holding the Sognae
    (TRACE.md); each table names that seat's hand Sognae, the other's Incubi, and the seat
    playing the turn plays the polarity it holds at the turn's end (a swap comes before
    its Phase I, R10)."""
    trace = analyzer.trace(seed=3, game=0, expansions="all", variant="team")[0]
    blocks = _turn_blocks(render_trace(trace))
    checks = [e["check"] for e in trace["log"] if "check" in e]
    assert sorted(blocks) == [c["turn"] for c in checks]
    holders = Counter()
    for check in checks:
        body, sognae = blocks[check["turn"]], check["polarity"]
        assert f"\n    hand of seat {sognae} (Sognae): " in body
        assert f"\n    hand of seat {1 - sognae} (Incubi): " in body
        holders[sognae] += 1
        if check["turn"] > 0:
            seat, polarity = re.search(r"^  seat (\d) plays \((\w+) polarity", body,
                                       re.M).groups()
            assert polarity == ("Sognae" if int(seat) == sognae else "Incubi")
    assert holders[0] > 0 and holders[1] > 0


def _influence(card: dict, side: str) -> int:
    """A Sognae's, an Incubi's or a Chaos's influence on ``side`` (R01.2): a Chaos counts
    its value on the Sognae side L, against it on R."""
    return -card["value"] if card["type"] == "chaos" and side == "R" else card["value"]


def test_R01_2_R11_R12_each_table_shows_its_checks_counters_and_balance():
    """Random games of The Emptiness and Postcards, seed 3: the counters under each table
    are its check's (TRACE.md), the City deck what is neither in the layout nor in the
    Success pile, the figure on a row, standing or lying flat on its pile, or gone with
    the last card (R12); a row's total is its dreams' influences (a Chaos counts for the
    side it lies on, R01.2), and only a row with dreams can be balanced (R01.3)."""
    figures, marks = Counter(), Counter()
    for trace in analyzer.trace(seed=3, game=0, games=5, policy="random",
                                expansions="emptiness,postcards"):
        cards = {c["id"]: c for c in trace["cards"]}
        cities = sum(c["type"] == "city" for c in cards.values())
        blocks = _turn_blocks(render_trace(trace))
        for check in (e["check"] for e in trace["log"] if "check" in e):
            body = blocks[check["turn"]]
            if "the game ended before the row was refilled" in body:
                continue  # a row left out of the check: its numbers are another test's
            empt = check["emptiness"]
            figure = ("gone" if empt["cards"] == 0 else f"on row {empt['at']}"
                      if empt["at"] is not None else "lying flat on the pile"
                      if empt["flat"] else "on the pile")
            figures[figure.split(" row")[0]] += 1
            counters = (f"    Dream deck {check['dream_deck']}, City deck "
                        f"{cities - check['success'] - len(check['rows'])}, Success "
                        f"{check['success']}, discard {check['discard']}, inhabitants "
                        f"{check['inhabitants']:+d}, Wise Chaos {check['wise_chaos']}, "
                        f"Emptiness cards {empt['cards']} (figure {figure})")
            assert [line for line in body.splitlines()
                    if line.startswith("    Dream deck ")] == [counters]
            shown = re.findall(r"^    row (\d): \S+ .* total ([+-]\d+)(  balanced)?",
                               body, re.M)
            assert len(shown) == len(check["rows"])
            for (number, total, mark), row in zip(shown, check["rows"], strict=True):
                want = sum(_influence(cards[c], side) for side in "LR" for c in row[side])
                balanced = want == 0 and bool(row["L"] + row["R"])
                assert (int(total), bool(mark)) == (want, balanced), (number, row)
                marks[balanced, bool(row["L"] + row["R"])] += 1
    assert set(figures) == {"gone", "on", "lying flat on the pile", "on the pile"}
    assert marks[True, True] and marks[False, False] and marks[False, True]


def test_the_result_line_gives_each_figure_of_the_result():
    result = {"outcome": "win", "reason": "all_pacified", "turns": 3, "pacified": 5,
              "deck_left": 7}
    assert result_text(result, {}) == (
        "Result: WIN (all_pacified: every City card is in the Success pile) after 3 turns, "
        "5 City cards pacified, 7 Dream cards left")


def test_R09_3_a_flying_book_names_the_rows_and_the_side_of_its_dream():
    """Random Books games of seed 11: a Flying Sognae moves a Sognae, which stays on side
    L, a Flying Incubi an Incubi on side R; from the row the last table shows it in to the
    act's row."""
    flown = 0
    for trace in analyzer.trace(seed=11, game=0, games=12, policy="random",
                                expansions="books"):
        cards = {c["id"]: c for c in trace["cards"]}
        lines = re.findall(r"^  the Book flies .*#(\d+) from row (\d) to row (\d), side "
                           r"([LR])$", render_trace(trace), re.M)
        acts = [(i, act) for i, e in enumerate(trace["log"]) for act in e.get("acts", [])
                if act.get("book", "").startswith("flying")]
        assert len(lines) == len(acts)
        for (card, start, end, side), (i, act) in zip(lines, acts, strict=True):
            assert (int(card), int(end)) == (act["card"], act["row"])
            assert side == {"sognae": "L", "incubi": "R"}[cards[act["card"]]["type"]]
            last = next(e["check"] for e in reversed(trace["log"][:i]) if "check" in e)
            if trace["log"][i]["acts"][0] is act:
                assert act["card"] in last["rows"][int(start)][side]
            flown += 1
    assert flown >= 4
