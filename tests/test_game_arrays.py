"""GameArrays read from Python: a field read must not keep its array alive."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

LEAK_CHECK = textwrap.dedent("""
    import gc
    import numpy as np
    from numba.core.runtime import rtsys
    from analyzer.rules.state_nb import new_game_nb

    def live():
        stats = rtsys.get_allocation_stats()
        return stats.alloc - stats.free

    def read_fields():
        g = new_game_nb(100, 0, 0, 64, np.zeros(3))
        for _ in range(3):
            log, info, layout = g.log, g.info, g.layout
            del log, info, layout

    read_fields()  # compile the getters
    gc.collect()
    before = live()
    read_fields()
    gc.collect()
    print(live() - before)
""")


def test_a_game_whose_fields_python_read_is_freed_whole():
    """Reading ``g.log`` once kept the log (half a megabyte in a trace) after the game went:
    numba's getattr with a constant name counted one reference too many."""
    env = {**os.environ, "NUMBA_NRT_STATS": "1"}
    proc = subprocess.run([sys.executable, "-c", LEAK_CHECK], capture_output=True, text=True,
                          env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert int(proc.stdout.strip().splitlines()[-1]) == 0
