"""evaluate() takes a policy in the shapes users write: a batch function, a function of one game, a torch module."""

from __future__ import annotations

import numpy as np
import pytest

from yacht_agents.base import CallableAgent
from yacht_tools.evaluation import evaluate


def _last_legal_batch(obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
    return np.array([np.flatnonzero(m)[-1] for m in masks])


def _last_legal_one(obs: np.ndarray, mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[-1])


def test_a_function_of_one_game_plays_as_its_batch_twin() -> None:
    one = evaluate(_last_legal_one, "yacht", episodes=100, seed=3, regret=False)
    batch = evaluate(_last_legal_batch, "yacht", episodes=100, seed=3, regret=False)
    assert one["mean"] == batch["mean"]
    agent = CallableAgent(_last_legal_one, "yacht")
    masks = np.zeros((3, 44), dtype=bool)
    masks[:, [5, 40]] = True
    assert agent.act_batch(np.zeros((3, 64), np.float32), masks).tolist() == [40, 40, 40]
    assert agent.one_game is True
    batch = CallableAgent(_last_legal_batch, "yacht")
    assert batch.act_batch(np.zeros((3, 64), np.float32), masks).tolist() == [40] * 3


def test_a_function_of_one_game_that_returns_junk_is_refused() -> None:
    def junk(obs: np.ndarray, mask: np.ndarray) -> int:
        junk.calls += 1
        return 3 if junk.calls == 1 else "x"  # type: ignore[return-value]

    junk.calls = 0  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="returned <U1 .* for one game"):
        CallableAgent(junk, "yacht").act_batch(np.zeros((2, 64), np.float32), np.ones((2, 44), bool))


def test_a_torch_module_plays_its_best_legal_action() -> None:
    torch = pytest.importorskip("torch")
    from yacht_agents.loader import as_agent
    from yacht_agents.module_agent import ModuleAgent

    class Prefers(torch.nn.Module):
        """Scores action k as k: the highest legal action wins; action 43 scores best but is masked below."""

        def forward(self, x):  # type: ignore[no-untyped-def]
            return torch.arange(44, dtype=torch.float32).expand(x.shape[0], 44)

    agent = as_agent(Prefers(), "yacht")
    assert isinstance(agent, ModuleAgent)
    masks = np.zeros((2, 44), dtype=bool)
    masks[0, [1, 7]] = True
    masks[1, [0, 33]] = True
    assert agent.act_batch(np.zeros((2, 64), np.float32), masks).tolist() == [7, 33]
    result = evaluate(torch.nn.Sequential(torch.nn.Linear(64, 44)), "yacht", episodes=50, seed=0, regret=False)
    assert result["episodes"] == 50 and result["mean"] > 0
    with pytest.raises(ValueError, match=r"returned \(2, 3\) for 2 games of 44 actions"):
        ModuleAgent(torch.nn.Linear(64, 3), "yacht").act_batch(np.zeros((2, 64), np.float32), masks)
