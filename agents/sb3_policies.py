"""The policy classes an SB3 model file may name, and the ``policy_kwargs`` each accepts (the reader's whitelist).

A file names classes only as text; :mod:`yacht_agents.sb3_zip` maps the names through these mappings to classes of our
code and the installed libraries, and checks each keyword argument with its converter before a policy is built.
"""

from __future__ import annotations

import math
import reprlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

import torch as th
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.policies import ActorCriticPolicy, BasePolicy
from stable_baselines3.common.torch_layers import FlattenExtractor
from stable_baselines3.dqn.policies import DQNPolicy
from torch import nn

from yacht_agents.nets import MAX_LAYERS, MAX_WIDTH

short_repr = reprlib.Repr()
short_repr.maxstring = short_repr.maxother = 80


class Ref(NamedTuple):
    """A class a file names, ``(module, name)``: a name, never imported."""

    module: str
    name: str

    def __str__(self) -> str:
        return f"{self.module}.{self.name}"


def _table(*classes: type) -> dict[Ref, type]:
    return {Ref(c.__module__, c.__qualname__): c for c in classes}


ACTIVATIONS = _table(nn.Tanh, nn.ReLU, nn.ELU, nn.GELU, nn.SiLU, nn.LeakyReLU)
OPTIMIZERS = _table(th.optim.Adam, th.optim.AdamW, th.optim.RMSprop, th.optim.SGD)  # A2C records RMSprop
FEATURE_EXTRACTORS = _table(FlattenExtractor)


Converter = Callable[[Any, str], Any]


def _check(ok: Callable[[Any], bool], want: str, convert: Callable[[Any], Any] = lambda v: v) -> Converter:
    """A converter of one ``policy_kwargs`` value: ``convert(value)`` if ``ok(value)``, else ``ValueError``."""
    def run(value: Any, key: str) -> Any:
        if not ok(value):
            raise ValueError(f"policy_kwargs[{key!r}] must be {want}, got {short_repr.repr(value)}")
        return convert(value)
    return run


def _widths(v: Any) -> bool:
    return isinstance(v, list) and len(v) <= MAX_LAYERS and all(type(x) is int and 0 < x <= MAX_WIDTH for x in v)


def _numbers(v: Any) -> bool:
    return type(v) in (bool, int, float) or isinstance(v, list) and len(v) <= 4 and all(type(x) in (int, float)
                                                                                          for x in v)


_WIDTHS = f"a list of at most {MAX_LAYERS} layer widths (ints in 1..{MAX_WIDTH}: MAX_LAYERS, MAX_WIDTH)"
_int_list = _check(lambda v: v is None or _widths(v), _WIDTHS)
_ac_net_arch = _check(lambda v: v is None or _widths(v) or isinstance(v, dict) and v.keys() <= {"pi", "vf"} and all(
    map(_widths, v.values())), f"{_WIDTHS}, or a dict of such lists under 'pi' and 'vf'")
_bool = _check(lambda v: type(v) is bool, "True or False")
_float = _check(lambda v: type(v) in (int, float) and math.isfinite(v), "a finite number", float)
_str = _check(lambda v: type(v) is str and len(v) <= 200, "a short string")
_OPTIMIZER_KEYS = {"eps", "alpha", "weight_decay", "betas", "momentum", "centered", "amsgrad", "nesterov",
                   "dampening", "maximize"}
_optimizer_kwargs = _check(
    lambda v: v is None or isinstance(v, dict) and v.keys() <= _OPTIMIZER_KEYS and all(map(_numbers, v.values())),
    f"a dict of {sorted(_OPTIMIZER_KEYS)} to numbers, bools or lists of numbers",
    lambda v: v and {k: tuple(x) if isinstance(x, list) else x for k, x in v.items()})


def _lookup(known: Mapping[Ref, type], what: str) -> Converter:
    def convert(value: Any, key: str) -> type:
        if isinstance(value, Ref) and value in known:
            return known[value]
        raise ValueError(f"policy_kwargs[{key!r}] is {short_repr.repr(value)}: not an accepted {what}; accepted: "
                         f"{', '.join(sorted(map(str, known)))}")
    return convert


_COMMON_KWARGS: dict[str, Converter] = {
    "activation_fn": _lookup(ACTIVATIONS, "activation"), "optimizer_class": _lookup(OPTIMIZERS, "optimizer"),
    "optimizer_kwargs": _optimizer_kwargs, "normalize_images": _bool,
    "features_extractor_kwargs": _check(lambda v: v in (None, {}), "empty"),
    "features_extractor_class": _lookup(FEATURE_EXTRACTORS, "features extractor")}
ACTOR_CRITIC_KWARGS = {**_COMMON_KWARGS, "net_arch": _ac_net_arch, "ortho_init": _bool,
                       "share_features_extractor": _bool}
DQN_KWARGS = {**_COMMON_KWARGS, "net_arch": _int_list}
TURN_EXPECTIMAX_KWARGS = {**{k: _COMMON_KWARGS[k] for k in ("activation_fn", "optimizer_class", "optimizer_kwargs")},
                          "net_arch": _int_list, "ortho_init": _bool, "rules": _str, "reward_scale": _float,
                          "inverse_temperature": _float, "box_prior": _float}
KINDS = ("actor_critic", "maskable", "dqn")


@dataclass(frozen=True)
class PolicySpec:
    """A policy class a model file may name: ``label`` (for messages), ``kind`` (one of :data:`KINDS`),
    ``load_class`` (returns our class), ``kwargs`` (each accepted ``policy_kwargs`` key with a converter that raises
    ``ValueError``); ``first_layer_from_obs`` and ``shared_trunk`` size the network for the reader's size guard."""

    label: str
    kind: str
    load_class: Callable[[], type[BasePolicy]]
    kwargs: Mapping[str, Converter]
    first_layer_from_obs: bool = True
    shared_trunk: bool = False


POLICY_REGISTRY: dict[Ref, PolicySpec] = {
    Ref("stable_baselines3.common.policies", "ActorCriticPolicy"): PolicySpec(
        "ActorCriticPolicy", "actor_critic", lambda: ActorCriticPolicy, ACTOR_CRITIC_KWARGS),
    Ref("sb3_contrib.common.maskable.policies", "MaskableActorCriticPolicy"): PolicySpec(
        "MaskableActorCriticPolicy", "maskable", lambda: MaskableActorCriticPolicy, ACTOR_CRITIC_KWARGS),
    Ref("stable_baselines3.dqn.policies", "DQNPolicy"): PolicySpec("DQNPolicy", "dqn", lambda: DQNPolicy, DQN_KWARGS)}
"""The policy classes a file may name; our own register themselves (:mod:`yacht_agents.turn_policy`)."""


def register_policy(module: str, name: str, spec: PolicySpec) -> None:
    """Accept model files whose ``policy_class`` is ``module.name``, built as ``spec`` says."""
    if spec.kind not in KINDS:
        raise ValueError(f"PolicySpec.kind must be one of {KINDS}, got {spec.kind!r}")
    POLICY_REGISTRY[Ref(module, name)] = spec
