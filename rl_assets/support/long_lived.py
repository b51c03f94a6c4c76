"""Objects that live as long as the process are kept out of the cycle collector's full passes.

Python's cycle collector walks every tracked object of its oldest generation on each full pass. A
run process tracks ~140,000 objects once the code location is loaded (Dagster's ~128,000, then
the definitions), and they live as long as the process: the passes that walked them again and
again took ~0.1-0.2 s of a 12-row Q1 run's ~0.4 s of collection (gc callbacks, bench/RESULTS.md
"Sixth pass"). `gc.freeze()` moves every object alive now into a permanent generation that no
pass walks. Reference counting still frees them as before; only a reference cycle among them
that becomes garbage later is never reclaimed, which for import-time objects is nothing, and for a
run process (a fork freezes the run's state too) lasts until the run ends.

A forked child (rl_assets/support/forked_call.py) shares its parent's pages until it writes to
them, and a full pass writes to every object it walks (its collector bookkeeping), so before a
fork the same freeze keeps those pages shared: the Python documentation's recipe for gc.freeze.
At 4x the two processes' summed PSS fell from 409-423 MB to 344-362 MB (bench/RESULTS.md).
"""

from __future__ import annotations

import gc


def freeze_long_lived() -> int:
    """Move every object alive now out of the collector's passes; returns how many are frozen."""
    gc.freeze()
    return gc.get_freeze_count()
