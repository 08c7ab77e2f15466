"""A torch ``nn.Module`` as an agent: the network of a user's own training loop, evaluated as it is.

The module maps a batch of observations, a float32 tensor (N, D) on the module's device, to a score per action
(N, A): logits, action values, anything where higher means better. The agent plays each game's legal action of the
highest score, deterministically (the mask is applied before the argmax, so the network need not know it). The
module is run in ``torch.no_grad()`` and left in the mode it is in (call ``module.eval()`` first for dropout or
batch-norm networks).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch

from yacht_agents.base import Agent
from yacht_env.rules import RuleSet
from yacht_env.state import GameState

MODULE_CONTRACT = ("a torch module is called on observations, a float32 tensor (N, D), and returns one score per "
                   "action, a tensor (N, A); the agent plays the legal action of the highest score")
"""What a module must take and return, for the messages that refuse one."""


class ModuleAgent(Agent):
    """Plays the legal action with the highest score of a torch module (see the module docstring)."""

    batched = True

    def __init__(self, module: torch.nn.Module, rules: str | RuleSet = "yacht", name: str | None = None) -> None:
        super().__init__(rules)
        self.module = module
        self.name = name or type(module).__name__
        first = next(module.parameters(), None)
        self.device = first.device if first is not None else torch.device("cpu")

    def act(self, obs: np.ndarray, mask: np.ndarray, state: GameState | None = None) -> int:
        return int(self.act_batch(np.asarray(obs)[None], np.asarray(mask)[None])[0])

    def act_batch(self, obs: np.ndarray, masks: np.ndarray, states: Sequence[GameState] | None = None
                  ) -> np.ndarray:
        masks = np.asarray(masks, dtype=np.bool_)
        with torch.no_grad():
            out = self.module(torch.as_tensor(np.asarray(obs, dtype=np.float32), device=self.device))
        if not isinstance(out, torch.Tensor) or tuple(out.shape) != masks.shape:
            got = tuple(out.shape) if isinstance(out, torch.Tensor) else type(out).__name__
            raise ValueError(f"module {self.name!r} returned {got} for {len(masks)} games of {masks.shape[1]} "
                             f"actions: {MODULE_CONTRACT}")
        scores = out.detach().to("cpu", torch.float64).numpy()
        if np.isnan(scores[masks]).any():
            raise ValueError(f"module {self.name!r} gave a legal action a NaN score: {MODULE_CONTRACT}")
        return np.where(masks, scores, -np.inf).argmax(axis=1).astype(np.int64)
