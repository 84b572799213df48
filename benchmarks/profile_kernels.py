"""Where a game's time goes, kernel by kernel, with Linux ``perf``.

numba's kernels are machine code that ``perf`` cannot name. ``play`` plays greedy games of
one expansion set on one thread, with the disk cache off so that every kernel is compiled
in this process, then writes ``/tmp/perf-<pid>.map``, the file ``perf report`` reads a
JIT's symbols from, and ``NAME.json`` with the games and turns played. ``report`` reads
two such recordings and prints each kernel's time per turn in both, then what a turn of the
second set would cost without the kernels only it runs: the part of its time that work the
first set never does can account for.

Usage (the map file stays in /tmp for ``report``):
  URBION_NO_CACHE=1 perf record -F 2000 -o base.data \\
      python benchmarks/profile_kernels.py play base
  URBION_NO_CACHE=1 perf record -F 2000 -o all.data \\
      python benchmarks/profile_kernels.py play all --expansions all
  python benchmarks/profile_kernels.py report base all
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

#: Kernels from this package, and numba's reference counting, in ``perf``'s symbols.
OWN_SYMBOL = re.compile(r"^_ZN\d+analyzer|^NRT_")


def play(name: str, expansions: str, variant: str, games: int) -> None:
    """Play ``games`` greedy games on one thread, then write the symbol map and NAME.json."""
    from analyzer.core.jit import NO_CACHE_WORDS

    if os.environ.get("URBION_NO_CACHE", "").strip().lower() not in NO_CACHE_WORDS:
        sys.exit("set URBION_NO_CACHE=1: kernels loaded from the disk cache have no names")
    import analyzer

    analyzer.simulate(games=10, expansions=expansions, variant=variant, workers=1)
    start = time.perf_counter()
    df = analyzer.simulate(games=games, seed=1, expansions=expansions, variant=variant,
                           workers=1)
    seconds = time.perf_counter() - start
    n_symbols = write_symbol_map(Path(f"/tmp/perf-{os.getpid()}.map"))
    stats = {"expansions": expansions, "variant": variant, "games": games,
             "turns": float(df["turns"].mean()), "seconds": seconds}
    Path(f"{name}.json").write_text(json.dumps(stats))
    print(f"{games:,} games in {seconds:.2f} s, {stats['turns']:.1f} turns a game; "
          f"{n_symbols} kernels named", file=sys.stderr)


def write_symbol_map(path: Path) -> int:
    """Write every compiled kernel's address range and symbol in ``perf``'s map format."""
    from numba.core.codegen import JITCodeLibrary

    addresses: dict[int, str] = {}
    for library in (o for o in gc.get_objects() if isinstance(o, JITCodeLibrary)):
        module = getattr(library, "_final_module", None)
        if module is None:
            continue
        for function in module.functions:
            if function.is_declaration:
                continue
            address = library._codegen._engine.get_function_address(function.name)
            if address:
                addresses[address] = function.name
    starts = sorted(addresses)
    if not starts:
        return 0
    with path.open("w") as out:
        for start, end in zip(starts, [*starts[1:], starts[-1] + 4096], strict=True):
            out.write(f"{start:x} {min(end - start, 1 << 20):x} {addresses[start]}\n")
    return len(starts)


def kernel_name(symbol: str) -> str:
    """``module.function`` from a mangled kernel symbol (numba mangles like C++)."""
    if symbol.startswith("NRT_"):
        return symbol
    parts, i = [], 3  # after "_ZN"
    while i < len(symbol) and symbol[i].isdigit():
        j = i
        while symbol[j].isdigit():
            j += 1
        size = int(symbol[i:j])
        parts.append(symbol[j:j + size])
        i = j + size
    return ".".join(parts[2:]) or symbol  # drop "analyzer" and the layer


def kernel_times(name: str) -> tuple[dict[str, float], dict]:
    """Nanoseconds per turn of each kernel in recording NAME, and NAME.json."""
    stats = json.loads(Path(f"{name}.json").read_text())
    try:
        report = subprocess.run(
            ["perf", "report", "-i", f"{name}.data", "-g", "none", "--no-children",
             "--sort", "symbol", "--stdio", "-F", "period,sym"],
            capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as err:
        sys.exit(f"perf report on {name}.data failed: {err}")
    turns = stats["games"] * stats["turns"]
    times: dict[str, float] = {}
    for line in report.splitlines():
        fields = line.split()
        if len(fields) >= 3 and fields[0].isdigit() and OWN_SYMBOL.match(fields[2]):
            kernel = kernel_name(fields[2])
            times[kernel] = times.get(kernel, 0.0) + int(fields[0]) / turns  # ns of CPU
    return times, stats


def report(first: str, second: str, rows: int) -> None:
    """Print both recordings' kernels per turn, and the second without its own kernels."""
    a, a_stats = kernel_times(first)
    b, b_stats = kernel_times(second)
    total_a, total_b = sum(a.values()), sum(b.values())
    print(f"{first}: {a_stats['turns']:.1f} turns a game, {total_a:,.0f} ns a turn in "
          f"kernels; {second}: {b_stats['turns']:.1f} turns, {total_b:,.0f} ns "
          f"({total_b / total_a:.2f}x)")
    print(f"{'kernel':<46} {first:>10} {second:>10}   ratio  (ns a turn)")
    for kernel in sorted(b, key=b.get, reverse=True)[:rows]:
        ratio = f"{b[kernel] / a[kernel]:6.2f}x" if kernel in a else "   only"
        print(f"{kernel:<46} {a.get(kernel, 0.0):>10,.0f} {b[kernel]:>10,.0f}   {ratio}")
    own = sum(t for kernel, t in b.items() if kernel not in a)
    longer = b_stats["turns"] / a_stats["turns"]
    print(f"kernels only {second} runs: {own:,.0f} ns a turn ({own / total_b:.0%})")
    print(f"a {second} turn costs {total_b / total_a:.2f}x a {first} turn, "
          f"{(total_b - own) / total_a:.2f}x without those kernels; a game lasts "
          f"{longer:.2f}x as many turns, so games/s would be "
          f"{total_a / (total_b - own) / longer:.2f}x {first}'s at best")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    play_args = commands.add_parser("play", help="play games under perf record")
    play_args.add_argument("name")
    play_args.add_argument("--expansions", default="none")
    play_args.add_argument("--variant", default="solo")
    play_args.add_argument("--games", type=int, default=60_000)
    report_args = commands.add_parser("report", help="compare two recordings")
    report_args.add_argument("first")
    report_args.add_argument("second")
    report_args.add_argument("--rows", type=int, default=20)
    args = parser.parse_args()
    if args.command == "play":
        play(args.name, args.expansions, args.variant, args.games)
    else:
        report(args.first, args.second, args.rows)


if __name__ == "__main__":
    main()
