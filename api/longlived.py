"""What a long-running process loaded at start-up is kept out of the cyclic collector's sight.

The service, a decider and a queue worker each hold about 300,000 objects once started (torch,
the catalogue, pydantic's schemas, the warmed-up references), and a full collection walks all of
them: about 70 ms on a slow core, paid by whichever request allocates past the threshold, every
few dozen verdicts under load (measured on a decider: 2.1 ms per failing verdict on average,
0.2 ms once these objects are set aside). They live as long as the process, so walking them
finds nothing. ``gc.freeze`` moves them to a generation the collector never visits; objects made
afterwards are collected as before. The zygote does the same for another reason (copy-on-write).
"""

from __future__ import annotations

import gc


def settle() -> int:
    """Collect once, then set aside every object alive now; how many were set aside."""
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()
