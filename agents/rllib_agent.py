"""Policies trained with Ray RLlib's PPO (``train.py`` with ``algo: rllib_ppo``) as agents, without Ray.

A model file is our own format, never a pickle: ``torch.save`` of a dict with only tensors and plain containers,
read back with ``torch.load(..., weights_only=True)``::

    {"meta": {"format": "yacht-env-rllib-ppo", "format_version": 1, "rules": ..., "observation_layout": ...,
              "num_actions": ..., "unique_keeps": ..., "hidden": [...], "activation": ...},
     "state_dict": {"0.weight": tensor, "0.bias": tensor, ...},      # the policy MLP of yacht_agents.nets.mlp
     "info": {...}}                                                   # optional: timesteps, evaluation

The policy network is the one the RLlib module trains (``yacht_training.rllib_module`` builds it with
:func:`yacht_agents.nets.mlp`): an MLP from the flat observation of :mod:`yacht_env.observation` to one logit per
action. The agent plays the most likely legal action (deterministic), for many games at once.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from yacht_agents.nets import check_activation, check_declared_mlp, check_weights, mlp, one_line, read_model_file
from yacht_agents.sb3_agent import SB3Agent, check_meta, model_meta
from yacht_env.files import write_atomic
from yacht_env.observation import LAYOUT_VERSION
from yacht_env.rules import RuleSet, get_rules

if TYPE_CHECKING:
    import torch

FORMAT = "yacht-env-rllib-ppo"
FORMAT_VERSION = 1


def policy_meta(rules: str | RuleSet, unique_keeps: bool, hidden: Sequence[int], activation: str) -> dict[str, Any]:
    """The JSON-able metadata of a model file: what it was trained on (as :func:`yacht_agents.sb3_agent.model_meta`)
    and the network's shape."""
    meta = model_meta(rules, unique_keeps)
    meta.update(format=FORMAT, format_version=FORMAT_VERSION, hidden=[int(w) for w in hidden],
                activation=check_activation(str(activation), "rllib.activation"))
    return meta


def save_policy(path: str | Path, state_dict: dict[str, Any], meta: dict[str, Any],
                info: dict[str, Any] | None = None) -> None:
    """Write a model file (atomically): the policy MLP's ``state_dict`` (tensors or arrays), ``meta``
    (:func:`policy_meta`) and optional JSON-able ``info``."""
    import torch

    sd = {k: (v if isinstance(v, torch.Tensor) else torch.from_numpy(np.asarray(v))).detach().cpu().clone()
          for k, v in state_dict.items()}
    data: dict[str, Any] = {"meta": json.loads(json.dumps(meta)), "state_dict": sd}
    if info:
        data["info"] = json.loads(json.dumps(info))
    write_atomic(path, lambda f: torch.save(data, f))


def load_policy(path: str | Path, rules: str | RuleSet) -> tuple[torch.nn.Sequential, dict[str, Any]]:
    """The policy network and metadata of a model file for ``rules``; ``ValueError`` if the file is not one of ours
    or was made for other rules, another observation layout or another format version."""
    rs = get_rules(rules)
    src = repr(str(path))
    data, meta = read_model_file(path, FORMAT, "an RLlib PPO model", "train.py")
    if meta.get("format_version") != FORMAT_VERSION:
        raise ValueError(f"{src} has format version {meta.get('format_version')!r}; this version of yacht-env reads "
                         f"version {FORMAT_VERSION}: retrain it")
    meta["obs_layout"] = check_meta(meta, rs, src)  # 1 where a file saved before layout 2 does not say
    check_weights(data.get("state_dict"), src)
    try:  # the sizes the file declares, checked against the weights it holds before anything is built
        obs_dim = max(int(stop) for _, stop in meta["observation_layout"].values())
        hidden = check_declared_mlp(data["state_dict"], obs_dim, meta.get("hidden"), meta["num_actions"], src)
        net = mlp(obs_dim, hidden, check_activation(meta.get("activation"), "activation"), meta["num_actions"])
        net.load_state_dict(data["state_dict"])
    except ValueError as e:
        raise ValueError(f"{src}: {str(e).removeprefix(src + ': ')}") from None
    except (RuntimeError, KeyError, TypeError) as e:
        raise ValueError(f"{src}: the network weights do not fit its metadata: {one_line(e, 300)}") from None
    net.eval()
    return net, meta


class RLlibAgent(SB3Agent):
    """A masked-argmax policy over a torch MLP (the policy network of RLlib's module): deterministic, batched;
    the keep-pattern mapping of :class:`~yacht_agents.sb3_agent.SB3Agent` for models trained on every pattern."""

    def choose(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        import torch

        with torch.no_grad():
            logits = self.policy(torch.as_tensor(np.asarray(obs, dtype=np.float32)))
            logits = logits.masked_fill(~torch.as_tensor(np.asarray(masks, dtype=bool)), float("-inf"))
            return logits.argmax(dim=1).numpy().astype(np.int64)


def policy_agent(net: torch.nn.Module, rules: str | RuleSet, unique_keeps: bool = True, name: str = "rllib_ppo",
                 seed: int | None = None, obs_layout: int = LAYOUT_VERSION) -> RLlibAgent:
    """A batched, deterministic agent playing the masked argmax of a policy network (fed the first columns of each
    observation where it was trained on an older layout version ``obs_layout``)."""
    agent = RLlibAgent(net, get_rules(rules), name=name, unique_keeps=unique_keeps, obs_layout=obs_layout)
    agent.seed(seed)  # deterministic: nothing is drawn, but the protocol seeds every agent
    return agent


def load_rllib_agent(path: str | Path, rules: str | RuleSet, seed: int | None = None) -> RLlibAgent:
    """A batched, deterministic agent from a model file written by ``train.py`` with ``algo: rllib_ppo``."""
    net, meta = load_policy(path, rules)
    return policy_agent(net, rules, bool(meta["unique_keeps"]), Path(path).stem, seed, meta["obs_layout"])
