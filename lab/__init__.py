"""The lab: what measures the search and makes its model, apart from the service.

Bots against each other (``arena.py``, ``cacao-arena``), their ratings and A/B
tests (``ladder.py``, ``ratings.py``, another build's bots in ``builds.py``),
how well the win probabilities match outcomes and the maps that correct them
(``calibration.py``, ``cacao-calibration``), self-play and training of the
networks the search ships (``selfplay.py``, ``train.py``, ``mlp.py``), and the
local or Ray pool they run games on (``pool.py``). The lab uses the search
(:mod:`cacaoai.search`) and the engine; the service never imports the lab
(an import-linter contract in pyproject.toml), so nothing here runs inside
``cacao-server``.
"""
