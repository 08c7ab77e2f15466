"""Read stable-baselines3 / sb3-contrib model zips without running anything from the file.

``MaskablePPO.load`` (and every SB3 ``load``) unpickles the ``:serialized:`` entries of the zip's ``data`` JSON with
cloudpickle, so a crafted model file runs arbitrary code the moment it is loaded. This module reads the same zips as
*data*: the JSON is parsed with :mod:`json`; a pickled entry is either read from the human-readable fields SB3 writes
next to it, or read as plain data by :mod:`yacht_agents.pickle_data` (global references come back as
:class:`~yacht_agents.pickle_data.Ref` ``(module, name)`` pairs, never imported). The policy is then rebuilt from
classes of *our* code and the installed libraries, chosen through a whitelist (:data:`POLICY_REGISTRY`), with the
caller's spaces, and its weights come from ``policy.pth`` through ``torch.load(..., weights_only=True)``.

Public API: :func:`inspect_sb3_zip`, :func:`load_sb3_policy`, :func:`action_scores`, :func:`greedy_actions`,
:class:`SafePolicyModel` (a ``predict`` adapter) and :func:`register_policy`; the pickles are read by
:mod:`yacht_agents.pickle_data`, and resuming training from a zip is ``yacht_training.sb3_resume``.
"""

from __future__ import annotations

import base64
import binascii
import io
import json
import math
import reprlib
import zipfile
import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch as th
from gymnasium import spaces
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.policies import ActorCriticPolicy, BasePolicy
from stable_baselines3.common.torch_layers import FlattenExtractor
from stable_baselines3.dqn.policies import DQNPolicy
from torch import nn

from yacht_agents.pickle_data import MAX_PICKLE_OPS, Ref, pickle_references, pickle_to_data

short_repr = reprlib.Repr()
short_repr.maxstring = 80
short_repr.maxother = 80
short_repr.maxlevel = 3


# ==== limits ==========================================================================================================


@dataclass(frozen=True)
class ZipLimits:
    """Size limits for a model file (zip bombs, absurd entries). SB3 zips of this project are under 1 MB."""

    max_file_bytes: int = 256 << 20
    max_entries: int = 64
    max_entry_bytes: int = 256 << 20
    max_total_bytes: int = 512 << 20
    max_data_bytes: int = 32 << 20  # the data JSON
    max_pickle_bytes: int = 8 << 20  # one decoded ``:serialized:`` entry
    max_pickle_ops: int = MAX_PICKLE_OPS
    max_torch_entries: int = 100_000  # records inside one .pth (torch's own zip format)


DEFAULT_LIMITS = ZipLimits()


# ==== what SB3 writes: the references a strict read accepts ==========================================================


def _refs(module: str, *names: str) -> set[Ref]:
    return {Ref(module, n) for n in names}


ACTIVATIONS: dict[Ref, type[nn.Module]] = {
    Ref("torch.nn.modules.activation", c.__name__): c for c in (nn.Tanh, nn.ReLU, nn.ELU, nn.GELU, nn.SiLU,
                                                                 nn.LeakyReLU)}
"""``activation_fn`` references accepted in ``policy_kwargs``, and the classes they stand for."""

OPTIMIZERS: dict[Ref, type[th.optim.Optimizer]] = {
    Ref("torch.optim.adam", "Adam"): th.optim.Adam, Ref("torch.optim.adamw", "AdamW"): th.optim.AdamW,
    Ref("torch.optim.rmsprop", "RMSprop"): th.optim.RMSprop, Ref("torch.optim.sgd", "SGD"): th.optim.SGD}
"""``optimizer_class`` references accepted in ``policy_kwargs`` (A2C records RMSprop there)."""

FEATURE_EXTRACTORS: dict[Ref, type] = {Ref("stable_baselines3.common.torch_layers", "FlattenExtractor"):
                                       FlattenExtractor}

DATA_REFERENCES: set[Ref] = (
    _refs("numpy", "dtype", "ndarray")
    | _refs("numpy._core.numeric", "_frombuffer") | _refs("numpy.core.numeric", "_frombuffer")
    | _refs("numpy._core.multiarray", "scalar", "_reconstruct") | _refs("numpy.core.multiarray", "scalar",
                                                                          "_reconstruct")
    | _refs("numpy.random._pickle", "__generator_ctor", "__bit_generator_ctor", "__randomstate_ctor")
    | _refs("numpy.random._pcg64", "PCG64") | _refs("numpy.random._mt19937", "MT19937")
    | _refs("numpy.random.bit_generator", "__pyx_unpickle_SeedSequence", "SeedSequence")
    | _refs("collections", "deque", "OrderedDict")
    | _refs("gymnasium.spaces.box", "Box") | _refs("gymnasium.spaces.discrete", "Discrete")
    | _refs("gymnasium.spaces.multi_discrete", "MultiDiscrete") | _refs("gymnasium.spaces.multi_binary",
                                                                          "MultiBinary")
    | _refs("stable_baselines3.common.utils", "FloatSchedule", "LinearSchedule", "ConstantSchedule")
    | _refs("stable_baselines3.common.type_aliases", "TrainFreq", "TrainFrequencyUnit")
    | _refs("stable_baselines3.common.buffers", "RolloutBuffer", "ReplayBuffer")
    | _refs("sb3_contrib.common.maskable.buffers", "MaskableRolloutBuffer")
)
"""Globals SB3 2.x writes in the ``data`` entries of PPO, A2C, DQN and MaskablePPO models (numpy arrays, spaces,
schedules, buffers' classes), besides the policy classes, activations and optimizers. A strict read rejects a file
naming anything else: none of it is ever imported, but SB3's own loader would, so such a file is not a clean model."""


# ==== the policy whitelist ===========================================================================================


def _where(key: str) -> str:
    return f"policy_kwargs[{key!r}]"


def _int_list(value: Any, key: str) -> list[int] | None:
    if value is None:
        return None
    if not isinstance(value, list | tuple) or not all(type(v) is int and 0 < v <= 1 << 16 for v in value) or len(
            value) > 64:
        raise ValueError(f"{_where(key)} must be a list of at most 64 layer widths (ints in 1..65536), "
                         f"got {short_repr.repr(value)}")
    return list(value)


def _ac_net_arch(value: Any, key: str) -> list[int] | dict[str, list[int]] | None:
    if isinstance(value, dict):
        if not value.keys() <= {"pi", "vf"}:
            raise ValueError(f"{_where(key)} as a dict takes the keys 'pi' and 'vf', got {sorted(map(str, value))}")
        return {k: _int_list(v, f"{key}.{k}") or [] for k, v in value.items()}
    return _int_list(value, key)


def _bool(value: Any, key: str) -> bool:
    if type(value) is not bool:
        raise ValueError(f"{_where(key)} must be True or False, got {short_repr.repr(value)}")
    return value


def _float(value: Any, key: str) -> float:
    if type(value) not in (int, float) or not math.isfinite(value):
        raise ValueError(f"{_where(key)} must be a finite number, got {short_repr.repr(value)}")
    return float(value)


def _str(value: Any, key: str) -> str:
    if type(value) is not str or len(value) > 200:
        raise ValueError(f"{_where(key)} must be a short string, got {short_repr.repr(value)}")
    return value


def _lookup(table: Mapping[Ref, Any], what: str) -> Callable[[Any, str], Any]:
    def convert(value: Any, key: str) -> Any:
        if isinstance(value, Ref) and value in table:
            return table[value]
        shown = str(value) if isinstance(value, Ref) else short_repr.repr(value)
        raise ValueError(f"{_where(key)} is {shown}: not an accepted {what}; accepted: "
                         f"{', '.join(sorted(map(str, table)))}")
    return convert


_OPTIMIZER_KWARGS = frozenset({"eps", "alpha", "weight_decay", "betas", "momentum", "centered", "amsgrad",
                               "nesterov", "dampening", "maximize"})


def _optimizer_kwargs(value: Any, key: str) -> dict[str, Any] | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise ValueError(f"{_where(key)} must be a dict, got {short_repr.repr(value)}")
    out: dict[str, Any] = {}
    for k, v in value.items():
        if k not in _OPTIMIZER_KWARGS:
            raise ValueError(f"{_where(key)} has the key {short_repr.repr(k)}; accepted: {sorted(_OPTIMIZER_KWARGS)}")
        plain = (type(v) in (bool, int, float)) or (isinstance(v, tuple | list) and len(v) <= 4 and all(
            type(x) in (int, float) for x in v))
        if not plain:
            raise ValueError(f"{_where(key)}[{k!r}] must be a number, a bool or a tuple of numbers, "
                             f"got {short_repr.repr(v)}")
        out[k] = tuple(v) if isinstance(v, list) else v
    return out


def _empty_dict(value: Any, key: str) -> dict[str, Any] | None:
    if value not in (None, {}):
        raise ValueError(f"{_where(key)} must be empty, got {short_repr.repr(value)}")
    return value


_COMMON_KWARGS: dict[str, Callable[[Any, str], Any]] = {
    "activation_fn": _lookup(ACTIVATIONS, "activation"), "optimizer_class": _lookup(OPTIMIZERS, "optimizer"),
    "optimizer_kwargs": _optimizer_kwargs, "normalize_images": _bool,
    "features_extractor_class": _lookup(FEATURE_EXTRACTORS, "features extractor"),
    "features_extractor_kwargs": _empty_dict}
ACTOR_CRITIC_KWARGS = {**_COMMON_KWARGS, "net_arch": _ac_net_arch, "ortho_init": _bool,
                       "share_features_extractor": _bool}
DQN_KWARGS = {**_COMMON_KWARGS, "net_arch": _int_list}
TURN_EXPECTIMAX_KWARGS = {"net_arch": _int_list, "activation_fn": _COMMON_KWARGS["activation_fn"],
                          "optimizer_class": _COMMON_KWARGS["optimizer_class"], "optimizer_kwargs": _optimizer_kwargs,
                          "ortho_init": _bool, "rules": _str, "reward_scale": _float, "inverse_temperature": _float,
                          "box_prior": _float}

KINDS = ("actor_critic", "maskable", "dqn")


@dataclass(frozen=True)
class PolicySpec:
    """A policy class a model file may name: how to get it from our code and which ``policy_kwargs`` it takes.

    :param label: the name used in messages and :attr:`Sb3ZipInfo.policy`.
    :param kind: ``actor_critic`` (SB3 PPO/A2C), ``maskable`` (MaskablePPO) or ``dqn``: how it is built and used.
    :param load_class: returns the class (imports our module lazily; never anything named by the file).
    :param kwargs: accepted ``policy_kwargs`` keys, each with a converter ``(value, key) -> value`` that raises
        ``ValueError`` for what it does not accept.
    :param first_layer_from_obs: whether the first hidden layer reads the whole observation (for the size guard).
    :param shared_trunk: whether policy and value share the one ``net_arch`` (SB3's actor-critic policies build it
        twice; for the size guard).
    """

    label: str
    kind: str
    load_class: Callable[[], type[BasePolicy]]
    kwargs: Mapping[str, Callable[[Any, str], Any]]
    first_layer_from_obs: bool = True
    shared_trunk: bool = False


POLICY_REGISTRY: dict[Ref, PolicySpec] = {
    Ref("stable_baselines3.common.policies", "ActorCriticPolicy"): PolicySpec(
        "ActorCriticPolicy", "actor_critic", lambda: ActorCriticPolicy, ACTOR_CRITIC_KWARGS),
    Ref("sb3_contrib.common.maskable.policies", "MaskableActorCriticPolicy"): PolicySpec(
        "MaskableActorCriticPolicy", "maskable", lambda: MaskableActorCriticPolicy, ACTOR_CRITIC_KWARGS),
    Ref("stable_baselines3.dqn.policies", "DQNPolicy"): PolicySpec("DQNPolicy", "dqn", lambda: DQNPolicy, DQN_KWARGS),
}
"""The policy classes a model file may name, by the ``(module, name)`` its ``policy_class`` pickle records. Policies
of our own register themselves (:mod:`yacht_agents.turn_policy`)."""


def register_policy(module: str, name: str, spec: PolicySpec) -> None:
    """Accept model files whose ``policy_class`` is ``module.name``, built as ``spec`` says (e.g. a new policy of
    ours, or an old module path of one)."""
    if spec.kind not in KINDS:
        raise ValueError(f"PolicySpec.kind must be one of {KINDS}, got {spec.kind!r}")
    POLICY_REGISTRY[Ref(module, name)] = spec


# ==== reading a zip ==================================================================================================


@dataclass(frozen=True)
class Sb3ZipInfo:
    """What a model zip says about itself, read without running anything from it.

    ``policy_kwargs`` is the recorded dict as plain data (classes as :class:`Ref`); ``constructor_kwargs`` the
    same mapped to our classes. ``counters`` holds the plain numbers SB3 keeps for resuming (``num_timesteps``,
    ``_n_updates``, ...). ``serialized`` maps each pickled ``data`` entry to the globals it names."""

    source: str
    sb3_version: str
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
    entries: tuple[str, ...]
    state_dict_shapes: dict[str, tuple[int, ...]]
    has_optimizer: bool
    serialized: dict[str, tuple[Ref, ...]] = field(default_factory=dict)


COUNTERS = ("num_timesteps", "_total_timesteps", "_num_timesteps_at_start", "_n_updates",
             "_current_progress_remaining", "_episode_num", "_n_calls", "exploration_rate")
_BOX = "<class 'gymnasium.spaces.box.Box'>"
_DISCRETE = "<class 'gymnasium.spaces.discrete.Discrete'>"


@dataclass
class _Archive:
    source: str
    entries: dict[str, zipfile.ZipInfo]
    zf: zipfile.ZipFile
    limits: ZipLimits

    def read(self, name: str, cap: int | None = None) -> bytes:
        info = self.entries.get(name)
        if info is None:
            raise ValueError(f"{self.source} has no {name!r} entry: not a stable-baselines3 model zip")
        cap = self.limits.max_entry_bytes if cap is None else cap
        if info.file_size > cap:
            raise ValueError(f"{self.source}: entry {name!r} declares {info.file_size:,} bytes uncompressed, more "
                             f"than the limit of {cap:,}")
        try:
            with self.zf.open(info) as f:
                blob = f.read(cap + 1)
        except (zipfile.BadZipFile, zlib.error, EOFError, OSError, NotImplementedError, RuntimeError) as e:
            raise ValueError(f"{self.source}: entry {name!r} cannot be read (damaged or truncated zip): {e}") from None
        if len(blob) > cap:
            raise ValueError(f"{self.source}: entry {name!r} is larger than the limit of {cap:,} bytes")
        return blob


def _open_archive(path: str | Path, limits: ZipLimits) -> _Archive:
    """The zip in memory with its entries checked against ``limits`` (read once: nothing changes under us)."""
    p = Path(path)
    source = repr(str(p))
    if not p.is_file():
        raise ValueError(f"no model file at {source}")
    size = p.stat().st_size
    if size > limits.max_file_bytes:
        raise ValueError(f"{source} is {size:,} bytes, more than the limit of {limits.max_file_bytes:,} for a model")
    with open(p, "rb") as f:
        blob = f.read(limits.max_file_bytes + 1)
    try:
        zf = zipfile.ZipFile(io.BytesIO(blob))
        infos = zf.infolist()
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError, NotImplementedError) as e:
        raise ValueError(f"{source} is not a zip file, or a truncated one ({e}): not a stable-baselines3 "
                         "model") from None
    end = blob.rfind(b"PK\x05\x06")  # zipfile looks for the end record backwards: it must end the file
    if end < 0 or end + 22 + len(zf.comment) != len(blob):
        raise ValueError(f"{source} is a truncated zip file, or has data after its end: not a stable-baselines3 "
                         "model as saved")
    if len(infos) > limits.max_entries:
        raise ValueError(f"{source} has {len(infos):,} entries, more than the limit of {limits.max_entries} "
                         "(an SB3 model has about 6)")
    entries: dict[str, zipfile.ZipInfo] = {}
    total = 0
    for info in infos:
        if info.filename in entries:
            raise ValueError(f"{source} has two entries named {info.filename!r}")
        if info.flag_bits & 0x1:
            raise ValueError(f"{source}: entry {info.filename!r} is encrypted")
        if info.file_size > limits.max_entry_bytes:
            raise ValueError(f"{source}: entry {info.filename!r} declares {info.file_size:,} bytes uncompressed, "
                             f"more than the limit of {limits.max_entry_bytes:,}")
        total += info.file_size
        entries[info.filename] = info
    if total > limits.max_total_bytes:
        raise ValueError(f"{source} declares {total:,} bytes uncompressed in all, more than the limit of "
                         f"{limits.max_total_bytes:,}")
    return _Archive(source, entries, zf, limits)


def torch_entry(arc: _Archive, name: str) -> Any:
    """``torch.load`` of one ``.pth`` entry with ``weights_only=True`` (tensors and plain containers only), after
    checking that it is torch's zip format within the limits."""
    blob = arc.read(name)
    try:
        inner = zipfile.ZipFile(io.BytesIO(blob)).infolist()
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError) as e:
        raise ValueError(f"{arc.source}: {name} is not in torch's zip format ({e})") from None
    if len(inner) > arc.limits.max_torch_entries or sum(i.file_size for i in inner) > arc.limits.max_total_bytes:
        raise ValueError(f"{arc.source}: {name} declares more records or bytes than the limits allow")
    try:
        return th.load(io.BytesIO(blob), map_location="cpu", weights_only=True)
    except Exception as e:  # noqa: BLE001 - torch raises UnpicklingError, RuntimeError, ...: all mean "rejected"
        raise ValueError(f"{arc.source}: {name} was rejected by torch's weights-only loader (it may hold only "
                         f"tensors and plain containers): {type(e).__name__}: {str(e)[:300]}") from None


def _state_dict(arc: _Archive) -> dict[str, th.Tensor]:
    sd = torch_entry(arc, "policy.pth")
    if not isinstance(sd, Mapping) or not all(isinstance(k, str) and isinstance(v, th.Tensor) for k, v in
                                              sd.items()):
        raise ValueError(f"{arc.source}: policy.pth is not a state dict (names to tensors)")
    return dict(sd)


def _decode(entry: Any, key: str, source: str, limits: ZipLimits) -> bytes:
    blob = entry.get(":serialized:")
    if not isinstance(blob, str) or len(blob) > limits.max_pickle_bytes * 4 // 3 + 8:
        raise ValueError(f"{source}: data[{key!r}] has a :serialized: field that is not a string within the "
                         f"limit of {limits.max_pickle_bytes:,} bytes")
    try:
        return base64.b64decode(blob, validate=True)
    except (binascii.Error, ValueError) as e:
        raise ValueError(f"{source}: data[{key!r}] is not valid base64: {e}") from None


def plain_entry(data: dict[str, Any], key: str, source: str, limits: ZipLimits) -> Any:
    """A data entry as plain data: JSON as is, a pickle through :func:`pickle_to_data`."""
    entry = data[key]
    if not (isinstance(entry, dict) and ":serialized:" in entry):
        return entry
    try:
        return pickle_to_data(_decode(entry, key, source, limits), limits.max_pickle_ops)
    except ValueError as e:
        raise ValueError(f"{source}: data[{key!r}] is not plain data ({e}); this reader never unpickles "
                         "objects") from None


def _scan_serialized(data: dict[str, Any], source: str, limits: ZipLimits, strict: bool,
                     accepted: set[Ref]) -> dict[str, tuple[Ref, ...]]:
    """Every pickled entry's global references; with ``strict``, reject any SB3 would not write."""
    found: dict[str, tuple[Ref, ...]] = {}
    for key, entry in data.items():
        if not (isinstance(entry, dict) and ":serialized:" in entry):
            continue
        try:
            refs, calls = pickle_references(_decode(entry, key, source, limits), limits.max_pickle_ops)
        except ValueError as e:
            if strict:
                raise ValueError(f"{source}: data[{key!r}] is not a readable pickle: {e}") from None
            continue
        found[key] = tuple(dict.fromkeys(refs))
        bad = [r for r in found[key] if r not in accepted]
        odd = calls & {"PERSID", "BINPERSID", "EXT1", "EXT2", "EXT4", "NEXT_BUFFER", "READONLY_BUFFER"}
        if strict and (bad or odd):
            what = ", ".join([str(r) for r in bad] + sorted(odd))
            raise ValueError(f"{source}: data[{key!r}] names {what}, which stable-baselines3 does not write in a "
                             "model: the file may carry code that SB3's own loader would run (this reader runs "
                             "none of it). Pass strict=False to ignore entries this reader does not need")
    return found


def _int_field(entry: dict[str, Any], name: str, source: str, what: str) -> int:
    v = entry.get(name)
    if isinstance(v, str) and v.strip().lstrip("-").isdigit() and len(v) < 20:
        return int(v)
    if type(v) is int:
        return v
    raise ValueError(f"{source}: the recorded {what} has no readable {name!r} field (got {short_repr.repr(v)})")


def _spaces(data: dict[str, Any], source: str) -> tuple[tuple[int, ...], str, int, int]:
    """Observation shape and dtype, action count and start, from the readable fields SB3 writes."""
    obs, act = data.get("observation_space"), data.get("action_space")
    if not isinstance(obs, dict) or obs.get(":type:") != _BOX:
        t = obs.get(":type:") if isinstance(obs, dict) else obs
        raise ValueError(f"{source}: the model's observation space is {short_repr.repr(t)}; accepted: {_BOX}")
    if not isinstance(act, dict) or act.get(":type:") != _DISCRETE:
        t = act.get(":type:") if isinstance(act, dict) else act
        raise ValueError(f"{source}: the model's action space is {short_repr.repr(t)}; accepted: {_DISCRETE}")
    shape = obs.get("_shape")
    if not isinstance(shape, list) or not all(type(d) is int and d >= 0 for d in shape) or len(shape) > 8:
        raise ValueError(f"{source}: the recorded observation space has no readable shape ({short_repr.repr(shape)})")
    dtype = obs.get("dtype")
    if not isinstance(dtype, str) or len(dtype) > 40:
        raise ValueError(f"{source}: the recorded observation space has no readable dtype")
    return tuple(shape), dtype, _int_field(act, "n", source, "action space"), _int_field(act, "start", source,
                                                                                        "action space")


def _algorithm(kind: str, data: dict[str, Any], keys: Sequence[str], source: str, policy: str) -> str:
    q = any(k.startswith("q_net.") for k in keys)
    if kind == "dqn":
        if not (q and any(k.startswith("q_net_target.") for k in keys)):
            raise ValueError(f"{source}: policy_class is {policy} (DQN) but policy.pth has no q_net.* and "
                             "q_net_target.* weights")
        return "DQN"
    if q:
        raise ValueError(f"{source}: policy_class is {policy} (actor-critic) but policy.pth has q_net.* weights")
    if kind == "maskable":
        return "MaskablePPO"
    return "PPO" if "clip_range" in data or "n_epochs" in data else "A2C"


def read_archive(path: str | Path, strict: bool,
                 limits: ZipLimits) -> tuple[Sb3ZipInfo, dict[str, th.Tensor], _Archive]:
    arc = _open_archive(path, limits)
    source = arc.source
    try:
        version = arc.read("_stable_baselines3_version", 64).decode("ascii").strip()
    except UnicodeDecodeError:
        version = "?"
    if not version.startswith("2."):
        raise ValueError(f"{source} was saved by stable-baselines3 {version!r}; accepted: 2.x")
    raw = arc.read("data", limits.max_data_bytes)
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as e:  # JSONDecodeError is a ValueError
        raise ValueError(f"{source}: the data entry is not JSON ({str(e)[:200]})") from None
    if not isinstance(data, dict):
        raise ValueError(f"{source}: the data entry is not a JSON object")

    accepted = DATA_REFERENCES | set(POLICY_REGISTRY) | set(ACTIVATIONS) | set(OPTIMIZERS) | set(FEATURE_EXTRACTORS)
    serialized = _scan_serialized(data, source, limits, strict, accepted)

    if "policy_class" not in data:
        raise ValueError(f"{source}: data has no policy_class")
    ref = plain_entry(data, "policy_class", source, limits)
    accepted_policies = ", ".join(str(r) for r in POLICY_REGISTRY)
    if not isinstance(ref, Ref) or ref not in POLICY_REGISTRY:
        raise ValueError(f"{source}: policy_class is {ref if isinstance(ref, Ref) else short_repr.repr(ref)}, not an "
                         f"accepted policy; accepted: {accepted_policies}")
    spec = POLICY_REGISTRY[ref]

    kwargs = plain_entry(data, "policy_kwargs", source, limits) if "policy_kwargs" in data else {}
    if not isinstance(kwargs, dict) or not all(isinstance(k, str) for k in kwargs):
        raise ValueError(f"{source}: policy_kwargs is not a dict with string keys ({short_repr.repr(kwargs)})")
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

    shape, dtype, n, start = _spaces(data, source)
    counters: dict[str, int | float] = {}
    for k in (k for k in COUNTERS if k in data):
        v = data[k]
        fraction = k in ("_current_progress_remaining", "exploration_rate")
        if not ((type(v) in (int, float) and math.isfinite(v)) if fraction else (type(v) is int and v >= 0)):
            raise ValueError(f"{source}: data[{k!r}] must be {'a finite number' if fraction else 'a count (int >= 0)'}"
                             f", got {short_repr.repr(v)}")
        counters[k] = v
    meta = None
    if "yacht_env_meta" in data:
        meta = plain_entry(data, "yacht_env_meta", source, limits)
        if not isinstance(meta, dict):
            raise ValueError(f"{source}: yacht_env_meta is not a dict")

    sd = _state_dict(arc)
    algorithm = _algorithm(spec.kind, data, list(sd), source, spec.label)
    info = Sb3ZipInfo(
        source=source, sb3_version=version, algorithm=algorithm, policy=spec.label, policy_class=ref, kind=spec.kind,
        policy_kwargs=kwargs, constructor_kwargs=constructor, observation_shape=shape, observation_dtype=dtype,
        action_n=n, action_start=start, num_timesteps=counters.get("num_timesteps"), counters=counters,
        yacht_env_meta=meta, entries=tuple(arc.entries), state_dict_shapes={k: tuple(v.shape) for k, v in sd.items()},
        has_optimizer="policy.optimizer.pth" in arc.entries, serialized=serialized)
    return info, sd, arc


def inspect_sb3_zip(path: str | Path, *, strict: bool = True, limits: ZipLimits = DEFAULT_LIMITS) -> Sb3ZipInfo:
    """What an SB3 model zip holds (algorithm, policy, kwargs, spaces, counters, ``yacht_env_meta``), read as data.

    ``strict`` (default) rejects a file whose pickled entries name any global SB3 would not write, even in entries
    this reader does not use; ``strict=False`` ignores those entries (they are never decoded). Raises
    ``ValueError`` with what was found and what is accepted."""
    return read_archive(path, strict, limits)[0]


# ==== building the policy ============================================================================================


def check_spaces(info: Sb3ZipInfo, observation_space: spaces.Space, action_space: spaces.Space) -> None:
    """Raise ``ValueError`` unless the caller's spaces are the ones the model was trained on (shape, dtype, n)."""
    if not isinstance(observation_space, spaces.Box):
        raise ValueError(f"the environment's observation space is {observation_space}; accepted: Box")
    if not isinstance(action_space, spaces.Discrete):
        raise ValueError(f"the environment's action space is {action_space}; accepted: Discrete")
    if tuple(observation_space.shape) != info.observation_shape:
        raise ValueError(f"{info.source}: model expects observations of shape {info.observation_shape}, the "
                         f"environment gives {tuple(observation_space.shape)}")
    if str(observation_space.dtype) != info.observation_dtype:
        raise ValueError(f"{info.source}: model expects {info.observation_dtype} observations, the environment "
                         f"gives {observation_space.dtype}")
    if int(action_space.n) != info.action_n or int(action_space.start) != info.action_start:
        raise ValueError(f"{info.source}: model expects {info.action_n} actions (Discrete({info.action_n}, "
                         f"start={info.action_start})), the environment has {int(action_space.n)} "
                         f"(Discrete({int(action_space.n)}, start={int(action_space.start)}))")


def _hidden_weights(spec: PolicySpec, kwargs: Mapping[str, Any], obs_dim: int) -> int:
    """A lower bound of the weights the kwargs ask for, to refuse building a huge network for a small file."""
    arch = kwargs.get("net_arch") or []
    copies = 2 if spec.kind != "dqn" and spec.first_layer_from_obs and not spec.shared_trunk else 1
    archs = list(arch.values()) if isinstance(arch, dict) else [arch] * copies
    first = obs_dim if spec.first_layer_from_obs else 1
    return sum(a * b for widths in archs for a, b in zip([first, *widths], widths))


def _zero_lr(_progress_remaining: float) -> float:
    return 0.0


def _build(info: Sb3ZipInfo, sd: Mapping[str, th.Tensor], observation_space: spaces.Space,
           action_space: spaces.Space) -> BasePolicy:
    spec = POLICY_REGISTRY[info.policy_class]
    stored = sum(t.numel() for t in sd.values())
    wanted = _hidden_weights(spec, info.constructor_kwargs, int(np.prod(observation_space.shape)))
    if wanted > stored:
        raise ValueError(f"{info.source}: policy_kwargs ask for at least {wanted:,} weights, policy.pth holds "
                         f"{stored:,}: the file does not describe its own network")
    cls = spec.load_class()
    extra = {"use_sde": False} if spec.kind == "actor_critic" else {}
    try:
        with th.random.fork_rng(devices=[]):  # building initialises weights: leave the caller's RNG stream alone
            policy = cls(observation_space, action_space, _zero_lr, **extra, **info.constructor_kwargs)
    except (ValueError, KeyError, TypeError) as e:
        raise ValueError(f"{info.source}: cannot build {spec.label} from the file's policy_kwargs for these "
                         f"spaces: {e}") from None
    try:
        policy.load_state_dict(sd, strict=True)
    except RuntimeError as e:
        raise ValueError(f"{info.source}: policy.pth does not fit a {spec.label} built from the file's "
                         f"policy_kwargs for these spaces: {str(e)[:500]}") from None
    policy.set_training_mode(False)
    return policy


def load_sb3_policy(path: str | Path, observation_space: spaces.Space, action_space: spaces.Space, *,
                    strict: bool = True, limits: ZipLimits = DEFAULT_LIMITS) -> tuple[BasePolicy, Sb3ZipInfo]:
    """``(policy, info)``: the model's policy rebuilt from our classes for the caller's spaces, on CPU, in eval mode.

    The spaces are those of the environment the model will play; they must match what the zip records (else a
    ``ValueError`` saying what each side has). Weights come from ``policy.pth`` with ``weights_only=True`` and
    ``strict=True``. The caller still checks ``info.yacht_env_meta`` (rules and layout: Yahtzee and Yahtzee with
    free Joker have the same spaces)."""
    info, sd, _ = read_archive(path, strict, limits)
    check_spaces(info, observation_space, action_space)
    return _build(info, sd, observation_space, action_space), info


# ==== acting ==========================================================================================================


def _batch(policy: BasePolicy, obs: np.ndarray, masks: np.ndarray | None) -> tuple[th.Tensor, np.ndarray | None]:
    obs = np.asarray(obs, dtype=np.float32)
    shape = tuple(policy.observation_space.shape)
    if obs.ndim != 1 + len(shape) or obs.shape[1:] != shape:
        raise ValueError(f"observations must have shape (N, {', '.join(map(str, shape))}), got {obs.shape}")
    if masks is not None:
        masks = np.asarray(masks, dtype=bool)
        n = int(policy.action_space.n)
        if masks.shape != (len(obs), n):
            raise ValueError(f"masks must have shape ({len(obs)}, {n}), got {masks.shape}")
        empty = np.flatnonzero(~masks.any(axis=1))
        if empty.size:
            raise ValueError(f"mask row {int(empty[0])} allows no action")
    return th.as_tensor(obs, device=policy.device), masks


def _where_legal(scores: th.Tensor, masks: np.ndarray | None) -> th.Tensor:
    if masks is None:
        return scores
    m = th.as_tensor(masks, device=scores.device)
    return th.where(m, scores, th.full_like(scores, -math.inf))


def action_scores(policy: BasePolicy, obs: np.ndarray, masks: np.ndarray | None = None) -> np.ndarray:
    """(N, A) float32 action preferences: the policy's logits (log-probabilities) for actor-critic policies, the
    Q-values for DQN; ``-inf`` where ``masks`` (N, A bool) forbids. Argmax over a row is the greedy legal action
    (:func:`greedy_actions` breaks near-ties exactly as SB3's ``predict`` does)."""
    with th.no_grad():
        x, masks = _batch(policy, obs, masks)
        if isinstance(policy, DQNPolicy):
            scores = policy.q_net(x)
        elif isinstance(policy, MaskableActorCriticPolicy):
            scores = policy.get_distribution(x, None).distribution.logits
        elif isinstance(policy, ActorCriticPolicy):
            scores = policy.get_distribution(x).distribution.logits
        else:
            raise ValueError(f"action_scores takes an actor-critic or DQN policy, not {type(policy).__name__}")
        return _where_legal(scores, masks).cpu().numpy().astype(np.float32)


def greedy_actions(policy: BasePolicy, obs: np.ndarray, masks: np.ndarray | None = None) -> np.ndarray:
    """(N,) int64 deterministic actions among the legal ones: for MaskablePPO policies exactly
    ``predict(obs, action_masks=masks, deterministic=True)`` (the mode of the masked distribution); for PPO/A2C and
    DQN without masks exactly their ``predict(deterministic=True)``, with masks the best legal logit / Q-value."""
    with th.no_grad():
        x, masks = _batch(policy, obs, masks)
        if isinstance(policy, DQNPolicy):
            return _where_legal(policy.q_net(x), masks).argmax(dim=1).cpu().numpy().astype(np.int64)
        if isinstance(policy, MaskableActorCriticPolicy):
            return policy.get_distribution(x, masks).mode().cpu().numpy().astype(np.int64)
        if isinstance(policy, ActorCriticPolicy):
            dist = policy.get_distribution(x)
            if masks is None:
                return dist.mode().cpu().numpy().astype(np.int64)
            return _where_legal(dist.distribution.logits, masks).argmax(dim=1).cpu().numpy().astype(np.int64)
        raise ValueError(f"greedy_actions takes an actor-critic or DQN policy, not {type(policy).__name__}")


class SafePolicyModel:
    """A loaded policy with the ``predict`` of an SB3 model, so that code written for ``MaskablePPO.load`` (such as
    ``PPOAgent``) can use it: ``predict(obs, action_masks=masks, deterministic=True) -> (actions, None)``."""

    def __init__(self, policy: BasePolicy, info: Sb3ZipInfo) -> None:
        self.policy = policy
        self.info = info
        if info.yacht_env_meta is not None:
            self.yacht_env_meta = info.yacht_env_meta

    @classmethod
    def load(cls, path: str | Path, observation_space: spaces.Space, action_space: spaces.Space, *,
             strict: bool = True, limits: ZipLimits = DEFAULT_LIMITS) -> SafePolicyModel:
        """:func:`load_sb3_policy` wrapped."""
        return cls(*load_sb3_policy(path, observation_space, action_space, strict=strict, limits=limits))

    def predict(self, observation: np.ndarray, state: Any = None, episode_start: Any = None,
                deterministic: bool = True, action_masks: np.ndarray | None = None) -> tuple[np.ndarray, None]:
        obs = np.asarray(observation, dtype=np.float32)
        single = obs.ndim == len(self.policy.observation_space.shape)
        if single:
            obs = obs[None]
            action_masks = None if action_masks is None else np.asarray(action_masks).reshape(1, -1)
        if deterministic:
            actions = greedy_actions(self.policy, obs, action_masks)
        elif isinstance(self.policy, DQNPolicy):
            raise ValueError("a DQN policy has no action distribution to sample: use deterministic=True")
        else:
            with th.no_grad():
                logits = th.as_tensor(action_scores(self.policy, obs, action_masks))
                actions = th.distributions.Categorical(logits=logits).sample().numpy().astype(np.int64)
        return (actions[0] if single else actions), None
