"""Read stable-baselines3 / sb3-contrib model zips without running anything from the file.

SB3's ``load`` unpickles each ``:serialized:`` entry of the zip's ``data`` JSON that ``custom_objects`` does not give,
so a crafted file runs code. Here every such entry is given: what the policy needs comes from the readable fields SB3
writes beside each pickle (the policy class's module and name, ``policy_kwargs``, the spaces) mapped through whitelists
(:data:`POLICY_REGISTRY`), the rest is our own objects or None; nothing is unpickled or disassembled. Before SB3's
``load`` sees the file, its declared sizes, its JSON and its weights (``torch.load(weights_only=True)``) are checked,
and the buffers ``_setup_model`` allocates are overridden to one step. The inference API is in
:mod:`yacht_agents.sb3_agent`, resuming training in ``yacht_training.sb3_resume``.
"""

from __future__ import annotations

import io
import json
import math
import re
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import torch as th
from gymnasium import spaces
from sb3_contrib import MaskablePPO
from stable_baselines3 import A2C, DQN, PPO
from stable_baselines3.common.policies import BasePolicy
from stable_baselines3.common.save_util import load_from_zip_file

from yacht_agents.nets import (
    MAX_MODEL_BYTES,
    MAX_NETWORK_NUMBERS,
    check_storage,
    check_weights,
    one_line,
    torch_load_reason,
)
from yacht_agents.sb3_policies import ACTIVATIONS, FEATURE_EXTRACTORS, OPTIMIZERS, POLICY_REGISTRY, Ref, short_repr
from yacht_env.files import read_regular, regular_file_problem


@dataclass(frozen=True)
class ZipLimits:
    """Size limits for a model file, checked on the sizes the zip declares before anything is decompressed (zipfile
    never inflates an entry past its declared size). SB3 zips of this project are under 3 MB; a file or entry may be
    as large as a ``.pt`` model (``MAX_MODEL_BYTES``, 64 MB)."""

    max_file_bytes: int = MAX_MODEL_BYTES
    max_entries: int = 64
    max_entry_bytes: int = MAX_MODEL_BYTES
    max_total_bytes: int = 2 * MAX_MODEL_BYTES
    max_data_bytes: int = 32 << 20  # the data JSON
    max_torch_entries: int = 100_000  # records inside one .pth (torch's own zip format)


DEFAULT_LIMITS = ZipLimits()

_SCHEDULES = {Ref("stable_baselines3.common.utils", n) for n in ("FloatSchedule", "LinearSchedule", "ConstantSchedule")}
SB3_SERIALIZED: dict[str, set[Ref]] = {
    "policy_class": {Ref("abc", "ABCMeta")}, "policy_kwargs": {Ref("builtins", "dict")},
    "observation_space": {Ref("gymnasium.spaces.box", "Box")},
    "action_space": {Ref("gymnasium.spaces.discrete", "Discrete")},
    **dict.fromkeys(("learning_rate", "lr_schedule", "clip_range", "clip_range_vf", "exploration_schedule"),
                    _SCHEDULES),
    **dict.fromkeys(("_last_obs", "_last_episode_starts", "_last_original_obs"), {Ref("numpy", "ndarray")}),
    **dict.fromkeys(("ep_info_buffer", "ep_success_buffer"), {Ref("collections", "deque")}),
    **dict.fromkeys(("rollout_buffer_class", "replay_buffer_class"), {Ref("abc", "ABCMeta")}),
    "train_freq": {Ref("stable_baselines3.common.type_aliases", "TrainFreq")}}
"""The entries SB3 2.x pickles in ``data`` for PPO, A2C, DQN and MaskablePPO, with the types it records beside them
(``:type:``). A strict read refuses any other pickled entry: a check of form, as the file writes the types itself."""

ALGORITHMS = {"PPO": PPO, "A2C": A2C, "DQN": DQN, "MaskablePPO": MaskablePPO}
_WEIGHT_FILES = ("policy.pth", "policy.optimizer.pth", "pytorch_variables.pth")  # what SB3 writes for these

# ==== reading a zip ==================================================================================================

_CLASS_TEXT = re.compile(r"<class '(?:([\w.]+)\.)?(\w+)'>")  # how SB3 writes a class in a readable field
_METHOD_TEXT = re.compile(r"(?:<(?:static|class)method\()?<function ([\w.<>]+)\.[\w<>]+ at 0x[0-9a-fA-F]+>\)?>?")


def _class_ref(text: Any) -> Ref | None:
    """The class a readable field names (``"<class 'mod.Name'>"``; a builtin without module), else None."""
    match = _CLASS_TEXT.fullmatch(text) if isinstance(text, str) and len(text) <= 300 else None
    return Ref(match.group(1) or "builtins", match.group(2)) if match else None


class _Zip(NamedTuple):
    source: str
    blob: bytes
    zf: zipfile.ZipFile

    def read(self, name: str, cap: int) -> bytes:
        info = next((i for i in self.zf.infolist() if i.filename == name), None)
        if info is None:
            raise ValueError(f"{self.source} has no {name!r} entry: not a stable-baselines3 model zip")
        if info.file_size > cap:
            raise ValueError(f"{self.source}: entry {name!r} is {info.file_size:,} bytes, more than the limit of "
                             f"{cap:,}")
        try:  # zipfile stops at the declared size and checks the CRC: a lying header is an error, not a bomb
            return self.zf.read(info)
        except Exception as e:  # noqa: BLE001 - zlib.error, BadZipFile, EOFError, NotImplementedError, ...
            raise ValueError(f"{self.source}: entry {name!r} cannot be read (damaged or truncated zip): "
                             f"{one_line(e, 120)}") from None


def _open(path: str | Path, limits: ZipLimits) -> _Zip:
    """The zip read once into memory, with the sizes it declares checked against ``limits``."""
    source = repr(str(path))
    problem = regular_file_problem(path)
    if problem in ("does not exist", "is a folder, not a regular file"):
        raise ValueError(f"no model file at {source}" + ("" if problem == "does not exist" else ": it is a folder"))
    blob = read_regular(path, limits.max_file_bytes)  # a regular file only (not a FIFO, not /dev/zero), size-limited
    try:
        zf = zipfile.ZipFile(io.BytesIO(blob))
    except Exception as e:  # noqa: BLE001 - BadZipFile, OSError, ValueError, ...
        raise ValueError(f"{source} is not a zip file, or a truncated one ({one_line(e, 120)}): not a "
                         "stable-baselines3 model") from None
    end, infos = blob.rfind(b"PK\x05\x06"), zf.infolist()
    if len(infos) > limits.max_entries:
        raise ValueError(f"{source} has {len(infos):,} entries, more than the limit of {limits.max_entries}")
    names = [i.filename for i in infos]
    dup, declared = next((n for n in names if names.count(n) > 1), None), sum(i.file_size for i in infos)
    problem = next((text for bad, text in (
        (end < 0 or end + 22 + len(zf.comment) != len(blob), "is a truncated zip file, or has data after its end"),
        (dup is not None, f"has two entries named {dup!r}"),
        (any(i.flag_bits & 1 for i in infos), "has an encrypted entry"),
        (max((i.file_size for i in infos), default=0) > limits.max_entry_bytes,
         f"declares {max((i.file_size for i in infos), default=0):,} bytes uncompressed in one entry, more than the "
         f"limit of {limits.max_entry_bytes:,}"),
        (declared > limits.max_total_bytes, f"declares {declared:,} bytes uncompressed in all, more than the limit "
                                            f"of {limits.max_total_bytes:,}")) if bad), None)
    if problem:
        raise ValueError(f"{source} {problem}")
    return _Zip(source, blob, zf)


def _weights(arc: _Zip, limits: ZipLimits) -> dict[str, dict[str, Any]]:
    """The ``.pth`` state dicts by SB3's ``load_from_zip_file(load_data=False)``, each first checked to be torch's
    zip format within the limits, the policy's checked to be finite tensors. SB3's ``load`` sets the attributes that
    other ``.pth`` names and ``pytorch_variables`` name: none is accepted (these algorithms save none)."""
    for info in (i for i in arc.zf.infolist() if i.filename.endswith(".pth")):
        if info.filename not in _WEIGHT_FILES:
            raise ValueError(f"{arc.source} has an entry {info.filename!r}; accepted weights: "
                             f"{', '.join(_WEIGHT_FILES)}")
        blob = arc.read(info.filename, limits.max_entry_bytes)
        try:
            inner = zipfile.ZipFile(io.BytesIO(blob)).infolist()
        except Exception as e:  # noqa: BLE001 - a legacy pickle, garbage, a truncated file
            raise ValueError(f"{arc.source}: {info.filename} is not in torch's zip format ({one_line(e, 80)})") \
                from None
        if len(inner) > limits.max_torch_entries or sum(i.file_size for i in inner) > limits.max_total_bytes:
            raise ValueError(f"{arc.source}: {info.filename} declares more records or bytes than the limits allow")
    try:
        _, params, variables = load_from_zip_file(io.BytesIO(arc.blob), load_data=False, device="cpu")
    except Exception as e:  # noqa: BLE001 - torch raises UnpicklingError, RuntimeError, ...: all mean "refused"
        raise ValueError(f"{arc.source}: its weights were rejected by torch's weights-only loader: "
                         f"{torch_load_reason(e)}") from None
    check_storage(params, arc.source)  # what the size guard counts is what the file holds: no views, no sharing
    if variables is not None and (not isinstance(variables, dict) or variables):
        held = short_repr.repr(list(variables)) if isinstance(variables, dict) else f"a {type(variables).__name__}"
        raise ValueError(f"{arc.source}: pytorch_variables.pth holds {held}; accepted: nothing (PPO, A2C, DQN and "
                         "MaskablePPO save no such variables)")
    sd = params.get("policy")
    if sd is None:
        raise ValueError(f"{arc.source} has no 'policy.pth' entry: not a stable-baselines3 model zip")
    if not isinstance(sd, Mapping) or not all(isinstance(k, str) and isinstance(v, th.Tensor) for k, v in sd.items()):
        raise ValueError(f"{arc.source}: policy.pth is not a state dict (names to tensors)")
    check_weights(sd, f"{arc.source}: policy.pth")
    return params


def _serialized(data: dict[str, Any], key: str) -> bool:
    """Whether SB3's ``load`` would unpickle ``data[key]`` (its own test, in ``json_to_data``)."""
    return isinstance(data.get(key), dict) and ":serialized:" in data[key]


def _recorded_types(data: dict[str, Any], source: str, strict: bool) -> dict[str, tuple[Ref, ...]]:
    """The type each pickled entry records (never unpickled); strict: only those of :data:`SB3_SERIALIZED`."""
    out = {}
    for key in (k for k in data if _serialized(data, k)):
        ref = _class_ref(data[key].get(":type:"))
        out[key] = (ref,) if ref else ()
        if strict and ref not in SB3_SERIALIZED.get(key, ()):
            accepted = ", ".join(sorted(map(str, SB3_SERIALIZED.get(key, ())))) or "no pickle under this name"
            raise ValueError(f"{source}: data[{key!r}] is a pickled {ref or short_repr.repr(data[key].get(':type:'))}"
                             f", which stable-baselines3 does not write there (accepted: {accepted}); this reader "
                             "never unpickles it, SB3's own loader would. Pass strict=False to ignore it")
    return out


def _policy_class(data: dict[str, Any], source: str) -> Ref:
    """The policy class the readable fields of ``policy_class`` name: its ``__module__`` and the class part of the
    qualified names of its methods (``"<function Name.method at 0x..>"``); ``ValueError`` unless registered."""
    entry = data.get("policy_class")
    fields = entry if isinstance(entry, dict) else {}
    module = fields.get("__module__")
    owners = {m.group(1) for v in fields.values() if isinstance(v, str) and len(v) <= 300
              for m in [_METHOD_TEXT.fullmatch(v)] if m}
    ref = Ref(module, owners.pop()) if isinstance(module, str) and len(module) <= 200 and len(owners) == 1 else None
    if ref not in POLICY_REGISTRY:
        what = ref or ("missing" if entry is None else "a class whose readable fields do not name it (its __module__ "
                                                       "and the class of its methods)")
        raise ValueError(f"{source}: policy_class is {what}, not an accepted policy; accepted: "
                         f"{', '.join(map(str, POLICY_REGISTRY))}")
    return ref


def _policy_kwargs(data: dict[str, Any], source: str) -> dict[str, Any]:
    """``policy_kwargs`` from its readable fields, classes (``"<class 'mod.Name'>"``) as :class:`Ref` of the
    whitelists; a plain JSON dict as it is (its strings are strings)."""
    entry = data.get("policy_kwargs") or {}
    if not isinstance(entry, dict):
        raise ValueError(f"{source}: policy_kwargs is not a dict ({short_repr.repr(entry)})")
    if not _serialized(data, "policy_kwargs"):
        return dict(entry)
    kwargs = {k: v for k, v in entry.items() if k not in (":type:", ":serialized:")}
    if _class_ref(entry.get(":type:")) != Ref("builtins", "dict") or not kwargs:
        raise ValueError(f"{source}: policy_kwargs is a pickled {short_repr.repr(entry.get(':type:'))} without "
                         "readable fields; accepted: a dict, as stable-baselines3 writes it")
    classes = {**ACTIVATIONS, **OPTIMIZERS, **FEATURE_EXTRACTORS}
    for k, v in kwargs.items():
        ref = _class_ref(v)
        if ref is not None and ref not in classes:
            raise ValueError(f"{source}: policy_kwargs names {ref}: not an accepted activation, optimizer or features "
                             f"extractor; accepted: {', '.join(sorted(map(str, classes)))}")
        kwargs[k] = ref or v
    return kwargs


def _int_field(entry: dict[str, Any], name: str, source: str) -> int:
    v = entry.get(name)
    if type(v) is int or isinstance(v, str) and len(v) < 20 and v.strip().lstrip("-").isdigit():
        return int(v)
    raise ValueError(f"{source}: the recorded action space has no readable {name!r} ({short_repr.repr(v)})")


def _spaces(data: dict[str, Any], source: str) -> tuple[tuple[int, ...], str, int, int]:
    """Observation shape and dtype, action count and start, from the readable fields SB3 writes."""
    for key, want in (("observation_space", "box.Box"), ("action_space", "discrete.Discrete")):
        kind = data[key].get(":type:") if isinstance(data.get(key), dict) else data.get(key)
        if kind != f"<class 'gymnasium.spaces.{want}'>":
            raise ValueError(f"{source}: the model's {key} is {short_repr.repr(kind)}; accepted: gymnasium's "
                             f"{want.split('.')[1]}")
    obs, act = data["observation_space"], data["action_space"]
    shape, dtype = obs.get("_shape"), obs.get("dtype")
    if not (isinstance(shape, list) and len(shape) <= 8 and all(type(d) is int and d >= 0 for d in shape)
            and isinstance(dtype, str) and len(dtype) <= 40):
        raise ValueError(f"{source}: the recorded observation space has no readable shape and dtype")
    return tuple(shape), dtype, _int_field(act, "n", source), _int_field(act, "start", source)


COUNTERS = ("num_timesteps", "_total_timesteps", "_num_timesteps_at_start", "_n_updates",
            "_current_progress_remaining", "_episode_num", "_n_calls", "exploration_rate")


def _counters(data: dict[str, Any], source: str) -> dict[str, int | float]:
    for k in (k for k in COUNTERS if k in data):
        v, fraction = data[k], k in ("_current_progress_remaining", "exploration_rate")
        if not ((type(v) in (int, float) and math.isfinite(v)) if fraction else (type(v) is int and v >= 0)):
            raise ValueError(f"{source}: data[{k!r}] must be {'a finite number' if fraction else 'a count (int >= 0)'}"
                             f", got {short_repr.repr(v)}")
    return {k: data[k] for k in COUNTERS if k in data}


@dataclass(frozen=True)
class Sb3ZipInfo:
    """What a model zip says about itself, read without running anything from it: ``policy_kwargs`` as recorded
    (classes as :class:`Ref`), ``constructor_kwargs`` mapped to our classes, the plain numbers SB3 keeps for
    resuming (``counters``), and the type each pickled ``data`` entry records beside its pickle (``serialized``)."""

    source: str
    algorithm: str
    policy: str
    policy_class: Ref
    kind: str
    policy_kwargs: dict[str, Any]
    constructor_kwargs: dict[str, Any]
    observation_shape: tuple[int, ...]
    observation_dtype: str
    action_n: int
    action_start: int
    num_timesteps: int | None
    counters: dict[str, int | float]
    yacht_env_meta: dict[str, Any] | None
    has_optimizer: bool
    serialized: dict[str, tuple[Ref, ...]]


class ZipContents(NamedTuple):
    """A model zip read: what it says, its state dicts (``policy``, ``policy.optimizer``), its data JSON."""

    info: Sb3ZipInfo
    params: dict[str, dict[str, Any]]
    data: dict[str, Any]


def _algorithm(kind: str, data: dict[str, Any], keys: list[str], source: str) -> str:
    q = any(k.startswith("q_net.") for k in keys)
    if q != (kind == "dqn") or kind == "dqn" and not any(k.startswith("q_net_target.") for k in keys):
        raise ValueError(f"{source}: the policy class is {'not ' * (kind != 'dqn')}DQN's but policy.pth "
                         f"{'has' if q else 'lacks'} q_net.* weights")
    return {"dqn": "DQN", "maskable": "MaskablePPO"}.get(kind, "PPO" if "clip_range" in data else "A2C")


MAX_JSON_INT_DIGITS = 40
"""The longest integer read from a data JSON (SB3 writes counters and seeds of at most 20 digits)."""


def _json_int(text: str) -> int:
    """An integer of the data JSON; ``ValueError`` past :data:`MAX_JSON_INT_DIGITS` digits (Python's own limit
    would answer with advice about ``sys.set_int_max_str_digits``)."""
    if len(text.lstrip("-")) > MAX_JSON_INT_DIGITS:
        raise ValueError(f"holds an integer of {len(text.lstrip('-')):,} digits; accepted: at most "
                         f"{MAX_JSON_INT_DIGITS}")
    return int(text)


def _read(path: str | Path, strict: bool, limits: ZipLimits) -> tuple[ZipContents, bytes]:
    """:func:`read_zip`'s contents and the zip's bytes (what SB3's ``load`` then reads: the same bytes checked)."""
    arc = _open(path, limits)
    source, version = arc.source, arc.read("_stable_baselines3_version", 64).decode("ascii", "replace").strip()
    if not version.startswith("2."):
        raise ValueError(f"{source} was saved by stable-baselines3 {version!r}; accepted: 2.x")
    blob = arc.read("data", limits.max_data_bytes)
    try:
        data = json.loads(blob.decode("utf-8"), parse_int=_json_int)
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as e:
        raise ValueError(f"{source}: the data entry is not JSON ({one_line(e)})") from None
    except ValueError as e:  # _json_int's
        raise ValueError(f"{source}: the data entry {e}") from None
    if not isinstance(data, dict):
        raise ValueError(f"{source}: the data entry is not a JSON object")
    serialized = _recorded_types(data, source, strict)
    ref = _policy_class(data, source)
    spec = POLICY_REGISTRY[ref]
    kwargs = _policy_kwargs(data, source)
    unknown = sorted(set(kwargs) - set(spec.kwargs))
    if unknown:
        raise ValueError(f"{source}: policy_kwargs has {unknown}, not accepted for {spec.label}; accepted: "
                         f"{sorted(spec.kwargs)}")
    try:
        constructor = {k: spec.kwargs[k](v, k) for k, v in kwargs.items()}
    except ValueError as e:
        raise ValueError(f"{source}: {e}") from None
    if data.get("use_sde") not in (None, False):
        raise ValueError(f"{source}: the model uses gSDE (use_sde), which discrete actions do not have")
    meta = data.get("yacht_env_meta")
    if meta is not None and (not isinstance(meta, dict) or ":serialized:" in meta):
        raise ValueError(f"{source}: yacht_env_meta is not a plain JSON object")
    shape, dtype, n, start = _spaces(data, source)
    counters = _counters(data, source)
    params = _weights(arc, limits)
    info = Sb3ZipInfo(source, _algorithm(spec.kind, data, list(params["policy"]), source), spec.label, ref, spec.kind,
                      kwargs, constructor, shape, dtype, n, start, counters.get("num_timesteps"), counters, meta,
                      "policy.optimizer" in params, serialized)
    return ZipContents(info, params, data), arc.blob


def read_zip(path: str | Path, strict: bool = True, limits: ZipLimits = DEFAULT_LIMITS) -> ZipContents:
    """Read a model zip as data (see the module docstring); ``ValueError`` with what was found and accepted."""
    return _read(path, strict, limits)[0]


def inspect_sb3_zip(path: str | Path, *, strict: bool = True, limits: ZipLimits = DEFAULT_LIMITS) -> Sb3ZipInfo:
    """What an SB3 model zip holds (algorithm, policy, kwargs, spaces, counters, ``yacht_env_meta``), read as data.
    ``strict`` (default) refuses a file with a pickled entry SB3 would not write (:data:`SB3_SERIALIZED`), even one
    this reader does not use; ``strict=False`` accepts them (never decoded)."""
    return read_zip(path, strict, limits).info


# ==== building the policy ============================================================================================


def check_spaces(info: Sb3ZipInfo, observation_space: spaces.Space, action_space: spaces.Space) -> None:
    """``ValueError`` unless the caller's spaces are the ones the model was trained on (shape, dtype, n)."""
    if not isinstance(observation_space, spaces.Box) or not isinstance(action_space, spaces.Discrete):
        raise ValueError(f"the environment's spaces are {observation_space}, {action_space}; accepted: Box, Discrete")
    if tuple(observation_space.shape) != info.observation_shape:
        raise ValueError(f"{info.source}: model expects observations of shape {info.observation_shape}, the "
                         f"environment gives {tuple(observation_space.shape)}")
    if str(observation_space.dtype) != info.observation_dtype:
        raise ValueError(f"{info.source}: model expects {info.observation_dtype} observations, the environment "
                         f"gives {observation_space.dtype}")
    if (int(action_space.n), int(action_space.start)) != (info.action_n, info.action_start):
        raise ValueError(f"{info.source}: model expects {info.action_n} actions (Discrete({info.action_n}, "
                         f"start={info.action_start})), the environment has {int(action_space.n)} "
                         f"(Discrete({int(action_space.n)}, start={int(action_space.start)}))")


def _check_size(info: Sb3ZipInfo, sd: Mapping[str, th.Tensor], observation_space: spaces.Space) -> None:
    """Refuse to build a huge network for a small file: ``net_arch`` (and ``vf_arch``) against the weights
    policy.pth holds."""
    spec = POLICY_REGISTRY[info.policy_class]
    arch = info.constructor_kwargs.get("net_arch") or []
    copies = 2 if spec.kind != "dqn" and spec.first_layer_from_obs and not spec.shared_trunk else 1
    first = int(math.prod(observation_space.shape)) if spec.first_layer_from_obs else 1
    trunks = [*(arch.values() if isinstance(arch, dict) else [arch] * copies),
              info.constructor_kwargs.get("vf_arch") or []]  # the model-free policy's own value trunk
    wanted = sum(a * b for w in trunks for a, b in zip([first, *w], w))
    held = sum(t.numel() for t in sd.values())  # each tensor owns its storage (check_storage): numbers in the file
    if max(wanted, held) > MAX_NETWORK_NUMBERS:
        raise ValueError(f"{info.source}: policy_kwargs ask for at least {wanted:,} weights and policy.pth holds "
                         f"{held:,}; the limit is {MAX_NETWORK_NUMBERS:,} (MAX_NETWORK_NUMBERS, 20 times the largest "
                         "model this project ships)")
    if wanted > held:
        raise ValueError(f"{info.source}: policy_kwargs ask for at least {wanted:,} weights, policy.pth holds "
                         f"{sum(t.numel() for t in sd.values()):,}: the file does not describe its own network")


def _overrides(algorithm: str) -> dict[str, Any]:
    """What ``_setup_model`` reads, set after the file's entries (``load``'s kwargs): one-step buffers of SB3's own
    classes whatever the file asks, constant schedules, no seeding of the global RNGs."""
    common: dict[str, Any] = {"learning_rate": 0.0, "seed": None, "n_envs": 1, "n_steps": 1}
    if algorithm == "DQN":
        return {**common, "buffer_size": 1, "replay_buffer_class": None, "replay_buffer_kwargs": {},
                "optimize_memory_usage": False, "train_freq": 1}
    return {**common, "rollout_buffer_class": None, "rollout_buffer_kwargs": {}, "use_sde": False,
            "clip_range": 0.0, "clip_range_vf": None}


def load_sb3_policy(path: str | Path, observation_space: spaces.Space, action_space: spaces.Space, *,
                    strict: bool = True, limits: ZipLimits = DEFAULT_LIMITS) -> tuple[BasePolicy, Sb3ZipInfo]:
    """``(policy, info)``: the model loaded by SB3's own ``load`` for the caller's spaces (which must be the recorded
    ones), every pickled entry given as ours (the whitelisted policy class and kwargs, the spaces, else None), on
    CPU, in eval mode. The caller still checks ``info.yacht_env_meta`` (Yahtzee and Yahtzee with free Joker have the
    same spaces)."""
    (info, params, data), blob = _read(path, strict, limits)
    check_spaces(info, observation_space, action_space)
    _check_size(info, params["policy"], observation_space)
    if not info.has_optimizer:
        raise ValueError(f"{info.source} has no 'policy.optimizer.pth' entry: not a stable-baselines3 model zip")
    spec = POLICY_REGISTRY[info.policy_class]
    ours = {"policy_class": spec.load_class(), "policy_kwargs": dict(info.constructor_kwargs), "env": None,
            "observation_space": observation_space, "action_space": action_space, "device": th.device("cpu")}
    custom = {k: ours.get(k) for k in data if k in ours or _serialized(data, k)}  # then SB3 unpickles nothing
    try:
        with th.random.fork_rng(devices=[]):  # building initialises weights: leave the caller's RNG stream alone
            model = ALGORITHMS[info.algorithm].load(io.BytesIO(blob), device="cpu", custom_objects=custom,
                                                    **_overrides(info.algorithm))
    except Exception as e:  # noqa: BLE001 - torch and SB3 raise RuntimeError, ValueError, KeyError, AssertionError...
        raise ValueError(f"{info.source}: policy.pth does not fit a {spec.label} built from the file's policy_kwargs "
                         f"for these spaces: {one_line(e, 300)}") from None
    policy = model.policy
    policy.set_training_mode(False)
    return policy, info
