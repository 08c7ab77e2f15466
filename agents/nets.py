"""The small torch networks of the learned agents, and the one table of activation names.

The names are the configs' (``activation: relu``); :func:`activation` turns one into its torch class. torch is
imported only when a network is built, so that the names can be validated without it.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import torch

ACTIVATIONS: tuple[str, ...] = ("relu", "tanh", "elu", "gelu", "silu")
"""Activation names accepted everywhere (configs, model files)."""
_TORCH_NAMES = {"relu": "ReLU", "tanh": "Tanh", "elu": "ELU", "gelu": "GELU", "silu": "SiLU"}


def check_activation(name: str, key: str = "activation") -> str:
    """``name`` if it is one of :data:`ACTIVATIONS`, else ``ValueError`` naming ``key`` and the accepted names."""
    if name not in ACTIVATIONS:
        raise ValueError(f"{key}: unknown activation {name!r}; accepted: {', '.join(ACTIVATIONS)}")
    return name


def activation(name: str) -> type[torch.nn.Module]:
    """The torch module class of an activation name."""
    import torch.nn as nn

    return getattr(nn, _TORCH_NAMES[check_activation(name)])


def activation_name(cls: type) -> str:
    """The name of a torch activation class (the inverse of :func:`activation`)."""
    for name, torch_name in _TORCH_NAMES.items():
        if cls.__name__ == torch_name:
            return name
    raise ValueError(f"unknown activation class {cls!r}; accepted: {', '.join(_TORCH_NAMES.values())}")


def mlp(in_dim: int, hidden: Sequence[int], activation_fn: str, out_dim: int) -> torch.nn.Sequential:
    """An MLP: ``hidden`` layers of the activation, then a linear output of ``out_dim``."""
    import torch.nn as nn

    layers: list[nn.Module] = []
    d = int(in_dim)
    for w in hidden:
        layers += [nn.Linear(d, int(w)), activation(activation_fn)()]
        d = int(w)
    layers.append(nn.Linear(d, int(out_dim)))
    return nn.Sequential(*layers)


def read_model_file(path: str | Path, fmt: str, label: str, saved_by: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(data, meta)`` of a ``.pt`` model file in format ``fmt``, read with ``torch.load(weights_only=True)`` (no
    pickled code runs); ``ValueError`` naming the file if it does not load or its metadata is not ``fmt``'s.
    ``label`` and ``saved_by`` name the model kind and its writer in the messages."""
    import torch

    src = repr(str(path))
    try:
        data = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as e:  # noqa: BLE001 - any unreadable file gets the same clear message
        raise ValueError(f"cannot load {src} as {label}: {e}") from None
    meta = data.get("meta") if isinstance(data, dict) else None
    if not isinstance(meta, dict) or meta.get("format") != fmt:
        raise ValueError(f"{src} is not {label} saved by {saved_by} (no {fmt!r} metadata)")
    return data, meta
