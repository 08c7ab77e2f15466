"""Make an agent from a spec: a built-in name, a model file, a run folder of ``train.py``, or a callable.

``load_agent(spec, rules, seed)`` is what the command line tools call. A spec is one of

- a name in :data:`AGENT_FACTORIES` (``random``, ``greedy``, ``optimal``,
  ``optimal-win``, ``optimal-duel``), or ``name:ARG`` of
  :data:`PARAMETRIC_FACTORIES` (``optimal-reach:T``: play to end with at least T points);
- a model file of a kind in :mod:`yacht_agents.model_kinds`: ``.zip`` (a stable-baselines3 / sb3-contrib model,
  :mod:`yacht_agents.sb3_agent`) or ``.pt`` (a TD model, :mod:`yacht_agents.td_agent`, or an RLlib PPO policy,
  :mod:`yacht_agents.rllib_agent`, told apart by its metadata); read without running any code from the file;
- a run folder of ``train.py`` (its final model);
- the name of a model shipped in ``agents/models/`` (``td-yacht``, ``td-yatzy``, ``ppo-expectimax-yahtzee``...),
  also where the current folder holds a folder of that name (write ``./td-yacht`` for the folder);
- ``package.module:function``: a batch policy ``function(obs (N, D), masks (N, A)) -> actions (N,)``
  (:class:`~yacht_agents.base.CallableAgent`).

Extension points: :func:`register_agent` adds a named factory, :func:`yacht_agents.model_kinds.register_model_kind`
a kind of model file.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

from yacht_agents.base import Agent, CallableAgent, is_module
from yacht_agents.duel_agent import DuelAgent
from yacht_agents.greedy import GreedyAgent
from yacht_agents.model_kinds import ModelKind, kinds_of, model_suffixes
from yacht_agents.objectives import ReachAgent, WinAgent, parse_target
from yacht_agents.optimal import OptimalAgent
from yacht_agents.random_agent import RandomAgent
from yacht_env.extras import require
from yacht_env.files import read_regular, regular_file_problem
from yacht_env.rules import RuleSet, get_rules

AgentFactory = Callable[[RuleSet, int | None], Agent]
"""Builds an agent for a rule set, seeded with the given seed (None: fresh entropy)."""

AGENT_FACTORIES: dict[str, AgentFactory] = {
    "random": lambda rules, seed: RandomAgent(rules, seed=seed),
    "greedy": lambda rules, seed: GreedyAgent(rules, seed=seed),
    "optimal": lambda rules, seed: OptimalAgent(rules, seed=seed),
    "optimal-win": lambda rules, seed: WinAgent(rules, seed=seed),
    "optimal-duel": lambda rules, seed: DuelAgent(rules, seed=seed),
}
PARAMETRIC_FACTORIES: dict[str, Callable[[RuleSet, int | None, str], Agent]] = {
    "optimal-reach": lambda rules, seed, arg: ReachAgent(rules, parse_target(arg), seed=seed),
}
"""Agents named ``name:ARG`` (``optimal-reach:200``): the factory gets the text after the colon."""

SEATED_AGENTS: dict[str, type[Agent]] = {"optimal-duel": DuelAgent}
"""Agents that play in a game of exactly ``max_players`` seats (their tables are of that many scorecards)."""


def check_seats(spec: object, seats: int) -> None:
    """``ValueError`` at once, before anything is loaded or solved, if the agent ``spec`` names cannot play in a
    game of ``seats`` (``optimal-duel`` plays games of two only: alone, or among three, its table would be solved
    for nothing)."""
    cls = SEATED_AGENTS.get(spec.strip().lower()) if isinstance(spec, str) else None
    if cls is not None and seats != cls.max_players:
        where = "a game alone" if seats == 1 else f"games of {seats} players"
        raise ValueError(f"{spec.strip()} plays games of {cls.max_players} players only, not {where}; put it in a "
                         f"game of {cls.max_players}: yacht tournament --agents {spec.strip()} optimal")


MAX_EVAL_JSON_BYTES = 1 << 30
"""The largest ``eval.json`` of a run folder read for the name of its model (100,000,000 games: about 500 MB)."""
SHIPPED_MODELS_DIR = Path(__file__).resolve().parent / "models"


def register_agent(name: str, factory: AgentFactory) -> None:
    """Make ``load_agent(name, ...)`` build an agent with ``factory(rules, seed)``."""
    AGENT_FACTORIES[name.lower()] = factory


def shipped_models() -> list[str]:
    """Names of the models shipped in ``agents/models/``."""
    if not SHIPPED_MODELS_DIR.is_dir():
        return []
    return sorted({p.stem for p in SHIPPED_MODELS_DIR.iterdir() if p.suffix in model_suffixes()})


def accepted_specs() -> str:
    """A readable list of what :func:`load_agent` accepts, for error messages and ``--help``."""
    names = list(AGENT_FACTORIES) + [f"{n}:T" for n in PARAMETRIC_FACTORIES] + shipped_models()
    return (f"{', '.join(names)}, a model file ({' / '.join(model_suffixes())}), a run folder of train.py, or "
            "package.module:function")


def run_folder_model(run_dir: Path) -> Path:
    """The model file a run folder of ``train.py`` stands for: the one its ``eval.json`` evaluated, else
    ``final_model.*``, else ``best_model.*``; ``ValueError`` if there is none."""
    record = run_dir / "eval.json"
    problem = regular_file_problem(record)
    if problem not in (None, "does not exist"):  # a FIFO would hang the reader, a link to /dev/zero fill memory
        raise ValueError(f"cannot read the run folder {str(run_dir)!r}: eval.json {problem}")
    try:
        name = json.loads(read_regular(record, MAX_EVAL_JSON_BYTES).decode("utf-8")).get("agent")
    except (OSError, ValueError, AttributeError):
        name = None
    suffixes = model_suffixes()
    if isinstance(name, str) and Path(name).name == name and Path(name).suffix in suffixes and (
            run_dir / name).is_file():
        return run_dir / name
    for stem in ("final_model", "best_model"):
        for suffix in suffixes:
            if (run_dir / f"{stem}{suffix}").is_file():
                return run_dir / f"{stem}{suffix}"
    raise ValueError(f"{str(run_dir)!r} is a folder without a model: a run folder of train.py holds final_model.* "
                     "or best_model.*")


def load_model(path: Path, rules: RuleSet, seed: int | None = None) -> Agent:
    """An agent from a model file (its kind in :mod:`yacht_agents.model_kinds`: ``.zip``, stable-baselines3;
    ``.pt``, TD or RLlib PPO) or a run folder of train.py."""
    if path.is_dir():
        return load_model(run_folder_model(path), rules, seed)
    problem = regular_file_problem(path)
    if problem == "does not exist":
        raise ValueError(f"model file not found: {str(path)!r}")
    suffixes = " or ".join(model_suffixes())
    if problem is not None:
        raise ValueError(f"cannot load {str(path)!r}: it {problem}; a model is a {suffixes} file")
    kinds = kinds_of(path.suffix)
    if not kinds:
        raise ValueError(f"cannot load {str(path)!r}: model files end in {suffixes}")
    require(*dict.fromkeys(n for k in kinds for n in k.needs), what=f"loading the model {str(path)!r}")
    return _kind_of(path, kinds).load(path, rules, seed)


def _kind_of(path: Path, kinds: list[ModelKind]) -> ModelKind:
    """Which of ``kinds`` (of one suffix) wrote ``path``: the only one, else the one whose format the file's
    metadata declares, else the first (its loader then says why the file is none of its)."""
    if len(kinds) == 1:
        return kinds[0]
    fmt = _pt_format(path)
    return next((k for k in kinds if k.format == fmt), kinds[0])


def _pt_format(path: Path) -> str | None:
    """The ``meta["format"]`` of a torch model file, read with ``weights_only=True`` (None if unreadable: the
    loader of the first kind then says why)."""
    from yacht_agents.nets import load_torch_file

    try:
        data = load_torch_file(path)
    except (OSError, ValueError):  # reported by the loader that reads it again
        return None
    meta = data.get("meta") if isinstance(data, dict) else None
    return meta.get("format") if isinstance(meta, dict) else None


def import_user_module(module: str) -> ModuleType:
    """Import the user's ``module`` as ``python -m`` would find it: also from the current folder, which a console
    script such as ``yacht`` does not put on ``sys.path``. The folder is appended (installed packages come first)
    and stays, so that the module's own later imports of its siblings work too."""
    cwd, appended = os.getcwd(), False
    while True:
        try:
            return importlib.import_module(module)
        except ModuleNotFoundError as e:
            if appended:
                raise ModuleNotFoundError(f"{e} (looked in the current folder {cwd!r} too)", name=e.name) from None
            if e.name != module.split(".")[0] or "" in sys.path or cwd in sys.path:
                raise
            sys.path.append(cwd)
            appended = True


def load_callable(spec: str, rules: RuleSet, seed: int | None = None) -> Agent:
    """``package.module:function`` as a batch policy agent (the module is the user's, imported by name, also from
    the current folder: :func:`import_user_module`)."""
    module, _, attr = spec.partition(":")
    try:
        fn = getattr(import_user_module(module), attr)
    except (ImportError, AttributeError, TypeError, ValueError) as e:  # TypeError: a relative name (.foo:bar)
        raise ValueError(f"cannot load the policy {spec!r}: {e}") from None
    if not callable(fn):
        raise ValueError(f"{spec!r} is not callable: a policy is a function(obs, masks) -> actions")
    agent = CallableAgent(fn, rules, name=attr)
    agent.seed(seed)
    return agent


def load_agent(spec: str, rules: str | RuleSet, seed: int | None = None) -> Agent:
    """The agent named by ``spec`` for ``rules``, seeded with ``seed``.

    Raises ``ValueError`` naming what is accepted for an unknown spec or rule set, and naming the path of a model
    file or run folder that does not exist (a spec with a ``/`` or a model suffix is a path);
    ``ModuleNotFoundError`` naming the extra to install where a model needs one.
    """
    rs = get_rules(rules)
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"agent must be a non-empty string; accepted: {accepted_specs()}")
    spec = spec.strip()
    factory = AGENT_FACTORIES.get(spec.lower())
    if factory is not None:
        return factory(rs, seed)
    name, _, arg = spec.partition(":")
    if name.lower() in PARAMETRIC_FACTORIES:
        return PARAMETRIC_FACTORIES[name.lower()](rs, seed, arg)
    path = Path(spec).expanduser()
    names_a_path = any(sep and sep in spec for sep in ("/", os.sep, os.altsep)) or spec.startswith(("~", "."))
    if not names_a_path:  # a shipped model's bare name means it, even beside a folder of that name (./td-yacht)
        for suffix in model_suffixes():
            shipped = SHIPPED_MODELS_DIR / f"{spec}{suffix}"
            if shipped.is_file():
                return load_model(shipped, rs, seed)
    if spec.lower().endswith(model_suffixes()) or path.is_dir():
        return load_model(path, rs, seed)
    if names_a_path and not path.exists():
        raise ValueError(f"model file or run folder not found: {str(path)!r}")
    if ":" in spec and not path.exists():
        return load_callable(spec, rs, seed)
    raise ValueError(f"unknown agent {spec!r}; accepted: {accepted_specs()}")


def as_agent(policy: Any, rules: str | RuleSet, seed: int | None = None) -> Agent:
    """An agent from any policy: an :class:`Agent` (for these rules), a :func:`load_agent` spec, a
    stable-baselines3 model or policy object trained on our environments (checked by its observation and action
    spaces), a torch ``nn.Module`` scoring every action (:class:`~yacht_agents.module_agent.ModuleAgent`), or a
    callable, batch ``policy(obs (N, D), masks (N, A)) -> actions (N,)`` or of one game ``policy(obs, mask) ->
    action`` (:class:`~yacht_agents.base.CallableAgent`)."""
    rs = get_rules(rules)
    if isinstance(policy, Agent):
        if policy.rules.name != rs.name:
            raise ValueError(f"agent {policy.name!r} plays rules {policy.rules.name!r}, not {rs.name!r}")
        policy.seed(seed)
        return policy
    if isinstance(policy, (str, Path)):
        return load_agent(str(policy), rs, seed)
    sb3_policy = getattr(policy, "policy", policy)
    if is_module(policy) and not hasattr(policy, "observation_space"):  # a plain torch network (SB3's have spaces)
        from yacht_agents.module_agent import ModuleAgent

        agent: Agent = ModuleAgent(policy, rs)
    elif hasattr(sb3_policy, "observation_space") and hasattr(sb3_policy, "action_space") and hasattr(
            sb3_policy, "state_dict"):
        from yacht_agents.sb3_agent import SB3Agent, check_spaces

        version = check_spaces(sb3_policy.observation_space, sb3_policy.action_space, rs, type(policy).__name__)
        agent = SB3Agent(sb3_policy, rs, name=type(policy).__name__, obs_layout=version)
    elif callable(policy):
        agent = CallableAgent(policy, rs, name=getattr(policy, "__name__", "policy"))
    else:
        raise ValueError(f"cannot evaluate a {type(policy).__name__}: accepted are an Agent, an agent spec "
                         f"({accepted_specs()}), a stable-baselines3 model, a torch nn.Module, or a function(obs, "
                         "masks) -> actions")
    agent.seed(seed)
    return agent
