"""A plain model-free MaskablePPO policy: a LayerNorm trunk over the observation, a keep head, a score head, a value.

The network maps the observation to logits over the one ``Discrete(32 + C)`` action space and to a value; the mask
is applied by MaskablePPO's distribution. It holds no dice model, no search and no solver value: everything it
knows about the dice comes from the rewards of the games it played.

- **trunk**: ``net_arch`` blocks ``Linear -> activation -> LayerNorm`` over the observation.
- **keep head** (actions 0..31, keep a subset of the sorted dice): ``keep_head: pattern`` is one linear logit per
  pattern. ``keep_head: multiset`` describes each pattern by the dice it keeps (per face, how many: a one-hot of
  0..5 per face, read from the observation's sorted dice) and scores it with a small network of the trunk's output
  and that description; "keep the three fives" then means the same whatever their positions among the sorted dice.
- **score head** (actions 32 + k): one linear logit per box.
- **value**: a linear value of the trunk's output, or (``vf_arch``) of a trunk of its own.
- **ignore_observation**: observation slices the network reads as zeros (ablations: the same recipe without a
  feature).
- **entropy per decision type**: :meth:`ModelFreePolicy.set_entropy_weights` weights the entropy of each row by
  whether it is a keep decision (a roll left: keep or score) or a score decision (no roll left);
  ``yacht_training.sb3_ppo`` sets the weights from the config's schedules before each update.
"""

from __future__ import annotations

import contextlib
from typing import Any

import numpy as np
import torch as th
from gymnasium import spaces
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from torch import nn

from yacht_agents.nets import MAX_WIDTH
from yacht_agents.sb3_policies import _COMMON_KWARGS, PolicySpec, _int_list, _optimizer_kwargs, _str, register_policy
from yacht_env import dice as D
from yacht_env import multiplayer as MP
from yacht_env import observation as O
from yacht_env.actions import NUM_KEEP_ACTIONS
from yacht_env.rules import RuleSet, get_rules

KEEP_HEADS = ("pattern", "multiset")
"""Keep-head parameterisations (see the module docstring)."""


def _trunk(width: int, arch: list[int], act: type[nn.Module]) -> tuple[nn.Sequential, int]:
    layers: list[nn.Module] = []
    for w in arch:
        layers += [nn.Linear(width, w), act(), nn.LayerNorm(w)]
        width = w
    return nn.Sequential(*layers), width


class ModelFreeNet(nn.Module):
    """Observation in, ``(logits (B, 32 + C), value (B, 1))`` out (SB3's ``mlp_extractor`` slot)."""

    def __init__(self, rules: str | RuleSet, net_arch: list[int], activation_fn: type[nn.Module],
                 keep_head: str = "pattern", keep_hidden: int = 64, vf_arch: list[int] | None = None,
                 ignore_observation: list[str] | None = None, players: int = 1) -> None:
        super().__init__()
        rs = get_rules(rules)
        if keep_head not in KEEP_HEADS:
            raise ValueError(f"keep_head: {keep_head!r}; accepted: {', '.join(KEEP_HEADS)}")
        self.rules = rs
        self.keep_head = keep_head
        lay = O.layout(rs)
        self.onehot = lay["dice_onehot"]
        self.rolls = lay["rolls_left"]
        n_in = observation_width(rs, players)  # heads-up: the multiplayer observation, the player's own first
        if ignore_observation and players != 1:
            raise ValueError("ignore_observation applies to the one-player observation only")
        visible = O.visible_columns(rs, ignore_observation) if ignore_observation else None
        self.register_buffer("visible", None if visible is None else th.as_tensor(visible), persistent=False)
        self.trunk, width = _trunk(n_in, list(net_arch), activation_fn)
        c = rs.num_categories
        self.latent_dim_pi = NUM_KEEP_ACTIONS + c
        self.latent_dim_vf = 1
        self.score = nn.Linear(width, c)
        if keep_head == "pattern":
            self.keep = nn.Linear(width, NUM_KEEP_ACTIONS)
        else:
            self.keep_state = nn.Linear(width, keep_hidden)
            self.keep_dice = nn.Linear(D.NUM_FACES * (D.NUM_DICE + 1), keep_hidden)
            self.keep_free = nn.Parameter(th.zeros(D.NUM_KEEPS, keep_hidden))  # each multiset's own part
            nn.init.orthogonal_(self.keep_state.weight, gain=0.01)
            nn.init.zeros_(self.keep_state.bias)
            # what each pattern keeps: the kept multiset of (hand, pattern), described per face by a one-hot of the
            # number of dice kept (the action's meaning, read off the sorted dice; no probabilities)
            desc = np.eye(D.NUM_DICE + 1, dtype=np.float32)[D.KEEPS_COUNTS].reshape(D.NUM_KEEPS, -1)
            self.register_buffer("keep_desc", th.as_tensor(desc), persistent=False)  # (462, 36)
            self.register_buffer("pattern_keep", th.as_tensor(np.array(D.PATTERN_KEEP), dtype=th.long),
                                 persistent=False)
            self.register_buffer("key_to_hand", th.as_tensor(np.array(D.KEY_TO_HAND), dtype=th.long), persistent=False)
            self.register_buffer("count_pow", th.as_tensor((D.NUM_DICE + 1) ** np.arange(D.NUM_FACES),
                                                           dtype=th.long), persistent=False)
            self.counts = lay["dice_counts"]
        self.vf_trunk: nn.Module | None = None
        if vf_arch:
            self.vf_trunk, vw = _trunk(n_in, list(vf_arch), activation_fn)
        else:
            vw = width
        self.value = nn.Linear(vw, 1)
        for head in (self.score, getattr(self, "keep", None)):
            if head is not None:  # near-uniform first policy, as SB3 initialises its action net
                nn.init.orthogonal_(head.weight, gain=0.01)
                nn.init.zeros_(head.bias)

    def keep_logits(self, obs: th.Tensor, z: th.Tensor) -> th.Tensor:
        """(B, 32) logits of the keep patterns."""
        if self.keep_head == "pattern":
            return self.keep(z)
        counts = th.round(obs[:, self.counts] * D.NUM_DICE).long()
        hand = self.key_to_hand[(counts * self.count_pow).sum(1)]
        keeps = self.keep_dice(self.keep_desc) + self.keep_free  # (462, H): every kept multiset, once per batch
        every = self.keep_state(z) @ keeps.T  # (B, 462): the logit of every multiset, one product
        return every.gather(1, self.pattern_keep[hand])  # (B, 32): those this hand's patterns keep

    def _seen(self, obs: th.Tensor) -> th.Tensor:
        return obs if self.visible is None else obs * self.visible

    autocast_bfloat16 = False
    """Run the forward pass under bfloat16 autocast on the CPU (``ppo.autocast``, set by
    :func:`yacht_training.sb3_ppo.build_model`, never saved); the outputs stay fp32. Autocast around the backward
    pass too learned far worse (28% of optimal at 1M steps of Yatzy against 78%)."""

    def _precision(self) -> Any:
        # not autocast(enabled=False) when off: that would switch off a caller's own autocast around the network
        return th.autocast("cpu", dtype=th.bfloat16) if self.autocast_bfloat16 else contextlib.nullcontext()

    def forward(self, obs: th.Tensor) -> tuple[th.Tensor, th.Tensor]:
        with self._precision():
            obs = self._seen(obs)
            z = self.trunk(obs)
            logits = th.cat([self.keep_logits(obs, z), self.score(z)], 1)
            v = self.value(z if self.vf_trunk is None else self.vf_trunk(obs))
        return logits.float(), v.float()  # fp32 out, also when the network ran under bfloat16 autocast

    def forward_actor(self, obs: th.Tensor) -> th.Tensor:
        with self._precision():
            obs = self._seen(obs)
            z = self.trunk(obs)
            logits = th.cat([self.keep_logits(obs, z), self.score(z)], 1)
        return logits.float()

    def forward_critic(self, obs: th.Tensor) -> th.Tensor:
        with self._precision():
            obs = self._seen(obs)
            v = self.value(self.trunk(obs) if self.vf_trunk is None else self.vf_trunk(obs))
        return v.float()

    def keep_decision(self, obs: th.Tensor) -> th.Tensor:
        """(B,) bool: rows with a roll left (keep or score), against rows that must score."""
        return obs[:, self.rolls.start] < 0.5


class ModelFreePolicy(MaskableActorCriticPolicy):
    """MaskablePPO policy whose network is :class:`ModelFreeNet` (``rules``, ``keep_head``, ``keep_hidden``,
    ``vf_arch``, ``ignore_observation`` as there; ``net_arch`` is the trunk's widths)."""

    def __init__(self, observation_space: spaces.Space, action_space: spaces.Space, lr_schedule: Any,
                 rules: str = "yacht", keep_head: str = "pattern", keep_hidden: int = 64,
                 vf_arch: list[int] | None = None, ignore_observation: list[str] | None = None,
                 net_arch: list[int] | None = None, activation_fn: type[nn.Module] = nn.SiLU, players: int = 1,
                 **kwargs: Any) -> None:
        self.rules_name = get_rules(rules).name
        self.keep_head = keep_head
        self.keep_hidden = int(keep_hidden)
        self.vf_arch = list(vf_arch or [])
        self.ignore_observation = list(ignore_observation or [])
        self.players = int(players)
        kwargs["ortho_init"] = False
        want = observation_width(get_rules(rules), self.players)
        if observation_space.shape != (want,):
            raise ValueError(f"ModelFreePolicy for rules {self.rules_name!r} needs observations of shape ({want},), "
                             f"got {observation_space.shape}")
        self.entropy_weights: tuple[float, float] | None = None
        super().__init__(observation_space, action_space, lr_schedule, net_arch=list(net_arch or [256, 256]),
                         activation_fn=activation_fn, **kwargs)

    def _build_mlp_extractor(self) -> None:
        self.mlp_extractor = ModelFreeNet(self.rules_name, list(self.net_arch), self.activation_fn, self.keep_head,
                                          self.keep_hidden, self.vf_arch, self.ignore_observation, self.players)

    def _build(self, lr_schedule: Any) -> None:
        super()._build(lr_schedule)
        self.action_net = nn.Identity()  # the network's outputs are the logits and the value themselves
        self.value_net = nn.Identity()
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)

    def set_entropy_weights(self, keep: float, score: float) -> None:
        """Weight the entropy :meth:`evaluate_actions` returns: ``keep`` on rows with a roll left, ``score`` on the
        others (the algorithm then runs with ``ent_coef`` 1)."""
        self.entropy_weights = (float(keep), float(score))

    def evaluate_actions(self, obs: th.Tensor, actions: th.Tensor, action_masks: th.Tensor | None = None
                         ) -> tuple[th.Tensor, th.Tensor, th.Tensor | None]:
        values, log_prob, entropy = super().evaluate_actions(obs, actions, action_masks)
        if self.entropy_weights is not None and entropy is not None:
            keep, score = self.entropy_weights
            w = th.where(self.mlp_extractor.keep_decision(obs), keep, score).to(entropy.dtype)
            entropy = entropy * w
        return values, log_prob, entropy

    def _get_constructor_parameters(self) -> dict[str, Any]:
        data = super()._get_constructor_parameters()
        data.update(rules=self.rules_name, keep_head=self.keep_head, keep_hidden=self.keep_hidden,
                    vf_arch=self.vf_arch)
        if self.ignore_observation:
            data.update(ignore_observation=self.ignore_observation)
        if self.players != 1:  # only then: one-player models keep the kwargs they always had
            data.update(players=self.players)
        data.pop("ortho_init", None)
        return data


def observation_width(rules: RuleSet, players: int) -> int:
    """Columns of the observation the policy reads: the one-player observation, or the table's of ``players``."""
    return O.size(rules) if players == 1 else MP.size(rules, players)


def _players(value: Any, key: str) -> int:
    if type(value) is not int or value not in (1, 2):
        raise ValueError(f"policy_kwargs[{key!r}] must be 1 or 2, got {value!r}")
    return value


def _keep_head(value: Any, key: str) -> str:
    v = _str(value, key)
    if v not in KEEP_HEADS:
        raise ValueError(f"policy_kwargs[{key!r}] is {v!r}; accepted: {', '.join(KEEP_HEADS)}")
    return v


def _str_list(value: Any, key: str) -> list[str]:
    if not isinstance(value, list) or len(value) > 64:
        raise ValueError(f"policy_kwargs[{key!r}] must be a list of observation slice names, got {value!r}")
    return [_str(v, f"{key}[{i}]") for i, v in enumerate(value)]


def _width(value: Any, key: str) -> int:
    if type(value) is not int or not 0 < value <= MAX_WIDTH:
        raise ValueError(f"policy_kwargs[{key!r}] must be an int in 1..{MAX_WIDTH} (MAX_WIDTH), got {value!r}")
    return value


MODEL_FREE_KWARGS = {"net_arch": _int_list, "activation_fn": _COMMON_KWARGS["activation_fn"],
                     "optimizer_class": _COMMON_KWARGS["optimizer_class"], "optimizer_kwargs": _optimizer_kwargs,
                     "rules": _str, "keep_head": _keep_head, "keep_hidden": _width, "vf_arch": _int_list,
                     "ignore_observation": _str_list, "players": _players}
_SPEC = PolicySpec("ModelFreePolicy", "maskable", lambda: ModelFreePolicy, MODEL_FREE_KWARGS, shared_trunk=True)
register_policy("yacht_agents.model_free", "ModelFreePolicy", _SPEC)

__all__ = ["KEEP_HEADS", "MODEL_FREE_KWARGS", "ModelFreeNet", "ModelFreePolicy"]
