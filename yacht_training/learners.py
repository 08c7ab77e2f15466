"""The registry of learners, training side: for each ``algo`` of the config, its config section, its train
function, its checkpoint files and the kind of model it ships (the agent-side half,
:mod:`yacht_agents.model_kinds`, loads that kind as an agent).

The config (:mod:`yacht_training.config`: the ``algo`` choices, a section per learner, the learner's own checks),
the run folder (:mod:`yacht_training.run_folder`: the checkpoint files) and :func:`yacht_training.algorithms.train`
read it. A new learner is its own module or modules plus one line, ``register_learner(Learner(...))``, and one
``register_model_kind(...)`` where its model kind is new. The built-in learners are registered in
:mod:`yacht_training.algorithms`, which importing :mod:`yacht_training` imports.

This module imports nothing of training: the config reads it, and it learns of the config's changes through
:func:`on_register` (the config adds the section of each learner registered).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from yacht_agents.model_kinds import MODEL_KINDS

TrainFunction = Callable[..., int]
"""``train(cfg, run_dir, *, resume, progress, on_resumed, **options) -> exit status`` (0 done, 130 interrupted with
a checkpoint saved): trains ``cfg`` in the run folder ``run_dir`` (:mod:`yacht_training.run_folder`)."""


@dataclass(frozen=True)
class Learner:
    """One learner: ``name`` (the config's ``algo``), ``train`` (:data:`TrainFunction`), ``section`` (the config
    key of its settings) and ``settings`` (their schema: a dataclass whose every field has a default), ``checkpoint``
    (the suffix of ``checkpoints/step_<N><suffix>``), ``model`` (the name of the kind of its ``final_model`` /
    ``best_model`` files in :data:`yacht_agents.model_kinds.MODEL_KINDS`), ``check`` (its checks of several config
    keys, run when a config naming it is read: ``ValueError`` naming the key), ``options`` (the keyword options of
    :func:`~yacht_training.algorithms.train` it takes beyond the common ones), ``time_budget`` (it honours
    ``max_learning_s``), ``exact_budget`` (it honours ``exact_budget``: stops at ``total_timesteps``, never past
    it) and ``max_players`` (2: it learns heads-up self-play too)."""

    name: str
    train: TrainFunction
    section: str
    settings: type
    checkpoint: str
    model: str
    check: Callable[[Any], None] | None = None
    options: tuple[str, ...] = ()
    time_budget: bool = False
    exact_budget: bool = False
    max_players: int = 1


LEARNERS: dict[str, Learner] = {}
"""The registered learners by name, in the order of registration (the order of the config's sections)."""
_LISTENERS: list[Callable[[], None]] = []


def register_learner(learner: Learner) -> Learner:
    """Make ``learner`` a choice of the config's ``algo``, with its section; ``ValueError`` if its name or section
    is taken or its model kind is not registered."""
    if learner.name in LEARNERS:
        raise ValueError(f"learner {learner.name!r} is registered already")
    taken = {x.section: x.name for x in LEARNERS.values()}
    if learner.section in taken:
        raise ValueError(f"learner {learner.name!r}: config section {learner.section!r} belongs to learner "
                         f"{taken[learner.section]!r}")
    if learner.model not in MODEL_KINDS:
        raise ValueError(f"learner {learner.name!r}: model kind {learner.model!r} is not registered; registered: "
                         f"{', '.join(MODEL_KINDS)} (yacht_agents.model_kinds.register_model_kind)")
    LEARNERS[learner.name] = learner
    _changed()
    return learner


def unregister_learner(name: str) -> None:
    """Forget the learner ``name`` and its config section (a test's toy learner); nothing if it is not
    registered."""
    if LEARNERS.pop(name, None) is not None:
        _changed()


def get_learner(name: str) -> Learner:
    """The learner ``name``; ``ValueError`` naming the registered ones if there is none of that name."""
    try:
        return LEARNERS[name]
    except KeyError:
        raise ValueError(f"unknown learner {name!r}; registered: {', '.join(LEARNERS)}") from None


def on_register(listener: Callable[[], None]) -> None:
    """Call ``listener()`` after every change of :data:`LEARNERS` (the config rebuilds its schema there)."""
    _LISTENERS.append(listener)


def _changed() -> None:
    for listener in _LISTENERS:
        listener()
