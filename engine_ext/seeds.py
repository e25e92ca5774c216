"""Seeds derived from seeds."""

from __future__ import annotations

SEED_SPACE = 2**64  # seeds are integers in 0..SEED_SPACE - 1, as the core's RNG takes them


def derive_seed(seed: int, index: int) -> int:
    """The `index`-th seed derived from `seed`: ``(seed * 7919 + index) % 2**64``.

    This is the project's one way to derive a seed from a seed (one per
    determinization, game, move, ...), so that one seed given to any part
    reproduces the whole run. The formula is fixed: the search's principal-
    variation determinizations use it, and another one would change search
    answers for a seed."""
    return (seed * 7919 + index) % SEED_SPACE
