"""Agents for yacht-env and the tools to evaluate them.

Built-in agents: :class:`RandomAgent` (uniform over legal actions), :class:`GreedyAgent` (best expected score of the
current turn) and :class:`OptimalAgent` (the exact solver's best action). :func:`load_agent` makes one from a name;
:func:`evaluate` plays seeded games and compares them with optimal play.
"""

from __future__ import annotations

from agents.base import Agent
from agents.evaluation import evaluate, format_report, game_seed, plot_scores
from agents.greedy import GreedyAgent
from agents.loader import load_agent, register_agent, register_model_loader
from agents.optimal import OptimalAgent
from agents.random_agent import RandomAgent

__all__ = ["Agent", "GreedyAgent", "OptimalAgent", "RandomAgent", "evaluate", "format_report", "game_seed",
           "load_agent", "plot_scores", "register_agent", "register_model_loader"]
