"""Resuming SB3 training from our own model zips without unpickling them, and saving them atomically.

:func:`restore_into` loads a zip's weights, optimizer state and step counters into a model freshly built by our code
from the run's config (so schedules and settings are ours, never the file's); :func:`save_sb3_atomic` writes a
model so that a killed save never destroys the previous good file.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from yacht_agents.sb3_zip import (
    COUNTERS,
    DEFAULT_LIMITS,
    POLICY_REGISTRY,
    Sb3ZipInfo,
    ZipLimits,
    check_spaces,
    plain_entry,
    read_archive,
    short_repr,
    torch_entry,
)
from yacht_env.files import write_atomic


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
    "_last_obs / _last_episode_starts": "pickled arrays; learn() resets the environment and starts new episodes",
    "ep_info_buffer / ep_success_buffer": "pickled deques of episode statistics; they start empty",
    "rollout buffer": "never saved by SB3; the next rollout refills it",
    "RNG states": "SB3 saves no torch/numpy RNG state (the spaces' generators are pickled): the model keeps the "
                  "seeding of its own construction",
    "schedules (learning_rate, clip_range, lr_schedule)": "pickled objects; the fresh model's, from our config, "
                                                          "are used (differences are listed)",
    "start_time, tensorboard_log": "the fresh model's",
}


def _readable(obj: Any) -> Any:
    """A model attribute as SB3's data_to_json would describe it (JSON value, or type and readable fields)."""
    try:
        json.dumps(obj)
        return obj
    except (TypeError, ValueError):
        out: dict[str, Any] = {":type:": str(type(obj))}
        for k, v in getattr(obj, "__dict__", {}).items():
            try:
                json.dumps(v)
                out[k] = v
            except (TypeError, ValueError):
                out[k] = str(v)
        return out


def _defaults(cls: type) -> dict[str, Any]:
    """The keyword defaults of ``cls.__init__`` and its bases' (a subclass's own first), so that a key left out of
    ``policy_kwargs`` compares equal to its default."""
    out: dict[str, Any] = {}
    for klass in cls.__mro__:
        init = klass.__dict__.get("__init__")
        if init is None:
            continue
        try:
            params = inspect.signature(init).parameters.values()
        except (TypeError, ValueError):
            continue
        for p in params:
            if p.default is not inspect.Parameter.empty and p.kind is not inspect.Parameter.VAR_KEYWORD:
                out.setdefault(p.name, p.default)
    return out


def restore_into(model: Any, path: str | Path, *, include: Sequence[str] = (), strict: bool = True,
                 limits: ZipLimits = DEFAULT_LIMITS) -> RestoreReport:
    """Continue training from a zip without unpickling it: load its weights, optimizer state and step counters
    into ``model``, a freshly built SB3 model of the same algorithm, policy class and ``policy_kwargs`` (built by
    our code from the run's config, so schedules and settings are ours).

    ``include`` names plain-JSON ``data`` entries to copy as attributes too (e.g. ``("yacht_env_meta",)``). Raises
    ``ValueError`` when the file and the model do not fit (algorithm, policy, kwargs, spaces, weights)."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3 import A2C, DQN, PPO

    info, sd, arc = read_archive(path, strict, limits)
    algos = {"PPO": PPO, "A2C": A2C, "DQN": DQN, "MaskablePPO": MaskablePPO}
    if type(model) is not algos[info.algorithm]:
        raise ValueError(f"{info.source} holds a {info.algorithm} model; it cannot be restored into a "
                         f"{type(model).__name__}")
    spec = POLICY_REGISTRY[info.policy_class]
    if type(model.policy) is not spec.load_class():
        raise ValueError(f"{info.source} holds a {spec.label} policy, the model has a {type(model.policy).__name__}")
    defaults = _defaults(type(model.policy))
    mine = {**defaults, **(model.policy_kwargs or {})}
    theirs = {**defaults, **info.constructor_kwargs}
    diff = sorted(k for k in set(mine) | set(theirs) if mine.get(k) != theirs.get(k))
    if diff:
        detail = "; ".join(f"{k}: file {short_repr.repr(theirs.get(k))}, model {short_repr.repr(mine.get(k))}"
                           for k in diff)
        raise ValueError(f"{info.source}: policy_kwargs differ from the model's ({detail})")
    check_spaces(info, model.observation_space, model.action_space)

    try:
        model.policy.load_state_dict(sd, strict=True)
    except RuntimeError as e:
        raise ValueError(f"{info.source}: policy.pth does not fit the model's policy: {str(e)[:500]}") from None
    restored = ["policy weights (policy.pth)"]
    not_restored = dict(_NOT_RESTORED)
    if info.has_optimizer:
        try:
            model.policy.optimizer.load_state_dict(torch_entry(arc, "policy.optimizer.pth"))
        except (ValueError, KeyError, TypeError, RuntimeError) as e:
            raise ValueError(f"{info.source}: policy.optimizer.pth does not fit the model's optimizer: {e}") from None
        restored.append("optimizer state (policy.optimizer.pth)")
    else:
        not_restored["optimizer state"] = "the file has no policy.optimizer.pth"
    if "pytorch_variables.pth" in arc.entries:
        variables = torch_entry(arc, "pytorch_variables.pth")
        if variables:
            not_restored["pytorch_variables.pth"] = f"holds {sorted(map(str, variables))}, which PPO, A2C, DQN and " \
                                                    "MaskablePPO do not use"
    for key in COUNTERS:
        if key in info.counters and hasattr(model, key):
            value = info.counters[key]
            setattr(model, key, float(value) if isinstance(getattr(model, key), float) else value)
            restored.append(key)
    data = json.loads(arc.read("data", limits.max_data_bytes).decode("utf-8"))
    for key in include:
        if key not in data:
            raise ValueError(f"{info.source}: data has no {key!r} to include")
        setattr(model, key, plain_entry(data, key, info.source, limits))
        restored.append(key)
    if info.algorithm == "DQN":
        not_restored["replay buffer"] = "saved apart from the zip (save_replay_buffer, a pickle): not read"
    differences = {}
    for key in _HYPERPARAMETERS:
        if key in data and hasattr(model, key):
            theirs = {k: v for k, v in data[key].items() if k != ":serialized:"} if isinstance(
                data[key], dict) else data[key]
            ours = _readable(getattr(model, key))
            if theirs != ours:
                differences[key] = (theirs, ours)
    return RestoreReport(info, tuple(restored), not_restored, differences)


# ==== saving ==========================================================================================================


def save_sb3_atomic(model: Any, path: str | Path, include: Sequence[str] | None = None) -> Path:
    """``model.save`` to ``path`` atomically (:func:`yacht_env.files.write_atomic`): a killed or failing save never
    leaves a broken file there, and the previous good file stays. ``path`` is used exactly as given (SB3 would add
    ``.zip`` to a name without suffix)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    return write_atomic(path, lambda f: model.save(f, include=include))
