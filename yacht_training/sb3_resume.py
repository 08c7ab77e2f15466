"""Resuming SB3 training from our own model zips without unpickling them, and saving them atomically.

:func:`restore_into` puts a zip's weights and optimizer state (SB3's ``set_parameters``) and step counters into a
model freshly built by our code from the run's config, so schedules and settings are ours, never the file's (the
optimizer's too: torch's ``load_state_dict`` would take the file's ``eps``, ``betas``, ``weight_decay``, ``amsgrad``,
``maximize``; the config's are put back and the file's are listed as differences);
:func:`save_sb3_atomic` writes a model so that a killed save never destroys the previous good file.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from yacht_agents.nets import one_line
from yacht_agents.sb3_policies import POLICY_REGISTRY, short_repr
from yacht_agents.sb3_zip import COUNTERS, DEFAULT_LIMITS, Sb3ZipInfo, ZipLimits, check_spaces, read_zip
from yacht_env.files import write_atomic
from yacht_training.optimizer_state import check_optimizer_state, keep_optimizer_settings, optimizer_settings


@dataclass(frozen=True)
class RestoreReport:
    """What :func:`restore_into` put into the model, what it left as the fresh model has it (and why), and the
    settings where the file and the model differ (the model's own are kept)."""

    info: Sb3ZipInfo
    restored: tuple[str, ...]
    not_restored: dict[str, str]
    differences: dict[str, tuple[Any, Any]]


_HYPERPARAMETERS = ("n_steps", "batch_size", "n_epochs", "gamma", "gae_lambda", "ent_coef", "vf_coef",
                    "max_grad_norm", "target_kl", "normalize_advantage", "clip_range_vf", "n_envs", "seed",
                    "learning_rate", "clip_range", "buffer_size", "learning_starts", "tau", "gradient_steps",
                    "target_update_interval", "exploration_initial_eps", "exploration_final_eps",
                    "exploration_fraction")
_NOT_RESTORED = {
    "last observations, episode statistics": "pickled; learn() resets the environment and starts new episodes",
    "rollout buffer": "never saved by SB3; the next rollout refills it",
    "RNG states": "SB3 saves none: the model keeps the seeding of its own construction",
    "schedules and settings": "pickled objects; the fresh model's, from our config (differences are listed)",
    "optimizer settings": "the fresh model's, from our config (differences are listed as optimizer.<name>)"}


def _plain(value: Any) -> bool:
    try:
        json.dumps(value)
        return True
    except (TypeError, ValueError):
        return False


def _readable(obj: Any) -> Any:
    """A model attribute as SB3's data_to_json describes it (JSON value, or type and readable fields)."""
    if _plain(obj):
        return obj
    fields = getattr(obj, "__dict__", {})
    return {":type:": str(type(obj)), **{k: v if _plain(v) else str(v) for k, v in fields.items()}}


def _defaults(cls: type) -> dict[str, Any]:
    """The keyword defaults of ``cls.__init__`` and its bases' (a subclass's own first)."""
    out: dict[str, Any] = {}
    for init in (k.__dict__["__init__"] for k in cls.__mro__ if "__init__" in k.__dict__ and k is not object):
        for p in inspect.signature(init).parameters.values():
            if p.default is not inspect.Parameter.empty:
                out.setdefault(p.name, p.default)
    return out


def restore_into(model: Any, path: str | Path, *, include: Sequence[str] = (), strict: bool = True,
                 limits: ZipLimits = DEFAULT_LIMITS) -> RestoreReport:
    """Continue training from a zip without unpickling it: its weights, optimizer state and step counters into
    ``model``, a freshly built SB3 model of the same algorithm, policy class and ``policy_kwargs``. ``include`` names
    plain-JSON ``data`` entries to copy as attributes too. ``ValueError`` when the file and the model do not fit."""
    info, params, data = read_zip(path, strict, limits)
    if type(model).__name__ != info.algorithm:
        raise ValueError(f"{info.source} holds a {info.algorithm} model; it cannot be restored into a "
                         f"{type(model).__name__}")
    spec = POLICY_REGISTRY[info.policy_class]
    if type(model.policy) is not spec.load_class():
        raise ValueError(f"{info.source} holds a {spec.label} policy, the model has a {type(model.policy).__name__}")
    mine = {**_defaults(type(model.policy)), **(model.policy_kwargs or {})}
    theirs = {**_defaults(type(model.policy)), **info.constructor_kwargs}
    diff = sorted(k for k in set(mine) | set(theirs) if mine.get(k) != theirs.get(k))
    if diff:
        raise ValueError(f"{info.source}: policy_kwargs differ from the model's ("f"""{'; '.join(
            f"{k}: file {short_repr.repr(theirs.get(k))}, model {short_repr.repr(mine.get(k))}" for k in diff)})""")
    check_spaces(info, model.observation_space, model.action_space)
    missing = [k for k in include if k not in data or isinstance(data[k], dict) and ":serialized:" in data[k]]
    if missing:
        raise ValueError(f"{info.source}: data has no plain {missing[0]!r} to include")
    restored = ["policy weights (policy.pth)"] + ["optimizer state (policy.optimizer.pth)"] * info.has_optimizer
    settings = optimizer_settings(model.policy.optimizer)
    own = {"policy": params["policy"], "policy.optimizer": params.get("policy.optimizer",
                                                                      model.policy.optimizer.state_dict())}
    check_optimizer_state(own["policy.optimizer"], f"{info.source}: policy.optimizer.pth")
    try:
        model.set_parameters(own, exact_match=True, device=model.device)
    except (ValueError, KeyError, TypeError, RuntimeError) as e:
        raise ValueError(f"{info.source}: the weights do not fit the model's policy and optimizer: "
                         f"{one_line(e, 300)}") from None
    differences = keep_optimizer_settings(model.policy.optimizer, settings)
    for key in (k for k in (*COUNTERS, *include) if k in data and hasattr(model, k) or k in include):
        setattr(model, key, float(data[key]) if isinstance(getattr(model, key, None), float) else data[key])
        restored.append(key)
    not_restored = {**_NOT_RESTORED, **({} if info.has_optimizer else {"optimizer state": "not in the file"}),
                    **({"replay buffer": "saved apart from the zip (a pickle): not read"} if info.algorithm == "DQN"
                       else {})}
    for key in (k for k in _HYPERPARAMETERS if k in data and hasattr(model, k)):
        recorded = {k: v for k, v in data[key].items() if k != ":serialized:"} if isinstance(data[key], dict) else \
            data[key]
        if recorded != _readable(getattr(model, key)):
            differences[key] = (recorded, _readable(getattr(model, key)))
    return RestoreReport(info, tuple(restored), not_restored, differences)


def save_sb3_atomic(model: Any, path: str | Path, include: Sequence[str] | None = None) -> Path:
    """``model.save`` to ``path`` atomically (:func:`yacht_env.files.write_atomic`): a killed or failing save never
    leaves a broken file there, and the previous good file stays. ``path`` is used exactly as given."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    return write_atomic(path, lambda f: model.save(f, include=include))
