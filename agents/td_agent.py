"""Model-based TD agents: a network values turn-start states, exact expectimax over the dice plays each turn.

The split. What happens inside a turn (three rolls, keeps, the category) is known exactly from the dice model
(:mod:`yacht_env.dice`) and the rules: nothing to learn there. What is unknown is the value of the scorecard at the
start of the next turn. So a small torch network ``V(s)`` estimates the expected points still to come from a
turn-start state ``s = (filled categories, capped upper total, five-of-a-kind box holds 50)``, and a turn is played
by the turn search of :mod:`yacht_agents.search` with those values. With the solver's exact values in place of ``V``
this is exactly the optimal agent (tested). The network is trained by self-play
(``yacht_training.td_learner``); it never sees the exact solver's value table.

Speed. Network values are memoised in a flat array ``E`` over the turn-start state index ``(F * U + u) * Y + y``
(:class:`~yacht_env.rules.TurnStartLayout`), filled lazily for the successors that the states at hand need
(:class:`ValueMemo`) and cleared whenever the network changes.

Models are small ``.pt`` files: the network's state dict plus metadata (rules, feature layout version, sizes), read
with ``torch.load(..., weights_only=True)``. A model for other rules or another feature layout fails to load with a
message saying so.
"""

from __future__ import annotations

import reprlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from yacht_agents.nets import check_activation, check_declared_mlp, check_hidden, check_weights, mlp, read_model_file
from yacht_agents.search import TurnKeys, TurnSearchAgent
from yacht_env.files import write_atomic
from yacht_env.rules import RuleSet, TurnStartLayout, get_rules
from yacht_solver.search.turn_constants import Starts, search_constants
from yacht_solver.search.turn_successors import missing_successors, successor_boxes

if TYPE_CHECKING:
    import torch

FORMAT = "yacht-env-td"
FEATURE_LAYOUT_VERSION = 1
"""Bump when :meth:`StateSpace.features` changes: saved models with another version then refuse to load."""
VALUE_SCALE_RANGE = (1e-3, 1e6)
"""The accepted ``value_scale``: the network predicts points / value_scale in float32, so a tiny scale overflows to
inf (1e-39: every prediction inf, then NaN) and a huge one leaves no precision."""
def check_value_scale(value: object, key: str = "value_scale") -> float:
    """``value`` as a float if it is a number in :data:`VALUE_SCALE_RANGE`, else ``ValueError`` naming ``key``."""
    lo, hi = VALUE_SCALE_RANGE
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not lo <= value <= hi:
        raise ValueError(f"{key} must be a number in {lo:g}..{hi:g} (the network predicts points / value_scale in "
                         f"float32), got {value!r}")
    return float(value)


@dataclass(frozen=True)
class StateSpace(TurnStartLayout):
    """The turn-start states of a rule set (:class:`~yacht_env.rules.TurnStartLayout`), with the network's
    features."""

    @property
    def feature_dim(self) -> int:
        return self.num_categories + 1 + (self.U + 1 if self.threshold else 0) + (1 if self.Y == 2 else 0)

    def features(self, idx: np.ndarray) -> np.ndarray:
        """(N, feature_dim) float32 network inputs of flat states: open-category bits, the fraction of turns
        left, then (with an upper bonus) the capped upper total scaled and one-hot, then (with a five-of-a-kind
        bonus) the 50-in-the-box flag. Feature layout version :data:`FEATURE_LAYOUT_VERSION`."""
        F, u, y = self.unflat(idx)
        n = len(F)
        C = self.num_categories
        out = np.zeros((n, self.feature_dim), dtype=np.float32)
        open_ = ((F[:, None] >> np.arange(C)) & 1) == 0
        out[:, :C] = open_
        out[:, C] = open_.sum(axis=1) / C
        j = C + 1
        if self.threshold:
            out[:, j] = u / self.threshold
            out[np.arange(n), j + 1 + u] = 1.0
            j += self.U + 1
        if self.Y == 2:
            out[:, j] = y
        return out


# ---- values: a network (memoised) or a given table ----------------------------------------------------------------


class ValueNet:
    """A value network for one rule set, with the metadata that goes into its ``.pt`` file: the points still to come
    from a turn-start state (one player; :class:`yacht_agents.td_win.WinNet` is the game of two's)."""

    players = 1
    """The seats of the games the network values; a ``.pt`` file of another count does not load as this class."""

    def __init__(self, rules: str | RuleSet, hidden: Sequence[int] = (256, 256), activation: str = "relu",
                 value_scale: float = 100.0, net: torch.nn.Module | None = None) -> None:
        self.rules = get_rules(rules)
        self.space = StateSpace.of(self.rules)
        self.hidden = check_hidden(list(hidden))
        self.activation = activation
        self.value_scale = check_value_scale(value_scale)
        check_activation(activation, "td.activation")
        self.net = net if net is not None else mlp(self.input_dim, self.hidden, activation, 1)

    @property
    def input_dim(self) -> int:
        """The width of the network's input (:meth:`features`)."""
        return self.input_dim_of(self.space)

    @classmethod
    def input_dim_of(cls, space: StateSpace) -> int:
        """:attr:`input_dim` for the states ``space``."""
        return space.feature_dim

    def features(self, samples: np.ndarray) -> np.ndarray:
        """The network's inputs (N, :attr:`input_dim`) of what it values: here flat turn-start states."""
        return self.space.features(samples)

    def output(self, x: torch.Tensor) -> torch.Tensor:
        """The network's value of inputs ``x``, in units of ``value_scale`` (what training regresses)."""
        return self.net(x).squeeze(1)

    def meta(self) -> dict[str, Any]:
        s = self.space
        meta = {"format": FORMAT, "rules": self.rules.name, "feature_layout_version": FEATURE_LAYOUT_VERSION,
                "feature_dim": s.feature_dim, "num_categories": s.num_categories, "upper_threshold": s.threshold,
                "five_kind_category": s.five_kind_category, "hidden": self.hidden, "activation": self.activation,
                "value_scale": self.value_scale}
        return meta if self.players == 1 else {**meta, "players": self.players}

    def predict(self, idx: np.ndarray, batch: int = 65536) -> np.ndarray:
        """Network values (for one player the points to come) of what it values (:meth:`features`), float64."""
        import torch

        out = np.empty(len(idx))
        self.net.eval()
        with torch.no_grad():
            for a in range(0, len(idx), batch):
                x = torch.from_numpy(self.features(idx[a:a + batch]))
                out[a:a + batch] = self.output(x).double().numpy() * self.value_scale
        return out

    def save(self, path: str | Path, extra: dict[str, Any] | None = None) -> None:
        """Write the model as a small ``.pt`` file (state dict + metadata)."""
        import torch

        data = {"meta": self.meta(), "state_dict": self.net.state_dict()}
        if extra:
            data["info"] = extra
        write_atomic(path, lambda f: torch.save(data, f))

    @classmethod
    def load(cls, path: str | Path, rules: str | RuleSet) -> ValueNet:
        """Load a ``.pt`` saved by :meth:`save` for ``rules``; ``ValueError`` if it is something else or was made
        for other rules or another feature layout."""
        rs = get_rules(rules)
        src = repr(str(path))
        data, meta = read_model_file(path, FORMAT, "a TD model", "train.py")
        if meta.get("rules") != rs.name:
            raise ValueError(f"{src} was trained for rules {meta.get('rules')!r}, not {rs.name!r}")
        players = meta.get("players", 1)
        if type(players) is not int or players != cls.players:
            shown = players if type(players) is int else reprlib.repr(players)
            raise ValueError(f"{src} values the game of {shown} players, not of {cls.players}")
        if meta.get("feature_layout_version") != FEATURE_LAYOUT_VERSION:
            raise ValueError(f"{src} uses feature layout version {meta.get('feature_layout_version')!r}; this "
                             f"version of yacht-env reads version {FEATURE_LAYOUT_VERSION}: retrain it")
        check_weights(data.get("state_dict"), src)
        space = StateSpace.of(rs)
        try:  # the file's own settings: checked (also against the weights it holds) before anything is built
            hidden = check_declared_mlp(data["state_dict"], cls.input_dim_of(space), meta.get("hidden"), 1, src)
            model = cls(rs, hidden, meta.get("activation"), meta.get("value_scale"))  # type: ignore[arg-type]
        except ValueError as e:
            raise ValueError(f"{src}: {str(e).removeprefix(src + ': ')}") from None
        want = model.meta()
        for k in ("feature_dim", "num_categories", "upper_threshold", "five_kind_category"):
            if meta.get(k) != want[k]:
                raise ValueError(f"{src} has {k} = {meta.get(k)!r}, rules {rs.name!r} need {want[k]!r}")
        try:
            model.net.load_state_dict(data["state_dict"])
        except (RuntimeError, KeyError, TypeError) as e:
            raise ValueError(f"{src}: the network weights do not fit its metadata: {e}") from None
        return model


class ValueMemo:
    """``E``: values of turn-start states over the flat index, filled on demand from a network (or once from a
    full table), with the final state worth 0. :meth:`clear` after the network changes."""

    def __init__(self, rules: RuleSet, model: ValueNet | None = None, table: np.ndarray | None = None) -> None:
        if (model is None) == (table is None):
            raise ValueError("give a network or a value table")
        self.model = model
        self.space = s = StateSpace.of(rules)
        self.boxes = successor_boxes(rules)
        self.constants = search_constants(rules)
        self._final = s.final_states()
        if table is not None:
            E = np.ascontiguousarray(np.asarray(table, dtype=np.float64).reshape(-1)).copy()
            if E.shape != (s.size,):
                raise ValueError(f"value table of {E.size} entries, expected {s.size}")
            E[self._final] = 0.0
            self.E = E
            self.known = np.ones(s.size, dtype=np.bool_)
        else:
            self.E = np.zeros(s.size)
            self.known = np.zeros(s.size, dtype=np.bool_)
            self.clear()
        self.evaluated = 0

    def clear(self) -> None:
        if self.model is None:
            return
        self.known[:] = False
        self.E[self._final] = 0.0
        self.known[self._final] = True

    def ensure(self, Fs: np.ndarray, us: np.ndarray, ys: np.ndarray) -> None:
        """Make ``E`` hold the successors of the given turn-start states."""
        if self.model is None:
            return
        starts = Starts(*(np.ascontiguousarray(a, dtype=np.int64) for a in (Fs, us, ys)))
        idx = missing_successors(self.constants, starts, self.known, self.boxes)
        if idx.size:
            idx = np.unique(idx)
            v = self.model.predict(idx)
            bad = ~np.isfinite(v)
            if bad.any():
                raise ValueError(f"the TD network gives non-finite values ({v[bad][0]}) for {int(bad.sum())} of "
                                 f"{idx.size} turn-start states: the model (or its value_scale) is broken")
            self.E[idx] = v
            self.known[idx] = True
            self.evaluated += idx.size


# ---- the agent ------------------------------------------------------------------------------------------------------


class TDAgent(TurnSearchAgent):
    """Expectimax over the turn with a value network (or any value table) for the next turn-start states.

    ``TDAgent(rules, model=ValueNet)`` plays a learned model; ``TDAgent(rules, table=solution.values)`` plays with
    exact values and then plays exactly as :class:`~yacht_agents.optimal.OptimalAgent`. Deterministic."""

    name = "td"

    def __init__(self, rules: str | RuleSet = "yacht", model: ValueNet | None = None, table: np.ndarray | None = None,
                 seed: int | None = None, name: str = "td") -> None:
        super().__init__(rules, seed)
        if model is not None and model.players != 1:
            raise ValueError(f"a TDAgent plays the game alone: this model values the game of {model.players} players "
                             "(yacht_agents.td_win.TDWinAgent plays it)")
        if model is not None and model.rules.name != self.rules.name:
            raise ValueError(f"the model is for rules {model.rules.name!r}, not {self.rules.name!r}")
        self.name = name
        self.memo = ValueMemo(self.rules, model=model, table=table)

    def successor_values(self, keys: TurnKeys) -> np.ndarray:
        self.memo.ensure(keys.F, keys.u, keys.y)
        return self.memo.E


def load_td_agent(path: str | Path, rules: str | RuleSet, seed: int | None = None) -> TDAgent:
    """A :class:`TDAgent` from a ``.pt`` model file; ``ValueError`` if the file is not one or does not fit."""
    model = ValueNet.load(path, rules)
    return TDAgent(rules, model=model, seed=seed, name=Path(path).stem)
