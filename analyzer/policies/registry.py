"""Built-in policies by name: the jitted function, its parameters and a description."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from analyzer import arguments
from analyzer.errors import PolicyError, UrbionError
from analyzer.policies.builtin_nb import BuiltinId
from analyzer.policies.greedy_nb import greedy_nb, greedy_params
from analyzer.policies.loader import file_form_hint, load_user_policy
from analyzer.policies.random_nb import random_nb
from analyzer.policies.spec import PolicySpec


def _builtins() -> dict[str, PolicySpec]:
    return {
        "random": PolicySpec("random", random_nb, np.zeros(0, dtype=np.float64),
                             "uniform over the legal options of every decision",
                             BuiltinId.RANDOM),
        "greedy": PolicySpec("greedy", greedy_nb, greedy_params(),
                             "one-step heuristic of a careful beginner (docs/policies.md)",
                             BuiltinId.GREEDY, lambda cards: greedy_params(cards=cards)),
        "weighted": weighted_policy(None),
        "search": search_policy("search", ""),
        "clairvoyant": search_policy("clairvoyant", ""),
    }


WEIGHTED_PREFIX = "weighted:"
SEARCH_DEFAULTS = {"search": {"rollouts": 8, "candidates": 3},
                   "clairvoyant": {"rollouts": 1, "candidates": 1024}}
SEARCH_LIMITS = {"rollouts": 4096, "candidates": 1024}
#: The options each takes: clairvoyant plays out the true deck order, the same at every
#: rollout, so it takes no rollouts.
SEARCH_OPTIONS = {"search": ("rollouts", "candidates", "weights"),
                  "clairvoyant": ("candidates", "weights")}
#: The option naming a weights file: the weighted policy whose candidates and play-outs
#: the look-ahead follows (the shipped weights without it).
WEIGHTS_OPTION = "weights"


def search_policy(kind: str, options: str) -> PolicySpec:
    """``search`` or ``clairvoyant`` with ``rollouts=N,candidates=K,weights=FILE.toml``
    options (any subset)."""
    import analyzer.policies.search_nb  # noqa: F401 - registers the engine-policy overloads
    from analyzer.core.codes import EnginePolicy, EnginePolicyId
    from analyzer.policies.weights import read_weights_file

    settings, weights_file = _search_settings(kind, options)
    tail = np.array([settings["rollouts"], settings["candidates"]], dtype=np.float64)
    # play-outs and candidates follow the weighted policy of those weights
    weights, tuned, text = read_weights_file(weights_file)

    def params_for(cards: np.ndarray | None) -> np.ndarray:
        return np.concatenate([greedy_params(weights, cards), tail])

    # one name for one policy: the defaults spelt out are the plain name (a resume, a duel
    # and the results compare policies by it)
    parts = [] if settings == SEARCH_DEFAULTS[kind] else \
        [f"{k}={settings[k]}" for k in SEARCH_OPTIONS[kind] if k != WEIGHTS_OPTION]
    if weights_file is not None:
        parts.append(f"{WEIGHTS_OPTION}={weights_file}")
    name = f"{kind}:{','.join(parts)}" if parts else kind
    engine_id = EnginePolicyId.SEARCH if kind == "search" else EnginePolicyId.CLAIRVOYANT
    description = {"search": "plays each candidate out on imagined orders of the unseen "
                             "cards (search:rollouts=N,candidates=K,weights=FILE)",
                   "clairvoyant": "plays each candidate out on the true deck order: what "
                                  "knowing the deck is worth to this look-ahead "
                                  "(clairvoyant:candidates=K,weights=FILE)"}[kind]
    return PolicySpec(name, greedy_nb, params_for(None), description,
                      params_for_cards=params_for, kernel=EnginePolicy(engine_id),
                      tuned_for=tuned, weights_file_text=text)


def _search_settings(kind: str, options: str) -> tuple[dict[str, int], str | None]:
    """The numbers of a look-ahead's ``options`` over its defaults, and its weights file
    (None: the shipped weights); each option at most once."""
    settings = dict(SEARCH_DEFAULTS[kind])
    weights_file = None
    given: set[str] = set()
    for item in filter(None, (part.strip() for part in options.split(","))):
        key, _, value = item.partition("=")
        if key not in SEARCH_OPTIONS[kind]:
            raise PolicyError(f"policy {kind}: unknown option {key!r} (valid: "
                              f"{', '.join(SEARCH_OPTIONS[kind])})")
        if key in given:  # a later value silently winning would hide a typo
            raise PolicyError(f"policy {kind}: {key} is given twice in {options!r}")
        given.add(key)
        if key == WEIGHTS_OPTION:
            if not value.strip():
                raise PolicyError(f"policy {kind}: weights names no weights file "
                                  "(weights=FILE.toml)")
            weights_file = value.strip()
        elif not (value.isascii() and value.isdigit()) or \
                not 1 <= int(value) <= SEARCH_LIMITS[key]:
            raise PolicyError(f"policy {kind}: {key} must be a whole number from 1 to "
                              f"{SEARCH_LIMITS[key]}, not {value!r}")
        else:
            settings[key] = int(value)
    return settings, weights_file


def weighted_policy(path: str | None) -> PolicySpec:
    """``weighted`` with the weights of a TOML file (``urbion tune`` writes them), or with
    the shipped tuned default for None. It plays with greedy's features and kernel."""
    from analyzer.policies.weights import read_weights_file

    weights, tuned, text = read_weights_file(path)
    name = "weighted" if path is None else f"{WEIGHTED_PREFIX}{path}"
    return PolicySpec(name, greedy_nb, greedy_params(weights),
                      "greedy's features with tuned weights; weighted:FILE.toml for others",
                      BuiltinId.GREEDY, lambda cards: greedy_params(weights, cards),
                      tuned_for=tuned, weights_file_text=text)


BUILTIN_POLICIES = _builtins()


def _option_form(kind: str) -> str:
    """How ``kind`` (search, clairvoyant) is given its options: "search:rollouts=N,..."."""
    return f"{kind}:" + ",".join(f"{key}=FILE.toml" if key == WEIGHTS_OPTION else f"{key}=N"
                                 for key in SEARCH_OPTIONS[kind])


def policy_label(name: str) -> str:
    """A policy's name as given, with a built-in's name or kind in lower case, as
    :func:`resolve_policy` reads it: ``Greedy`` is ``greedy``, ``Search:candidates=2``
    is ``search:candidates=2`` (its options as given)."""
    if name.lower() in BUILTIN_POLICIES:
        return name.lower()
    kind, colon, options = name.partition(":")
    if colon and kind.lower() in (*SEARCH_DEFAULTS, WEIGHTED_PREFIX[:-1]):
        return f"{kind.lower()}:{options}"
    return name


#: Which policies take what after a colon, for a message on one that takes nothing.
OPTIONS_TAKEN = "search and clairvoyant take options; weighted a weights file, weighted:FILE.toml"


def names_a_builtin(name: str) -> bool:
    """Whether ``name`` is one a built-in policy answers to (``greedy``, ``Weighted``,
    ``search:rollouts=2``, ``weighted:FILE``; not ``search:choose``, a user's module named
    search): a policy of one's own under it would be read as that built-in in every
    result and on every page."""
    kind = name.strip().lower()
    head, colon, options = kind.partition(":")
    # as resolve_policy reads a name: search:choose is a user's module named search
    return kind in BUILTIN_POLICIES or (bool(colon) and head == WEIGHTED_PREFIX[:-1]) or \
        (head in SEARCH_DEFAULTS and "=" in options)


def resolve_policy(name: str, compiled: bool = True) -> PolicySpec:
    """A built-in policy by name, ``weighted:FILE.toml``, or a user's ``FILE.py:FUNCTION`` /
    ``MODULE:FUNCTION``; ``compiled=False`` leaves a user's function uncompiled and
    unchecked, for its name and fingerprint only (``load_user_policy``)."""
    if name in BUILTIN_POLICIES:
        return BUILTIN_POLICIES[name]
    if name.lower() in BUILTIN_POLICIES:  # "Greedy", as --expansions takes "ALL"
        return BUILTIN_POLICIES[name.lower()]
    kind, colon, options = name.partition(":")
    if colon and kind.lower() in (*SEARCH_DEFAULTS, WEIGHTED_PREFIX[:-1]) and \
            kind != kind.lower():  # "Search:rollouts=2", "Weighted:FILE"
        return resolve_policy(f"{kind.lower()}:{options}", compiled)
    if name.startswith(WEIGHTED_PREFIX):
        path = name.removeprefix(WEIGHTED_PREFIX)
        if not path.strip():
            raise PolicyError(f"policy {name!r} names no weights file (weighted:FILE.toml, or "
                              "weighted for the shipped weights)")
        if path.startswith(f"{WEIGHTS_OPTION}=") and not Path(path).is_file():
            # search's option, given to weighted (a file of that name is taken as named)
            raise PolicyError(f"policy {name!r}: weighted takes its weights file as "
                              f"weighted:FILE.toml (weights=FILE.toml is an option of search "
                              "and clairvoyant)")
        if not Path(path).exists() and (hint := file_form_hint("weighted", path)):
            # weighted:choose, meant for a weighted.py of one's own
            raise PolicyError(f"policy {name!r}: no weights file {path}{hint}")
        return weighted_policy(path)
    kind, colon, options = name.partition(":")
    if kind in SEARCH_DEFAULTS and colon and not options.strip(" ,"):
        raise PolicyError(f"policy {name!r} gives no options: {kind}, or "
                          f"{_option_form(kind)}")
    if kind in SEARCH_DEFAULTS and (not options or "=" in options):
        return search_policy(kind, options)  # else a user's module named search or similar
    if kind in BUILTIN_POLICIES and kind not in SEARCH_DEFAULTS and "=" in options:
        # a function's name holds no "="
        raise PolicyError(f"policy {kind} takes no options ({OPTIONS_TAKEN}), not {options!r}")
    if ":" in name:
        try:
            return load_user_policy(name, compiled)
        except PolicyError as err:
            if kind in BUILTIN_POLICIES and f"cannot import {kind}:" in str(err):
                # most likely a built-in's name with an option it does not take
                takes = (f"takes options as {_option_form(kind)}" if kind in SEARCH_DEFAULTS
                         else f"takes no options ({OPTIONS_TAKEN})")
                raise PolicyError(f"policy {kind} {takes}, not {options!r}; nor is there a "
                                  f"module {kind} with a function {options}"
                                  f"{file_form_hint(kind, options)}") from None
            raise
    valid = ", ".join(sorted(BUILTIN_POLICIES))
    raise PolicyError(f"unknown policy {name!r} (valid: {valid}, or FILE.py:FUNCTION)")


def policy_list(name: str, value: object) -> list[str]:
    """Policy names as a list, from a comma-separated string or a list of strings.

    In a string, a piece ``key=value`` with no ``:`` is a further setting of the policy
    before it when that policy takes settings (``search:...``, ``clairvoyant:...``), since
    their settings are comma-separated too: ``greedy,search:rollouts=2,candidates=2`` is two
    policies.
    """
    given = arguments.names(name, value, optional=False)
    if not isinstance(given, str):
        if any(not item.strip() for item in given):  # as an empty name between commas
            raise UrbionError(f"{arguments.option(name)}: an empty name in {list(given)!r}")
        return [item.strip() for item in given]
    policies: list[str] = []
    pieces = [item.strip() for item in given.split(",")]
    if "" in pieces and any(pieces):  # a slip: "greedy,,random" names no third policy
        raise UrbionError(f"{arguments.option(name)}: an empty name in {given!r} (policies are "
                          "separated by single commas)")
    for piece in pieces:
        is_setting = "=" in piece and ":" not in piece  # a setting names no file
        takes_settings = bool(policies) and policies[-1].partition(":")[0] in SEARCH_DEFAULTS
        if is_setting and takes_settings and ":" in policies[-1]:
            policies[-1] += "," + piece
        elif piece:
            policies.append(piece)
    return policies


def policy_entries(name: str, value: object) -> list:
    """Policies given as names (``policy_list``) or, in a list, as names and ``PolicySpec``
    objects (a notebook's own policy) mixed."""
    if isinstance(value, Sequence) and not isinstance(value, str):
        if not all(isinstance(item, str | PolicySpec) for item in value):
            raise UrbionError(f"{name} must be policy names or PolicySpec objects, not "
                              f"{arguments.kind_of(value)}")
        if any(isinstance(item, str) and not item.strip() for item in value):
            raise UrbionError(f"{arguments.option(name)}: an empty name in the list")
        if any(isinstance(item, PolicySpec) for item in value):
            return [item.strip() if isinstance(item, str) else item for item in value]
    return policy_list(name, value)


def portable_name(name: str) -> str:
    """``name`` with a relative weights or policy file made absolute, as this process finds
    it: the name a cluster's workers resolve, whose working folder is another."""
    if name.lower().startswith(WEIGHTED_PREFIX):
        return name[:len(WEIGHTED_PREFIX)] + _absolute(name[len(WEIGHTED_PREFIX):])
    if name.partition(":")[0].lower() in SEARCH_DEFAULTS:
        return with_weights_file(name, _absolute)
    where, colon, function = name.rpartition(":")
    if colon and where.endswith(".py"):
        return f"{_absolute(where)}:{function}"
    return name


def weights_file_of(name: str) -> str | None:
    """The weights file a policy name reads, as :func:`resolve_policy` reads it: FILE of
    ``weighted:FILE`` or of a look-ahead's ``weights=FILE``, in any letter case of the
    kind; None for a policy that reads none (or the shipped weights)."""
    kind, colon, options = policy_label(name).partition(":")
    if not colon:
        return None
    if f"{kind}:" == WEIGHTED_PREFIX:
        return options or None
    if kind in SEARCH_DEFAULTS:
        prefix = f"{WEIGHTS_OPTION}="
        for part in options.split(","):
            if part.strip().startswith(prefix):
                return part.strip().removeprefix(prefix).strip() or None
    return None


def with_weights_file(name: str, change: Callable[[str], str]) -> str:
    """A look-ahead's name (``search:...,weights=FILE``) with ``change(FILE)`` for its
    weights file; a name without that option as it is."""
    kind, colon, options = name.partition(":")
    if not colon:
        return name
    prefix = f"{WEIGHTS_OPTION}="
    return f"{kind}:" + ",".join(
        prefix + change(part.strip().removeprefix(prefix).strip())
        if part.strip().startswith(prefix) else part for part in options.split(","))


def _absolute(path: str) -> str:
    """A relative path (or one from ``~``) to an existing file as an absolute one; anything
    else as it is."""
    try:
        file = Path(path).expanduser()
        return str(file.resolve()) if not Path(path).is_absolute() and file.is_file() \
            else path
    except (OSError, ValueError):
        return path
