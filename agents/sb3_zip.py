"""Read stable-baselines3 / sb3-contrib model zips without running anything from the file.

SB3's ``load`` unpickles the ``:serialized:`` entries of the zip's ``data`` JSON, so a crafted file runs code. Here
the weights come from SB3's own ``load_from_zip_file(..., load_data=False)`` (``torch.load(weights_only=True)``, the
data never unpickled), after size checks against zip bombs; the spaces and ``policy_kwargs`` come from the readable
fields SB3 writes beside each pickle; the policy class is a name from a whitelist (:data:`POLICY_REGISTRY`), read
from the class pickle's disassembly (:mod:`pickletools` builds and imports nothing). The inference API is in
:mod:`yacht_agents.sb3_agent`, resuming training in ``yacht_training.sb3_resume``.
"""

from __future__ import annotations

import base64
import binascii
import io
import json
import math
import pickletools
import re
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import torch as th
from gymnasium import spaces
from stable_baselines3.common.policies import BasePolicy
from stable_baselines3.common.save_util import load_from_zip_file

from yacht_agents.nets import check_weights, one_line, torch_load_reason
from yacht_agents.sb3_policies import ACTIVATIONS, FEATURE_EXTRACTORS, OPTIMIZERS, POLICY_REGISTRY, Ref, short_repr
from yacht_env.files import read_regular, regular_file_problem


@dataclass(frozen=True)
class ZipLimits:
    """Size limits for a model file, checked on the sizes the zip declares before anything is decompressed (zipfile
    never inflates an entry past its declared size). SB3 zips of this project are under 3 MB."""

    max_file_bytes: int = 256 << 20
    max_entries: int = 64
    max_entry_bytes: int = 256 << 20
    max_total_bytes: int = 512 << 20
    max_data_bytes: int = 32 << 20  # the data JSON
    max_pickle_ops: int = 2_000_000  # opcodes of one pickled data entry (scanned, never run)
    max_torch_entries: int = 100_000  # records inside one .pth (torch's own zip format)


DEFAULT_LIMITS = ZipLimits()


DATA_REFERENCES = {Ref(m, n) for m, names in {
    "numpy": "dtype ndarray", "numpy._core.numeric": "_frombuffer", "numpy.core.numeric": "_frombuffer",
    "numpy._core.multiarray": "scalar _reconstruct", "numpy.core.multiarray": "scalar _reconstruct",
    "numpy.random._pickle": "__generator_ctor __bit_generator_ctor __randomstate_ctor",
    "numpy.random._pcg64": "PCG64", "numpy.random._mt19937": "MT19937",
    "numpy.random.bit_generator": "__pyx_unpickle_SeedSequence SeedSequence", "collections": "deque OrderedDict",
    "gymnasium.spaces.box": "Box", "gymnasium.spaces.discrete": "Discrete",
    "gymnasium.spaces.multi_discrete": "MultiDiscrete", "gymnasium.spaces.multi_binary": "MultiBinary",
    "stable_baselines3.common.utils": "FloatSchedule LinearSchedule ConstantSchedule",
    "stable_baselines3.common.type_aliases": "TrainFreq TrainFrequencyUnit",
    "stable_baselines3.common.buffers": "RolloutBuffer ReplayBuffer",
    "sb3_contrib.common.maskable.buffers": "MaskableRolloutBuffer"}.items() for n in names.split()}
"""Globals SB3 2.x pickles in ``data`` (arrays, spaces, schedules, buffer classes) besides policies and the classes
above. A strict read refuses a file naming any other: this reader imports none, but SB3's loader would."""

# ==== reading a zip ==================================================================================================

_CLASS_TEXT = re.compile(r"<class '([\w.]+)\.(\w+)'>")  # how SB3 writes a class in a readable field
_STRINGS = {"SHORT_BINUNICODE", "BINUNICODE", "BINUNICODE8", "UNICODE", "STRING", "BINSTRING", "SHORT_BINSTRING"}
_NAMING = _STRINGS | {"PROTO", "FRAME", "MEMOIZE", "PUT", "BINPUT", "LONG_BINPUT", "GLOBAL", "STACK_GLOBAL", "STOP"}
_ODD = {"PERSID", "BINPERSID", "EXT1", "EXT2", "EXT4", "NEXT_BUFFER", "READONLY_BUFFER"}


def pickle_names(blob: bytes, max_ops: int) -> tuple[list[Ref], set[str]]:
    """The globals a pickle names and its opcodes, from :func:`pickletools.genops` (nothing built or imported). A
    ``STACK_GLOBAL`` whose operands are not the two strings pushed just before it names ``<computed>.?``."""
    names: list[Ref] = []
    ops: set[str] = set()
    memo: dict[Any, Any] = {}
    pushed: list[Any] = [None, None]  # what the last two stack operations pushed (a string, or None)
    try:
        for i, (op, arg, _) in enumerate(pickletools.genops(blob)):
            if i >= max_ops:
                raise ValueError(f"more than {max_ops:,} opcodes")
            ops.add(op.name)
            if op.name in ("MEMOIZE", "PUT", "BINPUT", "LONG_BINPUT"):
                memo[len(memo) if op.name == "MEMOIZE" else arg] = pushed[-1]
            elif op.name not in ("PROTO", "FRAME"):
                if op.name in ("GLOBAL", "INST"):
                    names.append(Ref(*str(arg).split(" ", 1)))
                elif op.name == "STACK_GLOBAL":
                    ok = all(isinstance(s, str) for s in pushed)
                    names.append(Ref(*pushed) if ok else Ref("<computed>", "?"))
                value = arg if op.name in _STRINGS else memo.get(arg) if op.name.endswith("GET") else None
                pushed = [pushed[-1], value]
    except Exception as e:  # noqa: BLE001 - pickletools raises ValueError, EOFError, ... on a damaged pickle
        raise ValueError(f"not a readable pickle ({one_line(e, 120)})") from None
    return names, ops


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
    zip format within the limits, the policy's checked to be finite tensors."""
    for info in (i for i in arc.zf.infolist() if i.filename.endswith(".pth")):
        blob = arc.read(info.filename, limits.max_entry_bytes)
        try:
            inner = zipfile.ZipFile(io.BytesIO(blob)).infolist()
        except Exception as e:  # noqa: BLE001 - a legacy pickle, garbage, a truncated file
            raise ValueError(f"{arc.source}: {info.filename} is not in torch's zip format ({one_line(e, 80)})") \
                from None
        if len(inner) > limits.max_torch_entries or sum(i.file_size for i in inner) > limits.max_total_bytes:
            raise ValueError(f"{arc.source}: {info.filename} declares more records or bytes than the limits allow")
    try:
        _, params, _ = load_from_zip_file(io.BytesIO(arc.blob), load_data=False, device="cpu")
    except Exception as e:  # noqa: BLE001 - torch raises UnpicklingError, RuntimeError, ...: all mean "refused"
        raise ValueError(f"{arc.source}: its weights were rejected by torch's weights-only loader: "
                         f"{torch_load_reason(e)}") from None
    sd = params.get("policy")
    if sd is None:
        raise ValueError(f"{arc.source} has no 'policy.pth' entry: not a stable-baselines3 model zip")
    if not isinstance(sd, Mapping) or not all(isinstance(k, str) and isinstance(v, th.Tensor) for k, v in sd.items()):
        raise ValueError(f"{arc.source}: policy.pth is not a state dict (names to tensors)")
    check_weights(sd, f"{arc.source}: policy.pth")
    return params


def _pickle(data: dict[str, Any], key: str, source: str, limits: ZipLimits) -> tuple[list[Ref], set[str]]:
    try:
        return pickle_names(base64.b64decode(data[key][":serialized:"], validate=True), limits.max_pickle_ops)
    except (TypeError, ValueError, binascii.Error) as e:
        raise ValueError(f"{source}: data[{key!r}] is not a base64 pickle SB3 wrote: {one_line(e)}") from None


def _serialized(data: dict[str, Any], key: str) -> bool:
    return isinstance(data.get(key), dict) and ":serialized:" in data[key]


def _policy_kwargs(data: dict[str, Any], source: str, limits: ZipLimits) -> dict[str, Any]:
    """``policy_kwargs`` from its readable fields; a class there counts only if the pickle beside it names it."""
    entry = data.get("policy_kwargs") or {}
    if not isinstance(entry, dict):
        raise ValueError(f"{source}: policy_kwargs is not a dict ({short_repr.repr(entry)})")
    if not _serialized(data, "policy_kwargs"):
        return dict(entry)
    named, _ = _pickle(data, "policy_kwargs", source, limits)
    classes = {**ACTIVATIONS, **OPTIMIZERS, **FEATURE_EXTRACTORS}
    for ref in (r for r in named if r not in classes):
        raise ValueError(f"{source}: policy_kwargs names {ref}: not an accepted activation, optimizer or features "
                         f"extractor; accepted: {', '.join(sorted(map(str, classes)))}")
    kwargs = {k: v for k, v in entry.items() if k not in (":type:", ":serialized:")}
    for k, v in kwargs.items():
        text = _CLASS_TEXT.fullmatch(v) if isinstance(v, str) else None
        kwargs[k] = Ref(*text.groups()) if text and Ref(*text.groups()) in named else v
    if set(named) != {v for v in kwargs.values() if isinstance(v, Ref)}:
        raise ValueError(f"{source}: the readable fields of policy_kwargs do not name the classes of its pickle "
                         f"({', '.join(map(str, named))})")
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
    resuming (``counters``), and each pickled ``data`` entry's global names (``serialized``)."""

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


def read_zip(path: str | Path, strict: bool = True, limits: ZipLimits = DEFAULT_LIMITS) -> ZipContents:
    """Read a model zip as data (see the module docstring); ``ValueError`` with what was found and accepted."""
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
    accepted = DATA_REFERENCES | set(POLICY_REGISTRY) | set(ACTIVATIONS) | set(OPTIMIZERS) | set(FEATURE_EXTRACTORS)
    serialized = {}
    for key in (k for k in data if _serialized(data, k)):
        try:
            names, ops = _pickle(data, key, source, limits)
        except ValueError:
            if strict:
                raise
            continue
        serialized[key] = tuple(dict.fromkeys(names))
        bad = [str(r) for r in serialized[key] if r not in accepted] + sorted(ops & _ODD)
        if strict and bad:
            raise ValueError(f"{source}: data[{key!r}] names {', '.join(bad)}, which stable-baselines3 does not write "
                             "in a model: the file may carry code that SB3's own loader would run (this reader runs "
                             "none of it). Pass strict=False to ignore entries this reader does not need")

    names, ops = _pickle(data, "policy_class", source, limits) if _serialized(data, "policy_class") else ([], set())
    ref = names[0] if len(names) == 1 and ops <= _NAMING else None
    if ref not in POLICY_REGISTRY:
        raise ValueError(f"{source}: policy_class is {ref or ', '.join(map(str, names)) or 'missing'}, not an accepted "
                         f"policy; accepted: {', '.join(map(str, POLICY_REGISTRY))}")
    spec = POLICY_REGISTRY[ref]
    kwargs = _policy_kwargs(data, source, limits)
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
    return ZipContents(info, params, data)


def inspect_sb3_zip(path: str | Path, *, strict: bool = True, limits: ZipLimits = DEFAULT_LIMITS) -> Sb3ZipInfo:
    """What an SB3 model zip holds (algorithm, policy, kwargs, spaces, counters, ``yacht_env_meta``), read as data.
    ``strict`` (default) refuses a file whose pickles name a global SB3 would not write, even in entries this reader
    does not use; ``strict=False`` skips those entries (never decoded)."""
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


def _zero_lr(_progress_remaining: float) -> float:
    return 0.0


def load_sb3_policy(path: str | Path, observation_space: spaces.Space, action_space: spaces.Space, *,
                    strict: bool = True, limits: ZipLimits = DEFAULT_LIMITS) -> tuple[BasePolicy, Sb3ZipInfo]:
    """``(policy, info)``: the model's policy rebuilt from our classes for the caller's spaces (which must be the
    recorded ones), on CPU, in eval mode, its weights loaded with ``strict=True``. The caller still checks
    ``info.yacht_env_meta`` (Yahtzee and Yahtzee with free Joker have the same spaces)."""
    info, params, _ = read_zip(path, strict, limits)
    check_spaces(info, observation_space, action_space)
    spec, sd = POLICY_REGISTRY[info.policy_class], params["policy"]
    arch = info.constructor_kwargs.get("net_arch") or []
    copies = 2 if spec.kind != "dqn" and spec.first_layer_from_obs and not spec.shared_trunk else 1
    first = int(math.prod(observation_space.shape)) if spec.first_layer_from_obs else 1
    wanted = sum(a * b for w in (arch.values() if isinstance(arch, dict) else [arch] * copies)
                 for a, b in zip([first, *w], w))
    if wanted > sum(t.numel() for t in sd.values()):  # refuse to build a huge network for a small file
        raise ValueError(f"{info.source}: policy_kwargs ask for at least {wanted:,} weights, policy.pth holds "
                         f"{sum(t.numel() for t in sd.values()):,}: the file does not describe its own network")
    extra = {"use_sde": False} if spec.kind == "actor_critic" else {}
    try:
        with th.random.fork_rng(devices=[]):  # building initialises weights: leave the caller's RNG stream alone
            policy = spec.load_class()(observation_space, action_space, _zero_lr, **extra, **info.constructor_kwargs)
        policy.load_state_dict(sd, strict=True)
    except (ValueError, KeyError, TypeError, RuntimeError) as e:
        raise ValueError(f"{info.source}: policy.pth does not fit a {spec.label} built from the file's policy_kwargs "
                         f"for these spaces: {one_line(e, 300)}") from None
    policy.set_training_mode(False)
    return policy, info
