"""Names of the features of a learned evaluation, in the order the core writes them.

``Position.features(seat)`` describes a position as one seat sees it, and
``Position.action_features(seat, codes)`` each of some legal actions; both are
computed in the compiled core (features.pxi, declared in core.pxd) from what
the seat may know only (docs/engine.md#features lists them):

    >>> from cacaoai.engine import Position, features
    >>> values = Position.new(players=2, seed=7).features(0)
    >>> len(values) == features.N_FEATURES
    True
    >>> features.named(values)["s0:water_next"]
    1.0

Position features are a global block, then one block per seat starting with
the viewing seat's own (``s0:``), then the next seat's (``s1:``) and so on;
the blocks of seats a game does not have are zeros. A model must be fed the
``FEATURES_VERSION`` it was trained on.
"""

from __future__ import annotations

from collections.abc import Sequence

from . import core

_VERSION, _POSITION, _ACTION = core.feature_layout()

FEATURES_VERSION: int = _VERSION
POSITION_FEATURES: tuple[str, ...] = tuple(_POSITION)
ACTION_FEATURES: tuple[str, ...] = tuple(_ACTION)
N_FEATURES: int = len(POSITION_FEATURES)
N_ACTION_FEATURES: int = len(ACTION_FEATURES)

__all__ = ["ACTION_FEATURES", "FEATURES_VERSION", "N_ACTION_FEATURES", "N_FEATURES", "POSITION_FEATURES",
           "named"]


def named(values: Sequence[float]) -> dict[str, float]:
    """{name: value} of a position's or an action's feature vector (by its length)."""
    names = {N_FEATURES: POSITION_FEATURES, N_ACTION_FEATURES: ACTION_FEATURES}.get(len(values))
    if names is None:
        raise ValueError(f"values: {len(values)} values are neither {N_FEATURES} position "
                         f"nor {N_ACTION_FEATURES} action features")
    return {name: float(v) for name, v in zip(names, values)}
