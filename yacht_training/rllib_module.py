"""The RLlib module: a policy MLP whose logits are masked by the legal actions, and a separate value MLP.

A ``TorchRLModule`` of RLlib's new API stack, implementing the ``ValueFunctionAPI`` (``compute_values``, which PPO's
GAE and value loss call) and the ``InferenceOnlyAPI`` (env runners build and receive the policy network only).
The observation is RLlib's action-masking ``Dict`` (:mod:`yacht_training.rllib_env`): the networks read
``"observations"``; the logits of actions whose ``"action_mask"`` is 0 become the smallest float, so they are
never sampled, never the argmax, and carry no probability in PPO's ratio or entropy.

The two networks are :func:`yacht_agents.nets.mlp` MLPs (``model_config``: ``hidden``, ``activation``,
``ortho_init``), as SB3's ``MlpPolicy`` with ``net_arch=[...]`` builds them: separate policy and value networks,
orthogonal initialisation with gain sqrt(2) for hidden layers, 0.01 for the policy's output and 1 for the value's.
The policy's ``state_dict`` is exactly what the ray-free agent (:mod:`yacht_agents.rllib_agent`) loads.
"""

from __future__ import annotations

import math
from typing import Any

import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis import InferenceOnlyAPI, ValueFunctionAPI
from ray.rllib.core.rl_module.torch import TorchRLModule

from yacht_agents.nets import mlp


def mask_logits(logits: torch.Tensor, action_mask: torch.Tensor) -> torch.Tensor:
    """``logits`` with the entries where ``action_mask`` is 0 replaced by the smallest finite float (finite, so a
    row with no legal action, such as the terminal observation, still gives a valid distribution)."""
    return logits.masked_fill(action_mask < 0.5, torch.finfo(logits.dtype).min)


def orthogonal_init(net: torch.nn.Sequential, output_gain: float) -> None:
    """SB3's initialisation: orthogonal weights (gain sqrt(2) hidden, ``output_gain`` last layer), zero biases."""
    linears = [m for m in net if isinstance(m, torch.nn.Linear)]
    for i, layer in enumerate(linears):
        torch.nn.init.orthogonal_(layer.weight, gain=output_gain if i == len(linears) - 1 else math.sqrt(2))
        torch.nn.init.zeros_(layer.bias)


class MaskedMLPModule(TorchRLModule, ValueFunctionAPI, InferenceOnlyAPI):
    """Masked-logits policy MLP ``pi`` and value MLP ``vf`` (the latter only on the learner)."""

    def setup(self) -> None:
        """Build the networks for ``observation_space["observations"]`` and the ``Discrete`` action space."""
        cfg: dict[str, Any] = dict(self.model_config or {})
        obs_space = self.observation_space["observations"]
        in_dim = int(obs_space.shape[0])
        n = int(self.action_space.n)
        hidden = [int(w) for w in cfg.get("hidden", [256, 256])]
        activation = str(cfg.get("activation", "tanh"))
        self.pi = mlp(in_dim, hidden, activation, n)
        if cfg.get("ortho_init", True):
            orthogonal_init(self.pi, 0.01)
        if not self.inference_only:
            self.vf = mlp(in_dim, hidden, activation, 1)
            if cfg.get("ortho_init", True):
                orthogonal_init(self.vf, 1.0)

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        """Masked logits (``ACTION_DIST_INPUTS``) for every phase: exploration samples them, inference takes the
        argmax, training reads their log-probabilities."""
        obs = batch[Columns.OBS]
        logits = self.pi(obs["observations"])
        return {Columns.ACTION_DIST_INPUTS: mask_logits(logits, obs["action_mask"])}

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> torch.Tensor:
        """The value of each observation, shape (B,) (or (B, T))."""
        return self.vf(batch[Columns.OBS]["observations"]).squeeze(-1)

    def get_non_inference_attributes(self) -> list[str]:
        """The value network stays on the learner: env runners need only the policy."""
        return ["vf"]
