"""Learned policies from stable-baselines3 / sb3-contrib as agents.

A model saved by ``train.py`` carries ``yacht_env_meta`` (rules, observation layout, action count, unique_keeps)
inside its zip. :func:`load_ppo_agent` checks it against the rules asked for, so a model trained for other rules or
another observation layout fails to load with a clear message instead of playing nonsense.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from agents.base import Agent
from yacht_env import dice as D
from yacht_env import observation as O
from yacht_env.actions import KEEP_ALL, NUM_KEEP_ACTIONS, num_actions
from yacht_env.rules import RuleSet, get_rules
from yacht_env.state import GameState

META_KEY = "yacht_env_meta"
META_VERSION = 1


def model_meta(rules: str | RuleSet, unique_keeps: bool = True) -> dict[str, Any]:
    """The metadata a model needs to be used safely: what it was trained on."""
    rs = get_rules(rules)
    return {
        "version": META_VERSION,
        "rules": rs.name,
        "observation_layout": {k: [s.start, s.stop] for k, s in O.layout(rs).items()},
        "num_actions": num_actions(rs),
        "unique_keeps": bool(unique_keeps),
    }


def check_meta(meta: dict[str, Any] | None, rules: RuleSet, source: str) -> None:
    """Raise ``ValueError`` unless a model's metadata fits ``rules`` and this observation layout."""
    if not meta:
        raise ValueError(f"{source} has no {META_KEY}: it was not saved by train.py, so its rules and observation "
                         "layout are unknown")
    if meta.get("rules") != rules.name:
        raise ValueError(f"{source} was trained for rules {meta.get('rules')!r}, not {rules.name!r}")
    want = model_meta(rules)
    if meta.get("observation_layout") != want["observation_layout"] or meta.get("num_actions") != want[
            "num_actions"]:
        raise ValueError(f"{source} was trained with another observation layout or action space than this version "
                         f"of yacht-env ({meta.get('observation_layout')} vs {want['observation_layout']})")


def _canonical_patterns() -> np.ndarray:
    """(252, 32): for each hand and keep pattern, the smallest pattern keeping the same dice."""
    out = np.zeros((D.NUM_HANDS, D.NUM_PATTERNS), dtype=np.int64)
    for h in range(D.NUM_HANDS):
        first: dict[int, int] = {}
        for p in range(D.NUM_PATTERNS):
            out[h, p] = first.setdefault(int(D.PATTERN_KEEP[h, p]), p)
    return out


_CANONICAL = _canonical_patterns()
_COUNT_POW = 6 ** np.arange(D.NUM_FACES)


class PPOAgent(Agent):
    """A (Maskable)PPO policy: acts on observations and masks, deterministically by default, batched.

    A model trained with every keep pattern legal (``unique_keeps=False``) still plays under the default mask of
    one pattern per kept multiset: it chooses among every pattern, and its choice is mapped to the pattern that
    the mask allows for the same dice.
    """

    batched = True

    def __init__(self, model: Any, rules: str | RuleSet, deterministic: bool = True, name: str = "ppo",
                 unique_keeps: bool = True) -> None:
        super().__init__(rules)
        self.model = model
        self.deterministic = deterministic
        self.name = name
        self.unique_keeps = unique_keeps
        self._counts = O.layout(self.rules)["dice_counts"]

    def act(self, obs: np.ndarray, mask: np.ndarray, state: GameState | None = None) -> int:
        return int(self.act_batch(obs[None], mask[None])[0])

    def act_batch(self, obs: np.ndarray, masks: np.ndarray, states: Sequence[GameState] | None = None
                  ) -> np.ndarray:
        obs = np.asarray(obs, dtype=np.float32)
        masks = np.asarray(masks, dtype=bool)
        if not self.unique_keeps:  # the model knows every pattern: offer them all, then map back
            masks = masks.copy()
            rolling = masks[:, :KEEP_ALL].any(axis=1)
            masks[rolling, :KEEP_ALL] = True
        actions, _ = self.model.predict(obs, action_masks=masks, deterministic=self.deterministic)
        actions = np.asarray(actions, dtype=np.int64).reshape(len(masks))
        if not self.unique_keeps:
            keep = actions < NUM_KEEP_ACTIONS
            hands = D.KEY_TO_HAND[np.rint(obs[keep, self._counts] * D.NUM_DICE).astype(np.int64) @ _COUNT_POW]
            actions[keep] = _CANONICAL[hands, actions[keep]]
        return actions


def load_ppo_agent(path: str | Path, rules: str | RuleSet, seed: int | None = None) -> PPOAgent:
    """Load a MaskablePPO model saved by ``train.py`` as an agent for ``rules``."""
    from sb3_contrib import MaskablePPO

    rs = get_rules(rules)
    path = Path(path)
    try:
        model = MaskablePPO.load(path, device="cpu")
    except Exception as e:  # noqa: BLE001 - any unreadable file gets the same clear message
        raise ValueError(f"cannot load {str(path)!r} as a MaskablePPO model: {e}") from None
    check_meta(getattr(model, META_KEY, None), rs, repr(str(path)))
    agent = PPOAgent(model, rs, name=path.stem, unique_keeps=bool(getattr(model, META_KEY)["unique_keeps"]))
    agent.seed(seed)  # the agent acts deterministically (the policy's most likely action): no global RNG to seed
    return agent
