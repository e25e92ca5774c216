"""Seeds derived from seeds: every formula the project uses, in one place."""

from __future__ import annotations

SEED_SPACE = 2**64  # seeds are integers in 0..SEED_SPACE - 1, as the core's RNG takes them


def derive_seed(seed: int, index: int) -> int:
    """The `index`-th seed derived from `seed`: ``(seed * 7919 + index) % 2**64``.

    This is the project's way to derive a seed from a seed (one per
    determinization, game, move, ...), so that one seed given to any part
    reproduces the whole run. The formula is fixed: the search's principal-
    variation determinizations use it, and another one would change search
    answers for a seed."""
    return (seed * 7919 + index) % SEED_SPACE


def tree_seed(seed: int, index: int) -> int:
    """The seed of the `index`-th tree of one search: ``(seed + index) % 2**64``,
    so that a one-thread search grows its tree from the search's own seed. Fixed
    like :func:`derive_seed`: search answers for a seed depend on it."""
    return (seed + index) % SEED_SPACE


def salted_seed(seed: int, salt: int) -> int:
    """A seed for a draw made beside the main use of `seed` (a move's temperature
    draw beside its search): ``seed ^ salt``, so the two streams differ. Fixed: the
    moves drawn for a seed depend on it."""
    return seed ^ salt
