"""The learned evaluation's files: load a model for the search.

A model is a ``.npz`` file of float32 arrays and a JSON manifest beside it,
both shipped in the package (``cacaoai/search/models/``) or anywhere on disk:

- value network: ``w1`` (H1 x F), ``b1``, ``w2`` (H2 x H1, empty for one
  hidden layer), ``b2``, ``w_out`` (12 x H), ``b_out``: per seat from the
  viewer on, a win-share logit, the final gold margin and the final gold (the
  last two in units of ``gold_scale``);
- policy network: ``p_w1`` (P x A), ``p_b1``, ``p_w2`` (P), ``p_b2`` (1): an
  action's logit from its features; and optionally ``p_wx`` (P x F), the
  weights of the position's features (the mover's view) in its hidden layer,
  for a policy that sees the position as well as the action.

The manifest says what the model is and how it was made: ``name``,
``version``, ``features_version`` (the engine's FEATURES_VERSION it reads),
``gold_scale``, the training ``data`` and ``seed``, the held-out ``metrics``,
and an optional ``calibration`` for the win probabilities the search reports:
one map, or a map per settings (``{"play": ..., "analysis": ...}``,
``SearchSettings.calibration``), each saying the population it was fitted to
(docs/search.md, "Calibration"). Loading needs numpy only.

Thread-safety: models are immutable; ``load_model`` caches them and may be
called from any thread.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from cacaoai.engine import features

from ._mcts import ModelHandle

__all__ = ["DEFAULT_MODEL", "ARRAYS", "OPTIONAL_ARRAYS", "Model", "load_model", "model_path", "save_model"]

DEFAULT_MODEL = "cacao"
ARRAYS = ("w1", "b1", "w2", "b2", "w_out", "b_out", "p_w1", "p_b1", "p_w2", "p_b2")
OPTIONAL_ARRAYS = ("p_wx",)

_lock = threading.Lock()
_cache: dict[str, Model] = {}


@dataclass(frozen=True)
class Model:
    """A loaded model: its manifest and the handle the search's trees use."""

    name: str
    manifest: dict[str, Any]
    handle: ModelHandle = field(repr=False)

    @property
    def version(self) -> str:
        """"name-version", as GetServerInfo reports it."""
        return f"{self.manifest['name']}-{self.manifest['version']}"


def model_path(name: str) -> Path:
    """The .npz file of a shipped model's name, or of a path given as is."""
    path = Path(name)
    if path.suffix == ".npz" or path.is_absolute() or path.parent != Path("."):
        return path
    return Path(str(resources.files("cacaoai.search") / "models" / f"{name}.npz"))


def load_model(name: str = DEFAULT_MODEL) -> Model:
    """The model of this name (a shipped one) or path (a .npz file), cached.

    Raises:
        ValueError: no such model, or one made for other features.
    """
    with _lock:
        model = _cache.get(name)
        if model is None:
            model = _cache[name] = _read(model_path(name))
        return model


def save_model(path: Path | str, arrays: dict[str, np.ndarray], manifest: dict[str, Any]) -> Path:
    """Write a model: the arrays as ``path`` (.npz) and the manifest beside it
    (.json). The manifest gets the features version of this engine.

    Raises:
        ValueError: an array is missing or the manifest lacks a field.
    """
    path = Path(path).with_suffix(".npz")
    missing = [key for key in ARRAYS if key not in arrays]
    if missing:
        raise ValueError(f"model: no {', '.join(missing)}")
    for key in ("name", "version", "gold_scale"):
        if key not in manifest:
            raise ValueError(f"model manifest: no {key}")
    manifest = {**manifest, "features_version": features.FEATURES_VERSION}
    path.parent.mkdir(parents=True, exist_ok=True)
    keys = ARRAYS + tuple(key for key in OPTIONAL_ARRAYS if key in arrays)
    np.savez(path, **{key: np.asarray(arrays[key], dtype=np.float32) for key in keys})  # type: ignore[arg-type]
    path.with_suffix(".json").write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    with _lock:
        _cache.pop(str(path), None)
    return path


def _read(path: Path) -> Model:
    if not path.exists():
        raise ValueError(f"model: no model file {path}")
    manifest = json.loads(path.with_suffix(".json").read_text())
    if manifest.get("features_version") != features.FEATURES_VERSION:
        raise ValueError(f"model: {path.name} reads features version {manifest.get('features_version')}, "
                         f"the engine gives version {features.FEATURES_VERSION}: train it again")
    with np.load(path) as data:
        missing = [key for key in ARRAYS if key not in data]
        if missing:
            raise ValueError(f"model: {path.name} lacks {', '.join(missing)}")
        arrays = {key: np.asarray(data[key], dtype=np.float32) for key in ARRAYS + OPTIONAL_ARRAYS if key in data}
    handle = ModelHandle(manifest["name"], arrays, float(manifest["gold_scale"]))
    return Model(manifest["name"], manifest, handle)
