"""Small dense networks in numpy: forward, backward and Adam, for cacao-train.

A network is a stack of dense layers with ReLU between them (none after the
last), as the search runs them in C (model.pxi). Training standardises the
inputs; :meth:`MLP.folded` folds that into the first layer, because the
search feeds raw features.

Everything is float32 and deterministic for a seed (the same machine and
numpy give the same weights).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

__all__ = ["MLP", "Adam"]

F32 = np.float32


class MLP:
    """Dense layers ``sizes[0] -> sizes[1] -> ... -> sizes[-1]`` with ReLU
    after every layer but the last. ``mean`` and ``scale`` standardise the
    inputs (x - mean) / scale before the first layer."""

    def __init__(self, sizes: Sequence[int], rng: np.random.Generator, mean: np.ndarray | None = None,
                 scale: np.ndarray | None = None, last_gain: float = 1.0):
        self.sizes = list(sizes)
        self.weights: list[np.ndarray] = []
        self.biases: list[np.ndarray] = []
        for i, (n_in, n_out) in enumerate(zip(sizes[:-1], sizes[1:])):
            gain = last_gain if i == len(sizes) - 2 else 1.0
            std = gain * math.sqrt(2.0 / n_in)            # He
            self.weights.append(rng.normal(0.0, std, (n_out, n_in)).astype(F32))
            self.biases.append(np.zeros(n_out, F32))
        self.mean = np.zeros(sizes[0], F32) if mean is None else mean.astype(F32)
        self.scale = np.ones(sizes[0], F32) if scale is None else scale.astype(F32)

    @property
    def params(self) -> list[np.ndarray]:
        return [p for pair in zip(self.weights, self.biases) for p in pair]

    @property
    def size(self) -> int:
        return sum(p.size for p in self.params)

    def forward(self, x: np.ndarray, first: np.ndarray | None = None) -> tuple[np.ndarray, list[np.ndarray]]:
        """(outputs, the activations backward() needs) for raw inputs x (n x
        sizes[0]); `first` (n x sizes[1]), if given, adds to the first layer
        before its ReLU (an input of another shape, mapped by the caller)."""
        h = (x - self.mean) / self.scale
        acts = [h]
        last = len(self.weights) - 1
        for i, (w, b) in enumerate(zip(self.weights, self.biases)):
            h = h @ w.T + b
            if i == 0 and first is not None:
                h += first
            if i < last:
                np.maximum(h, 0.0, out=h)
                acts.append(h)
        return h, acts

    def __call__(self, x: np.ndarray, batch: int = 65536) -> np.ndarray:
        """Outputs for many rows, in batches."""
        return np.concatenate([self.forward(x[i:i + batch])[0] for i in range(0, len(x), batch)]) \
            if len(x) else np.zeros((0, self.sizes[-1]), F32)

    def backward(self, acts: list[np.ndarray], grad_out: np.ndarray) -> list[np.ndarray]:
        """Gradients of the parameters (in the order of ``params``) from the
        gradient of the loss with respect to the outputs."""
        return self.backward_first(acts, grad_out)[0]

    def backward_first(self, acts: list[np.ndarray], grad_out: np.ndarray) -> tuple[list[np.ndarray], np.ndarray]:
        """backward(), and the gradient with respect to the first layer's
        outputs before its ReLU (what forward's `first` gets)."""
        grads: list[np.ndarray] = []
        g = grad_out.astype(F32, copy=False)
        for i in range(len(self.weights) - 1, -1, -1):
            h = acts[i]
            grads.append(g.sum(axis=0))
            grads.append(g.T @ h)
            if i > 0:
                g = g @ self.weights[i]
                g *= h > 0
        grads.reverse()
        return grads, g

    def folded(self) -> tuple[list[np.ndarray], list[np.ndarray]]:
        """(weights, biases) with the input standardisation folded into the
        first layer: the same outputs from raw inputs."""
        w1 = self.weights[0] / self.scale[None, :]
        b1 = self.biases[0] - w1 @ self.mean
        return [w1.astype(F32), *self.weights[1:]], [b1.astype(F32), *self.biases[1:]]


class Adam:
    """Adam (Kingma and Ba, 2015) with decoupled weight decay on matrices
    (AdamW), for a list of parameter arrays updated in place."""

    def __init__(self, params: list[np.ndarray], lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0.0):
        self.params = params
        self.lr = lr
        self.beta1, self.beta2 = betas
        self.eps = eps
        self.weight_decay = weight_decay
        self.m = [np.zeros_like(p) for p in params]
        self.v = [np.zeros_like(p) for p in params]
        self.t = 0

    def step(self, grads: list[np.ndarray], lr: float | None = None) -> None:
        lr = self.lr if lr is None else lr
        self.t += 1
        c1 = 1.0 - self.beta1 ** self.t
        c2 = 1.0 - self.beta2 ** self.t
        for p, g, m, v in zip(self.params, grads, self.m, self.v):
            m *= self.beta1
            m += (1.0 - self.beta1) * g
            v *= self.beta2
            v += (1.0 - self.beta2) * (g * g)
            if self.weight_decay and p.ndim == 2:
                p -= F32(lr * self.weight_decay) * p
            p -= F32(lr / c1) * m / (np.sqrt(v / F32(c2)) + F32(self.eps))
