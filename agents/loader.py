"""Make an agent from a short spec: a built-in name, or (later) a saved model.

``load_agent(spec, rules, seed)`` is what the command line tools call. A spec is one of

- a name in :data:`AGENT_FACTORIES` (``random``, ``greedy``, ``optimal``);
- a path to a saved model, a file ending in one of :data:`MODEL_SUFFIXES` (``.zip`` for stable-baselines3,
  ``.pt`` for torch);
- the name of a model shipped in ``agents/models/`` (``NAME.zip`` / ``NAME.pt``).

Extension points: :func:`register_agent` adds a named factory, :func:`register_model_loader` adds a loader for a
model file suffix. Until a learning module registers a loader, model specs fail with a clear ``ValueError``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from agents.base import Agent
from agents.greedy import GreedyAgent
from agents.optimal import OptimalAgent
from agents.random_agent import RandomAgent
from yacht_env.rules import RuleSet, get_rules

AgentFactory = Callable[[RuleSet, int | None], Agent]
"""Builds an agent for a rule set, seeded with the given seed (None: fresh entropy)."""
ModelLoader = Callable[[Path, RuleSet, int | None], Agent]
"""Builds an agent from a saved model file for a rule set; raises ``ValueError`` if the model does not fit."""

AGENT_FACTORIES: dict[str, AgentFactory] = {
    "random": lambda rules, seed: RandomAgent(rules, seed=seed),
    "greedy": lambda rules, seed: GreedyAgent(rules, seed=seed),
    "optimal": lambda rules, seed: OptimalAgent(rules, seed=seed),
}

MODEL_SUFFIXES: tuple[str, ...] = (".zip", ".pt")


def _load_sb3_zip(path: Path, rules: RuleSet, seed: int | None) -> Agent:
    from agents.ppo import load_ppo_agent  # imports torch: only when a model is asked for

    return load_ppo_agent(path, rules, seed)


MODEL_LOADERS: dict[str, ModelLoader] = {".zip": _load_sb3_zip}
"""Suffix (``.zip`` / ``.pt``) -> loader. ``.zip``: a MaskablePPO model saved by ``train.py``."""

SHIPPED_MODELS_DIR = Path(__file__).resolve().parent / "models"


def register_agent(name: str, factory: AgentFactory) -> None:
    """Make ``load_agent(name, ...)`` build an agent with ``factory(rules, seed)``."""
    AGENT_FACTORIES[name.lower()] = factory


def register_model_loader(suffix: str, loader: ModelLoader) -> None:
    """Make ``load_agent`` load model files ending in ``suffix`` (one of :data:`MODEL_SUFFIXES`) with ``loader``."""
    if suffix not in MODEL_SUFFIXES:
        raise ValueError(f"model suffix must be one of {', '.join(MODEL_SUFFIXES)}, got {suffix!r}")
    MODEL_LOADERS[suffix] = loader


def shipped_models() -> list[str]:
    """Names of the models shipped in ``agents/models/``."""
    if not SHIPPED_MODELS_DIR.is_dir():
        return []
    return sorted({p.stem for p in SHIPPED_MODELS_DIR.iterdir() if p.suffix in MODEL_SUFFIXES})


def accepted_specs() -> str:
    """A readable list of what :func:`load_agent` accepts, for error messages and ``--help``."""
    names = list(AGENT_FACTORIES) + shipped_models()
    return f"{', '.join(names)}, or a saved model file ({' / '.join(MODEL_SUFFIXES)})"


def _load_model(path: Path, rules: RuleSet, seed: int | None) -> Agent:
    if not path.is_file():
        raise ValueError(f"model file not found: {str(path)!r}")
    loader = MODEL_LOADERS.get(path.suffix.lower())
    if loader is None:
        raise ValueError(f"loading saved models ({path.suffix.lower()}) is not available yet: cannot load "
                         f"{str(path)!r}; built-in agents: {', '.join(AGENT_FACTORIES)}")
    return loader(path, rules, seed)


def load_agent(spec: str, rules: str | RuleSet, seed: int | None = None) -> Agent:
    """The agent named by ``spec`` for ``rules``, seeded with ``seed``.

    Raises ``ValueError`` naming what is accepted for an unknown spec or rule set, and for a missing model file.
    """
    rs = get_rules(rules)
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"agent must be a non-empty string; accepted: {accepted_specs()}")
    spec = spec.strip()
    factory = AGENT_FACTORIES.get(spec.lower())
    if factory is not None:
        return factory(rs, seed)
    if spec.lower().endswith(MODEL_SUFFIXES):
        return _load_model(Path(spec).expanduser(), rs, seed)
    for suffix in MODEL_SUFFIXES:  # a shipped model, named without its suffix
        shipped = SHIPPED_MODELS_DIR / f"{spec}{suffix}"
        if shipped.is_file():
            return _load_model(shipped, rs, seed)
    raise ValueError(f"unknown agent {spec!r}; accepted: {accepted_specs()}")


def _load_td_model(path: Path, rules: RuleSet, seed: int | None) -> Agent:
    """``.pt`` files are the TD learner's models (agents/td.py; imported on first use: it needs torch)."""
    from agents.td import load_td_agent

    return load_td_agent(path, rules, seed)


register_model_loader(".pt", _load_td_model)  # shipped: agents/models/td-yacht.pt, td-yahtzee.pt, td-yatzy.pt
