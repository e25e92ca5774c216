"""Pure-Python reference implementation of the Cacao rules, used as a test oracle."""

from .cacao_ref import RefGame, canonical, random_header, resolution_results, temple_awards

__all__ = ["RefGame", "canonical", "random_header", "resolution_results", "temple_awards"]
