"""An optimizer's state read from a checkpoint, with the run's own settings kept.

torch's ``Optimizer.load_state_dict`` takes every setting of the file's param groups (``eps``, ``betas``,
``weight_decay``, ``amsgrad``, ``maximize``: ``maximize`` turns descent into ascent). A resumed run's settings are its
config's, never the file's: :func:`load_optimizer_state` loads the moments and steps, puts the run's settings back and
returns where the file differed, for the resume to say.
"""

from __future__ import annotations

from typing import Any

_SCHEDULED = ("lr", "initial_lr")  # set from the learning-rate schedule at every update: not a setting of the file


def optimizer_settings(optimizer: Any) -> list[dict[str, Any]]:
    """Each param group's settings (all but its parameters), to be kept across a load."""
    return [{k: v for k, v in g.items() if k != "params"} for g in optimizer.param_groups]


def check_optimizer_state(state: Any, what: str) -> None:
    """``ValueError`` naming ``what`` unless the optimizer state's tensors are finite (a NaN moment makes every
    weight NaN at the first update) and its step counts are not negative."""
    import torch

    per_param = state.get("state") if isinstance(state, dict) else None
    for index, entry in (per_param.items() if isinstance(per_param, dict) else ()):
        for key, value in (entry.items() if isinstance(entry, dict) else ()):
            if not isinstance(value, (torch.Tensor, int, float)):
                continue
            try:
                t = torch.as_tensor(value)
            except (OverflowError, RuntimeError, ValueError):  # an integer past 64 bits
                t = torch.tensor(float("inf"))
            if not (t.is_floating_point() or key == "step"):
                continue
            if not bool(torch.isfinite(t).all()) or key == "step" and bool((t < 0).any()):
                raise ValueError(f"{what} holds a NaN, inf or negative step in "
                                 f"state[{index!r}][{key!r}]; accepted: finite moments, step counts >= 0")


def keep_optimizer_settings(optimizer: Any, settings: list[dict[str, Any]]) -> dict[str, tuple[Any, Any]]:
    """Put the model's own settings (``settings``: each param group's, taken before the file's state was loaded)
    back into ``optimizer``; the settings the file had otherwise, as ``{"optimizer.<name>": (file, model)}`` (None:
    not there). Where the model's ``amsgrad`` is on and the file kept no running maximum, the second moment starts
    it."""
    differences: dict[str, tuple[Any, Any]] = {}
    for group, mine in zip(optimizer.param_groups, settings):
        for key in sorted((group.keys() | mine.keys()) - {"params", *_SCHEDULED}):
            if not _same(group.get(key), mine.get(key)):
                differences[f"optimizer.{key}"] = (group.get(key), mine.get(key))
        params = group["params"]
        group.clear()
        group.update(mine, params=params)
        for p in params if group.get("amsgrad") else ():
            st = optimizer.state.get(p, {})
            if "exp_avg_sq" in st and "max_exp_avg_sq" not in st:
                st["max_exp_avg_sq"] = st["exp_avg_sq"].clone()
    return differences


def _same(a: Any, b: Any) -> bool:
    """Equal settings, NaN included (a NaN in the file differs from any number of the model)."""
    return type(a) is type(b) and a == b or isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)) and \
        list(a) == list(b)


def load_optimizer_state(optimizer: Any, state: Any, what: str) -> dict[str, tuple[Any, Any]]:
    """Load ``state`` (checked: :func:`check_optimizer_state`) into ``optimizer`` keeping its own settings; the
    settings the file had otherwise (:func:`keep_optimizer_settings`). ``ValueError`` naming ``what`` if it does not
    fit the optimizer."""
    check_optimizer_state(state, what)
    settings = optimizer_settings(optimizer)
    try:
        optimizer.load_state_dict(state)
    except (ValueError, KeyError, TypeError, RuntimeError) as e:
        raise ValueError(f"{what} does not fit the optimizer: {' '.join(str(e).split())[:200]}") from None
    return keep_optimizer_settings(optimizer, settings)


def keep_own_settings_in_state(state: Any, own: Any, what: str, name: str = "optimizer") -> dict[str, tuple[Any, Any]]:
    """For a learner that loads optimizer states itself (RLlib's, nested under its optimizers' names): in ``state``
    (the file's, changed in place) every param group's settings replaced by those of ``own`` (the fresh learner's
    state, where the same names lead to a torch optimizer state), each such state checked
    (:func:`check_optimizer_state`); the settings the file had otherwise, as ``{"<name>.<setting>": (file, own)}``."""
    differences: dict[str, tuple[Any, Any]] = {}
    if not isinstance(state, dict) or not isinstance(own, dict):
        return differences
    if isinstance(state.get("param_groups"), list) and isinstance(own.get("param_groups"), list):
        check_optimizer_state(state, what)
        for theirs, mine in zip(state["param_groups"], own["param_groups"]):
            if not isinstance(theirs, dict) or not isinstance(mine, dict):
                continue
            for key in sorted((theirs.keys() | mine.keys()) - {"params", *_SCHEDULED}):
                if not _same(theirs.get(key), mine.get(key)):
                    differences[f"{name}.{key}"] = (theirs.get(key), mine.get(key))
            params = theirs.get("params")
            theirs.clear()
            theirs.update({k: v for k, v in mine.items() if k != "params"}, params=params)
        return differences
    for key in state.keys() & own.keys():
        differences.update(keep_own_settings_in_state(state[key], own[key], what, f"{name}.{key}"))
    return differences


def describe_differences(differences: dict[str, tuple[Any, Any]]) -> str:
    """One line: ``name: file X, config Y; ...``."""
    return "; ".join(f"{k}: file {v[0]!r}, config {v[1]!r}" for k, v in sorted(differences.items()))
