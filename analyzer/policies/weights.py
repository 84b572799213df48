"""Weights files of the ``weighted`` policy: TOML, one number per feature, validated.

```toml
# any comments: how the weights were tuned
[weights]
BALANCE = 50.0
PROGRESS = 8.0
```

Every feature of ``greedy_nb.GREEDY_WEIGHTS`` may be given; a missing one keeps the shipped
weights' value (``weighted-default.toml``, itself greedy's value for a feature it does not
give): ``weighted:FILE`` is the weighted policy with the file's changes. An unknown name
or a value that is not a finite number of at most 1e12 in size (``MAX_WEIGHT``) is an
error naming the key.
"""

from __future__ import annotations

import math
import tomllib
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from analyzer.atomic import check_writable, write_atomically
from analyzer.core.greedy_terms import MAX_WEIGHT, MAX_WEIGHT_TEXT
from analyzer.errors import PolicyError, UrbionError
from analyzer.policies.greedy_nb import GREEDY_WEIGHTS
from analyzer.runfile import is_run_file, kept_config
from analyzer.textfiles import UnreadableText, read_small_text
from analyzer.wording import spoken_list

if TYPE_CHECKING:
    from analyzer.cards import CardSet

DEFAULT_WEIGHTS_FILE = "weighted-default.toml"
#: The games the shipped weights were tuned on (the file's header; it predates [tuned]).
SHIPPED_TUNING = {"seed": 2026, "games": 30_000}


def parse_weights(text: str, source: str,
                  base: dict[str, float] | None = None) -> dict[str, float]:
    """The full weight table from a weights file's text; missing names keep their value in
    ``base`` (greedy's weights when None)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise PolicyError(f"weights file {source}: not valid TOML: {err}") from None
    except RecursionError:  # arrays or tables nested thousands deep
        raise PolicyError(f"weights file {source}: not a weights file: nested too "
                          "deeply") from None
    extra = sorted(set(data) - {"weights", "tuned"})
    if extra or not isinstance(data.get("weights"), dict):
        raise PolicyError(f"weights file {source}: expected one [weights] table"
                          + (f", found {', '.join(extra)}" if extra else ""))
    _check_tuned(data.get("tuned"), source)
    weights = dict(GREEDY_WEIGHTS if base is None else base)
    for name, value in data["weights"].items():
        if name not in GREEDY_WEIGHTS:
            valid = ", ".join(GREEDY_WEIGHTS)
            raise PolicyError(f"weights file {source}: unknown weight weights.{name} "
                              f"(valid: {valid})")
        try:
            number = float(value) if isinstance(value, int | float) and \
                not isinstance(value, bool) else math.nan
        except OverflowError:
            number = math.inf
        if not math.isfinite(number) or abs(number) > MAX_WEIGHT:
            raise PolicyError(f"weights file {source}: weights.{name} must be a finite number "
                              f"from -{MAX_WEIGHT_TEXT} to {MAX_WEIGHT_TEXT}")
        weights[name] = number
    return weights


def load_weights(path: str | Path | None = None) -> dict[str, float]:
    """Weights from a file, over the shipped tuned default, or that default for None."""
    return read_weights_file(path)[0]


def read_weights_file(path: str | Path | None = None
                      ) -> tuple[dict[str, float], dict | None, str | None]:
    """:func:`load_weights`, the file's [tuned] table (:func:`tuned_for`) and its text (None
    for the shipped weights), from one reading of the file; a run keeps the text
    (``policy_weights_file``). ``path`` may be a results or summary file: the weights its
    run played."""
    if path is None:
        text = resources.files("analyzer.policies").joinpath(DEFAULT_WEIGHTS_FILE).read_text(
            encoding="utf-8")
        return parse_weights(text, f"builtin:{DEFAULT_WEIGHTS_FILE}"), None, None
    path = Path(path).expanduser()  # ~ as the home folder, as every path argument
    if is_run_file(path):
        text = _kept_weights(path)
    else:
        try:
            text = read_small_text(path)
        except UnreadableText as err:
            raise PolicyError(f"cannot read weights file {path}: {err}") from None
    return parse_weights(text, str(path), base=load_weights(None)), tuned_for(text), text


def _kept_weights(path: Path) -> str:
    """The weights file a results or summary file's run played, as it kept it."""
    config = kept_config(path)
    if config is None:
        raise PolicyError(f"cannot read weights from {path}: it begins as a results or "
                          "summary file but keeps no run configuration that can be read")
    text = config.get("policy_weights_file")
    if not isinstance(text, str):
        raise PolicyError(f"{path} keeps no weights file: its run played "
                          f"{config.get('policy')!r}, with shipped weights or none, or was "
                          "made before results kept them")
    return text


#: The keys of a weights file's optional [tuned] table, which ``urbion tune`` writes: what
#: the weights were tuned on, so that a run elsewhere can say so.
TUNED_KEYS = {"card_set": str, "card_set_sha256": str, "expansions": list, "variant": str}
#: A [tuned] key files written before it lack: the cards alone (``cards.loader.cards_digest``),
#: which a renamed or reordered copy of the set shares.
TUNED_CARDS_KEY = "cards_sha256"
#: [tuned] keys files written before them lack: the rules the weights were tuned under, and
#: the tuning games (games 0..games-1 of seed), which a fair evaluation leaves out; the cards
#: in play there (``cards.loader.play_digest``), in any order and in the file's, which with
#: the seed decides the deals.
TUNED_LATER_KEYS = {"rules_version": str, "seed": int, "games": int,
                    "cards_in_play_sha256": str, "deals_sha256": str}


def _check_tuned(tuned: object, source: str) -> None:
    """A [tuned] table holds the ``TUNED_KEYS`` of their kinds, or is absent."""
    if tuned is None:
        return
    known = {*TUNED_KEYS, TUNED_CARDS_KEY, *TUNED_LATER_KEYS}
    unknown = sorted(set(tuned) - known) if isinstance(tuned, dict) else []
    if unknown:  # a weight added at the end of a tuned file lands in [tuned]
        raise PolicyError(f"weights file {source}: unknown key tuned.{unknown[0]} (a weight "
                          "goes in the [weights] table, above [tuned])")
    if not isinstance(tuned, dict) or not set(TUNED_KEYS) <= set(tuned) <= known:
        raise PolicyError(f"weights file {source}: a [tuned] table holds "
                          f"{', '.join(TUNED_KEYS)} (and, from newer versions, "
                          f"{', '.join([TUNED_CARDS_KEY, *TUNED_LATER_KEYS])}), as urbion "
                          "tune writes it")
    wrong = tuned_key_wrong(tuned)
    if wrong:
        kind = "a list of expansion names" if wrong == "expansions" else \
            "solo or team" if wrong == "variant" else \
            "a whole number from 0" if TUNED_LATER_KEYS.get(wrong) is int else "a string"
        raise PolicyError(f"weights file {source}: tuned.{wrong} must be {kind}")


def tuned_key_wrong(tuned: dict) -> str | None:
    """The first key of a [tuned] table (``TUNED_KEYS``) whose value is not of its kind,
    or None: expansions are names of playable expansions, the variant one of the game's."""
    from analyzer.core.codes import PLAYABLE_EXPANSIONS, VARIANT_NAMES

    if not isinstance(tuned.get(TUNED_CARDS_KEY, ""), str):
        return TUNED_CARDS_KEY
    for key, kind in TUNED_LATER_KEYS.items():
        value = tuned.get(key, kind())
        if not isinstance(value, kind) or isinstance(value, bool) or \
                (kind is int and not 0 <= value < 2**63):
            return key
    for key, kind in TUNED_KEYS.items():
        value = tuned.get(key)
        if not isinstance(value, kind) or \
                (key == "expansions" and not all(name in PLAYABLE_EXPANSIONS
                                                 for name in value)) or \
                (key == "variant" and value not in VARIANT_NAMES):
            return key
    return None


def tuned_for(text: str) -> dict | None:
    """The [tuned] table of a weights file's ``text`` (card set name and hash, expansions,
    variant; checked by :func:`parse_weights`), or None for a file without one."""
    return tomllib.loads(text).get("tuned")


def format_weights(weights: dict[str, float], comments: list[str],
                   tuned: dict | None = None) -> str:
    """A weights file's text: ``comments`` as ``#`` lines, then the [weights] table, then
    what they were tuned on (``tuned``, ``TUNED_KEYS``) as a [tuned] table."""
    lines = [f"# {line}" if line else "#" for line in comments]
    lines += ["[weights]"] + [f"{name} = {weights[name]!r}" for name in GREEDY_WEIGHTS]
    if tuned is not None:
        lines += ["", "# what these weights were tuned on: a run elsewhere says so", "[tuned]"]
        lines += [f"{key} = {_toml_value(tuned[key])}"
                  for key in (*TUNED_KEYS, TUNED_CARDS_KEY, *TUNED_LATER_KEYS) if key in tuned]
    return "\n".join(lines) + "\n"


def _toml_value(value: str | int | list[str]) -> str:
    """A string, a whole number or a list of strings as TOML (JSON's spelling is TOML's for
    these)."""
    import json

    return json.dumps(value, ensure_ascii=False)


def write_weights(path: str | Path, weights: dict[str, float], comments: list[str],
                  tuned: dict | None = None) -> None:
    """Write a weights file, complete or not at all."""
    write_weights_text(path, format_weights(weights, comments, tuned))


def write_weights_text(path: str | Path, text: str) -> Path:
    """Write a weights file's ``text`` (:func:`format_weights`), complete or not at all."""
    path = check_writable(path, (".toml",))
    write_atomically(path, lambda tmp: Path(tmp).write_text(text, encoding="utf-8"))
    return path


def tuned_weights_note(attrs: dict) -> str | None:
    """A note when a run (its configuration ``attrs``) played ``weighted:FILE`` elsewhere
    than FILE's weights were tuned (its [tuned] table, kept as ``policy_tuned_for``): on
    other cards, expansions, variant or rules; or played the games they were tuned on
    (:func:`tuning_games_note`); None otherwise."""
    tuned = attrs.get("policy_tuned_for")
    if tuned is None and plays_shipped_weights(str(attrs.get("policy", ""))):
        return tuning_games_note(attrs, shipped_tuning())
    if not isinstance(tuned, dict) or tuned_key_wrong(tuned):
        return None
    where = tuned_differences(attrs, tuned)
    if not where:
        return tuning_games_note(attrs, tuned)
    return (f"note: the weights of {attrs.get('policy')} were tuned elsewhere: here "
            f"{'; '.join(where)}; `urbion tune` with this run's --cards, --expansions and "
            "--variant finds weights of its own")


def tuned_differences(attrs: dict, tuned: dict) -> list[str]:
    """How a run (its configuration ``attrs``) differs from where its weights were tuned
    (a [tuned] table): other cards, expansions, variant or rules, in words."""
    where = []
    if tuned.get("card_set_sha256") != attrs.get("card_set_sha256") and \
            not _same_cards_as_tuned(tuned, attrs):
        here, there = str(attrs.get("card_set")), str(tuned.get("card_set"))
        if here == there:  # one name, other cards: the hashes tell them apart
            here += f" sha256 {str(attrs.get('card_set_sha256'))[:12]}"
            there += f" sha256 {str(tuned.get('card_set_sha256'))[:12]}"
        where.append(f"card set {here} (tuned on {there})")
    if sorted(tuned.get("expansions") or []) != sorted(attrs.get("expansions") or []):
        where.append(f"expansions {', '.join(attrs.get('expansions') or []) or 'none'} "
                     f"(tuned on {', '.join(tuned.get('expansions') or []) or 'none'})")
    if tuned.get("variant") != attrs.get("variant", "solo"):
        where.append(f"the {attrs.get('variant', 'solo')} game (tuned on the "
                     f"{tuned.get('variant')} game)")
    if tuned.get("rules_version", attrs.get("rules_version")) != attrs.get("rules_version"):
        where.append(f"rules {attrs.get('rules_version')} (tuned under "
                     f"{tuned.get('rules_version')})")
    return where


def tuned_runs_note(runs: dict[str, dict], noun: str, how: str) -> str | None:
    """A note for a command of many runs of one ``weighted:FILE`` policy (runs' labels to
    their configurations): which of them, each called ``noun`` before its label (set; ""
    for a label that names itself), play its weights elsewhere than they were tuned, and
    which plays the games they were tuned on; None when none do. ``how``: the command that
    tunes weights for each."""
    attrs = next(iter(runs.values()), {})
    tuned = attrs.get("policy_tuned_for")
    if tuned is None and plays_shipped_weights(str(attrs.get("policy", ""))):
        # the shipped weights: shipped_weights_note says where they play elsewhere
        tuned, elsewhere = shipped_tuning(), []
    elif not isinstance(tuned, dict) or tuned_key_wrong(tuned):
        return None
    else:
        elsewhere = [label for label, run in runs.items() if tuned_differences(run, tuned)]
    notes = []
    if elsewhere:
        listed = spoken_list(elsewhere)
        nouns = "" if not noun else f"{noun} " if len(elsewhere) == 1 else f"{noun}s "
        which = f"{nouns}{listed} {'plays' if len(elsewhere) == 1 else 'play'}"
        notes.append(f"note: the weights of {attrs.get('policy')} were tuned on "
                     f"{_tuned_place(tuned)}; {which} them elsewhere, where they fit less "
                     f"well than where they were tuned; {how} finds weights of its own")
    # the tuning games are one set's deals: at most one run here plays them
    for label, run in runs.items():
        note = None if label in elsewhere else tuning_games_note(run, tuned)
        if note:
            notes.append(f"note: {f'{noun} {label}'.strip()}: {note.removeprefix('note: ')}")
            break
    return joined_notes(notes)


def joined_notes(notes: list[str | None]) -> str | None:
    """The notes given, a line each, or None when there is none."""
    return "\n".join(note for note in notes if note) or None


def _tuned_place(tuned: dict) -> str:
    """Where a [tuned] table's weights were tuned, in words: its card set (by name and
    hash), expansions, variant and rules."""
    expansions = ", ".join(tuned.get("expansions") or []) or "no expansion"
    rules = f", rules {tuned['rules_version']}" if "rules_version" in tuned else ""
    return (f"card set {tuned.get('card_set')} (sha256 {str(tuned.get('card_set_sha256'))[:12]}"
            f"), {expansions}, the {tuned.get('variant')} game{rules}")


def tuning_games_note(attrs: dict, tuned: dict) -> str | None:
    """A note when a run (its configuration ``attrs``) plays games its weights were tuned
    on (the [tuned] table's seed and games): its win rate there flatters the weights."""
    if "seed" not in tuned or "games" not in tuned or attrs.get("seed") != tuned["seed"] or \
            not _deals_as_tuned(attrs, tuned):
        return None
    first = int(attrs.get("first_game", 0))
    last = min(first + int(attrs.get("games", 0)), tuned["games"]) - 1
    if last < first:
        return None
    which, are = (f"game {first:,}", "is") if last == first else \
        (f"games {first:,}-{last:,}", "are")
    return (f"note: {last - first + 1:,} of these games ({which} of seed {tuned['seed']}) "
            f"{are} among those the weights of {attrs.get('policy')} were tuned on (games "
            f"0-{tuned['games'] - 1:,}), where they win more than on new deals: play "
            "another --seed to measure them")


def plays_shipped_weights(policy: str) -> bool:
    """True for ``weighted`` and for a look-ahead (``search``, ``clairvoyant``) without a
    weights file of its own: they play the shipped weights."""
    kind, _, options = policy.partition(":")
    return policy == "weighted" or (kind in ("search", "clairvoyant") and
                                    "weights=" not in options)


def shipped_tuning() -> dict:
    """Where the shipped weights were tuned, as a [tuned] table: R14's base game, solo, on
    ``SHIPPED_TUNING``'s games (their file predates [tuned])."""
    from analyzer.cards import default_card_set
    from analyzer.cards.loader import play_digest

    return {**SHIPPED_TUNING, "expansions": [], "variant": "solo",
            "deals_sha256": play_digest(default_card_set(), ordered=True)}


def _deals_as_tuned(attrs: dict, tuned: dict) -> bool:
    """True when a run (its configuration ``attrs``) deals game g of a seed as the tuning of
    a [tuned] table did: the same cards in play in the same order (the set's own hash for a
    table without ``deals_sha256``, which also holds its name), expansions, variant and
    rules."""
    if sorted(tuned.get("expansions") or []) != sorted(attrs.get("expansions") or []) or \
            tuned.get("variant") != attrs.get("variant", "solo") or \
            tuned.get("rules_version", attrs.get("rules_version")) != attrs.get("rules_version"):
        return False
    if "deals_sha256" not in tuned:
        return tuned.get("card_set_sha256") == attrs.get("card_set_sha256")
    from analyzer.cards.loader import play_digest

    played = played_cards(attrs, attrs.get("expansions") or [])
    return played is not None and play_digest(played, ordered=True) == tuned["deals_sha256"]


def played_cards(attrs: dict, expansions: list[str]) -> CardSet | None:
    """The card set a run (its configuration ``attrs``) played, with ``expansions`` in play:
    the shipped set, or the table its results kept; None when neither is at hand or the set
    has no cards of one of ``expansions``."""
    from analyzer.cards import default_card_set
    from analyzer.cards.loader import parse_expansions, unpacked_table

    shipped = default_card_set()
    digest = str(attrs.get("card_set_sha256"))
    played = shipped if digest == shipped.digest else unpacked_table(
        attrs.get("card_set_table"), str(attrs.get("card_set")), digest, "")
    try:
        return None if played is None else played.with_expansions(parse_expansions(expansions))
    except UrbionError:  # a CardSetError among them
        return None


def _same_cards_as_tuned(tuned: dict, attrs: dict) -> bool:
    """True when a run (its configuration ``attrs``) played the cards a [tuned] table names,
    under another name or order: by the cards' own digest where the table has one, else
    where both are R14's (a table of the shipped set, a run of R14's cards)."""
    from analyzer.cards import default_card_set
    from analyzer.cards.loader import cards_digest, play_digest

    if "cards_in_play_sha256" in tuned:  # the cards the tuning played, as this run holds them
        played = played_cards(attrs, tuned.get("expansions") or [])
        return played is not None and \
            play_digest(played, ordered=False) == tuned["cards_in_play_sha256"]
    if TUNED_CARDS_KEY not in tuned:
        return tuned.get("card_set_sha256") == default_card_set().digest and \
            plays_r14_cards(attrs)
    played = played_cards(attrs, [])
    return played is not None and cards_digest(played) == tuned[TUNED_CARDS_KEY]


def weights_note(attrs: dict, per_set: bool = False) -> str | None:
    """The note of :func:`shipped_weights_note` or :func:`tuned_weights_note` that a run's
    configuration ``attrs`` calls for, if any."""
    return shipped_weights_note([str(attrs.get("policy", ""))], not plays_r14_cards(attrs),
                                attrs.get("expansions") or [], attrs.get("variant", "solo"),
                                per_set) or tuned_weights_note(attrs)


def plays_r14_cards(attrs: dict) -> bool:
    """True when a run (its configuration ``attrs``) played R14's cards, kind for kind, of
    the base game and the expansions in play: the shipped set, or a renamed, reordered or
    otherwise changed copy of it that the results file kept (changes to expansions not in
    play do not count)."""
    from analyzer.cards import default_card_set
    from analyzer.cards.loader import parse_expansions, play_digest

    shipped = default_card_set()
    if attrs.get("card_set_sha256") == shipped.digest:
        return True
    expansions = attrs.get("expansions") or []
    played = played_cards(attrs, expansions)
    return played is not None and play_digest(played, ordered=False) == play_digest(
        shipped.with_expansions(parse_expansions(expansions)), ordered=False)


#: The shipped weights set by hand on the scale of the tuned ones, not tuned (the tune
#: played the base game, where they score nothing), each with the expansion it plays on
#: and that expansion's title.
HAND_SET_WEIGHTS = {"FLEX": ("gardens_wizards", "Hanging Gardens & Wizards"),
                    "POSTCARD": ("postcards", "the Postcards")}


def _hand_set_words(expansions: list[str]) -> str:
    """What a note adds on the hand-set shipped weights among ``expansions`` (names, or
    sets of names joined by ``+``, or ``all``): empty when none plays."""
    played = {name for item in expansions for name in item.lower().replace("+", ",").split(",")}
    hand = {weight: title for weight, (name, title) in HAND_SET_WEIGHTS.items()
            if name in played or "all" in played}
    if not hand:
        return ""
    stalls = "" if "POSTCARD" not in hand else \
        ", and with the Postcards weighted stalls" if len(hand) > 1 else \
        ", with which weighted stalls"
    return (f", but for {' and '.join(hand)}, set by hand for {' and '.join(hand.values())}"
            f"{stalls} (docs/policies.md)")


def shipped_weights_note(policies: list[str], other_cards: bool, expansions: list[str],
                         variant: str, per_set: bool = False,
                         per_card_set: bool = False) -> str | None:
    """A note when the shipped ``weighted`` policy, or ``search`` or ``clairvoyant``, which
    look ahead with its weights, plays where its weights were not tuned
    (they were tuned on R14's base game, solo): ``other_cards`` than R14's
    (:func:`plays_r14_cards`), expansions, or the team game; None otherwise, or when
    ``weighted`` does not play. ``per_set``: for a comparison of expansion sets, each of
    which would need its own tune; ``per_card_set``: for card sets that differ (a
    sensitivity analysis), each of which would."""
    # a look-ahead given a weights file of its own plays those (tuned_weights_note's)
    lookahead = [p for p in policies if p != "weighted" and plays_shipped_weights(p)]
    if "weighted" not in policies and not lookahead:
        return None
    where = []
    if other_cards:
        where.append("other cards")
    if expansions:
        where.append("expansions")
    if variant == "team":
        where.append("the team game")
    if not where:
        return None
    if per_set:
        how = ("`urbion tune --expansions SET` for each set (with the same --cards and "
               "--variant)")
    elif per_card_set:
        how = ("`urbion tune --cards FILE` for each card set (with the same --expansions and "
               "--variant)")
    else:
        how = "`urbion tune` (with the same --cards, --expansions and --variant)"
    if "weighted" not in policies:  # look-aheads on the shipped weights alone
        return (f"note: {' and '.join(lookahead)} {'looks' if len(lookahead) == 1 else 'look'}"
                f" ahead with weighted's shipped weights, tuned on R14's base game solo"
                f"{_hand_set_words(expansions)}; "
                f"with {' and '.join(where)}, {how} finds weights that play better there, "
                "given as the option weights=FILE.toml")
    also = "" if not lookahead else \
        f" ({' and '.join(lookahead)} {'looks' if len(lookahead) == 1 else 'look'} ahead " \
        "with them)"
    return (f"note: weighted plays weights tuned on R14's base game solo"
            f"{_hand_set_words(expansions)}{also}; with "
            f"{' and '.join(where)}, {how} finds weights of their own")
