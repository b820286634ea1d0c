"""Which items fall under a share, decided by their ids: the same items every run, on every machine."""

from __future__ import annotations

import hashlib


def share_point(key: str) -> float:
    """A point in [0, 1) fixed by ``key``: an item is in a share ``r`` when its point is below ``r``
    (so the items of a smaller share are among those of a larger one)."""
    return int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big") / 2**64
