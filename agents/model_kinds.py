"""The kinds of model file the learners write, and how each loads as an agent: the agent-side half of the registry
of learners (the training-side half, :mod:`yacht_training.learners`, names a kind here for each learner's models).

:func:`yacht_agents.loader.load_model` reads a model file through this registry: the file's suffix picks the kinds
that write it, and where several kinds share a suffix (``.pt``: TD and RLlib PPO) the ``format`` their metadata
declares tells them apart. A new learner's models load as agents after one line: ``register_model_kind(...)``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from yacht_agents.base import Agent
from yacht_agents.rllib_agent import FORMAT as RLLIB_FORMAT
from yacht_agents.rllib_agent import load_rllib_agent
from yacht_agents.sb3_agent import load_sb3_agent
from yacht_agents.td_agent import FORMAT as TD_FORMAT
from yacht_agents.td_win import load_td_model
from yacht_env.rules import RuleSet

ModelLoader = Callable[[Path, RuleSet, "int | None"], Agent]
"""Reads a model file as an agent for a rule set, seeded (``ValueError`` naming the file if it does not fit)."""


@dataclass(frozen=True)
class ModelKind:
    """One kind of model file: ``name`` (what a learner's entry names), ``suffix`` (``.zip``, ``.pt``: lower case,
    with its dot), ``load`` (:data:`ModelLoader`), ``format`` (the ``meta["format"]`` a torch file of this kind
    declares, where kinds share the suffix; None: the suffix alone tells it) and ``needs`` (the packages loading
    needs, checked before, so that a missing one names the extra to install)."""

    name: str
    suffix: str
    load: ModelLoader
    format: str | None = None
    needs: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not (self.suffix.startswith(".") and self.suffix[1:].isalnum() and self.suffix == self.suffix.lower()):
            raise ValueError(f"model kind {self.name!r}: suffix must be a dot and lower-case letters or digits "
                             f"(.zip, .pt), got {self.suffix!r}")


MODEL_KINDS: dict[str, ModelKind] = {}
"""The registered kinds by name, in the order of registration (the first of a suffix is read when no format
matches: its loader says why the file does not load)."""


def register_model_kind(kind: ModelKind) -> ModelKind:
    """Make :func:`yacht_agents.loader.load_model` read ``kind``'s files; ``ValueError`` if its name is taken or
    another kind of its suffix declares no format (the two could not be told apart)."""
    if kind.name in MODEL_KINDS:
        raise ValueError(f"model kind {kind.name!r} is registered already")
    same = [k for k in MODEL_KINDS.values() if k.suffix == kind.suffix]
    if same and (kind.format is None or any(k.format in (None, kind.format) for k in same)):
        raise ValueError(f"model kind {kind.name!r}: {kind.suffix} files are read by "
                         f"{', '.join(k.name for k in same)} already; kinds of one suffix each declare a format of "
                         "their own")
    MODEL_KINDS[kind.name] = kind
    return kind


def unregister_model_kind(name: str) -> None:
    """Forget the kind ``name`` (a test's toy learner); nothing if it is not registered."""
    MODEL_KINDS.pop(name, None)


def model_suffixes() -> tuple[str, ...]:
    """The suffixes of model files, in the order of registration: ``(".zip", ".pt")`` and those registered since."""
    return tuple(dict.fromkeys(k.suffix for k in MODEL_KINDS.values()))


def kinds_of(suffix: str) -> list[ModelKind]:
    """The kinds that write files ending in ``suffix`` (any case), first registered first."""
    return [k for k in MODEL_KINDS.values() if k.suffix == suffix.lower()]


register_model_kind(ModelKind("sb3", ".zip", load_sb3_agent, needs=("torch", "stable_baselines3", "sb3_contrib")))
register_model_kind(ModelKind("td", ".pt", load_td_model, format=TD_FORMAT, needs=("torch",)))
register_model_kind(ModelKind("rllib_ppo", ".pt", load_rllib_agent, format=RLLIB_FORMAT, needs=("torch",)))
