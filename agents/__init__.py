"""Agents for yacht-env (installed as ``yacht_agents``; the repository keeps them in ``agents/``).

Built-in agents: :class:`RandomAgent` (uniform over legal actions), :class:`GreedyAgent` (best expected score of the
current turn) and :class:`OptimalAgent` (the exact solver's best action); learned ones: the TD agents
(:mod:`.td`) and stable-baselines3 models (:mod:`.sb3_agent`). :func:`load_agent` makes one from a spec. The tools
that evaluate and compare them are in ``yacht_tools``.
"""

from __future__ import annotations

from yacht_agents.base import Agent, CallableAgent
from yacht_agents.greedy import GreedyAgent
from yacht_agents.loader import load_agent, register_agent
from yacht_agents.optimal import OptimalAgent
from yacht_agents.random_agent import RandomAgent

__all__ = ["Agent", "CallableAgent", "GreedyAgent", "OptimalAgent", "RandomAgent", "load_agent", "register_agent"]
