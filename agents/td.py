"""Model-based TD learning: a network values turn-start states, exact expectimax over the dice plays each turn.

The split. What happens inside a turn (three rolls, keeps, the category) is known exactly from the dice model
(:mod:`yacht_env.dice`) and the rules: nothing to learn there. What is unknown is the value of the scorecard at the
start of the next turn. So a small torch network ``V(s)`` estimates the expected points still to come from a
turn-start state ``s = (filled categories, capped upper total, five-of-a-kind box holds 50)``, and a turn is played
by exact expectimax: for every hand and category, "points now + V(next turn-start state)" (the table ``G`` of
:func:`yacht_env.solver.successor_table`), then the keep tree of :func:`yacht_env.solver.turn_tables` over the 252
hands and 462 keeps. With the solver's exact values in place of ``V`` this is exactly the optimal agent (tested).

Learning. Self-play games, many in lockstep. The TD(0) target of a visited turn-start state ``s`` is the exact
expectation over its turn, ``E_dice[max(points + V(successor))]``: the ``start`` value of the turn tables, computed
anyway to play the turn. With ``td_lambda > 0`` it is mixed with the realised points of the rest of the game
(lambda-return). The network never sees the exact solver's value table; the solver only measures the agent
(percent of optimal).

Speed. Network values are memoised in a flat array ``E`` over the turn-start state index ``(F * U + u) * Y + y``
(the solver's layout), filled lazily for the successors that the states at hand need and cleared whenever the
network changes. The per-state work (``G``, turn tables, the decision or a whole sampled turn) runs in numba, in
parallel over games.

Models are small ``.pt`` files: the network's state dict plus metadata (rules, feature layout version, sizes).
A model for other rules or another feature layout fails to load with a message saying so.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from numba import njit, prange

from agents.base import Agent
from yacht_env import dice as D
from yacht_env import jit
from yacht_env.actions import KEEP_MASK_UNIQUE, NUM_KEEP_ACTIONS
from yacht_env.rules import NUM_UPPER, RuleSet, get_rules
from yacht_env.solver import core as solver
from yacht_env.solver import kernels as K
from yacht_env.state import GameState

if TYPE_CHECKING:
    import torch

    from agents.train_config import TrainConfig

FORMAT = "yacht-env-td"
FEATURE_LAYOUT_VERSION = 1
"""Bump when :meth:`StateSpace.features` changes: saved models with another version then refuse to load."""
ACTIVATIONS = ("relu", "tanh", "elu", "gelu", "silu")
NEG_INF = -np.inf

_HAND_CUM = np.cumsum(D.HAND_PROBABILITY)
_TRANS_CUM = np.cumsum(D.TRANSITION, axis=1)
_KEEP_MASK = np.ascontiguousarray(KEEP_MASK_UNIQUE)


# ---- the turn-start state space -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class StateSpace(solver.Layout):
    """The turn-start states of a rule set, indexed as the solver does (:class:`~yacht_env.solver.core.Layout`):
    flat ``(F * U + u) * Y + y`` with ``F`` the filled bits, ``u`` the upper total capped at the bonus threshold
    (U = threshold + 1, or 1 without an upper bonus) and ``y`` whether the five-of-a-kind box holds 50 (Y = 2, or 1
    without a five-of-a-kind bonus / Joker); with the network's features."""

    @property
    def feature_dim(self) -> int:
        return self.num_categories + 1 + (self.U + 1 if self.threshold else 0) + (1 if self.Y == 2 else 0)

    def flat(self, F: np.ndarray, u: np.ndarray, y: np.ndarray) -> np.ndarray:
        return (np.asarray(F, np.int64) * self.U + u) * self.Y + y

    def unflat(self, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        idx = np.asarray(idx, np.int64)
        F, r = np.divmod(idx, self.U * self.Y)
        u, y = np.divmod(r, self.Y)
        return F, u, y

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

    def successor_options(self, rules: RuleSet) -> tuple[np.ndarray, np.ndarray]:
        """Per category, box values that lead to distinct successor states (``BOX[c, :N[c]]``)."""
        opts: list[list[int]] = []
        for c in range(self.num_categories):
            vals = sorted({int(v) for v in rules.score_table[:, c]} | {int(v) for v in rules.joker_table[:, c]})
            if self.threshold and c < NUM_UPPER:
                keep = vals
            elif self.Y == 2 and c == self.five_kind_category:
                keep = sorted({v if v == 50 else 0 for v in vals})
            else:
                keep = vals[:1]
            opts.append(keep)
        width = max(len(o) for o in opts)
        box = np.zeros((self.num_categories, width), dtype=np.int64)
        for c, o in enumerate(opts):
            box[c, : len(o)] = o
        return box, np.array([len(o) for o in opts], dtype=np.int64)


class RulesArrays:
    """The tables the kernels need for one rule set: ``tables`` = (params, S, J, CLS, BOXV, NV, PTV), the
    compiled rules and box-score classes that :func:`yacht_env.solver.kernels.fast_successor_table` takes (as the
    solver's), and the successor box values of :meth:`StateSpace.successor_options`."""

    def __init__(self, rules: RuleSet) -> None:
        self.rules = rules
        self.space = StateSpace.of(rules)
        self.tables = solver.turn_arrays(rules)
        self.box, self.nbox = self.space.successor_options(rules)

    def dims(self) -> tuple[int, int, int, int]:
        s = self.space
        return s.U, s.Y, s.threshold, s.five_kind_category


# ---- compiled kernels ---------------------------------------------------------------------------------------------
# The score table "points now + value of the next turn-start state", the best action and the successor state are
# the solver's (kernels.fast_successor_table, best_action_of, _successor). The kernels below compile them in, and
# the solver's tie tolerance: their numba cache is dropped when those modules change.

jit.expire_stale_numba_cache(__file__, (K, solver))


@njit(cache=True, parallel=True)
def decide_batch(params: np.ndarray, S: np.ndarray, J: np.ndarray, CLS: np.ndarray, BOXV: np.ndarray,
                 NV: np.ndarray, PTV: np.ndarray, E: np.ndarray, Fs: np.ndarray, us: np.ndarray, ys: np.ndarray,
                 hands: np.ndarray, rolls: np.ndarray, U: int, Y: int, thr: int, ycat: int, keep_mask: np.ndarray,
                 pattern_keep: np.ndarray) -> np.ndarray:
    """The expectimax action of each state i (turn-start key Fs/us/ys, hand, rolls left), in parallel, as
    :meth:`yacht_env.solver.Solution.best_action` picks it with ``E`` for the solver's values."""
    n = Fs.shape[0]
    out = np.empty(n, dtype=np.int64)
    for i in prange(n):
        G = K.fast_successor_table(params, S, J, CLS, BOXV, NV, PTV, E, Fs[i], us[i], ys[i], U, Y, thr, ycat)
        _, K0, _, K1, _, _ = K.turn_tables(G)
        out[i] = K.best_action_of(G, K0, K1, rolls[i], hands[i], pattern_keep, keep_mask, solver.TIE_TOLERANCE)
    return out


@njit(cache=True)
def _sample(cum: np.ndarray, r: float) -> int:
    """Index drawn from a cumulative distribution with a uniform ``r`` in [0, 1)."""
    i = np.searchsorted(cum, r * cum[-1], side="right")
    n = cum.shape[0]
    if i >= n:
        i = n - 1
    while i > 0 and cum[i] == cum[i - 1]:  # never land on a zero-probability entry
        i -= 1
    return i


@njit(cache=True, parallel=True)
def play_turns(params: np.ndarray, S: np.ndarray, J: np.ndarray, CLS: np.ndarray, BOXV: np.ndarray, NV: np.ndarray,
               PTV: np.ndarray, E: np.ndarray, Fs: np.ndarray, us: np.ndarray, ys: np.ndarray, U: int, Y: int,
               thr: int, ycat: int, keep_mask: np.ndarray, pattern_keep: np.ndarray, hand_cum: np.ndarray,
               trans_cum: np.ndarray, rand: np.ndarray, explore: np.ndarray, start: np.ndarray, points: np.ndarray,
               F2: np.ndarray, u2: np.ndarray, y2: np.ndarray, steps: np.ndarray) -> None:
    """Play one turn of each game i from turn-start state (Fs, us, ys) by expectimax, dice drawn with the
    uniforms ``rand[i, 0..2]`` from the dice model. ``explore[i]`` in [0, 1): score a uniformly drawn legal
    category at the end of the turn instead of the best one (``explore[i] < 0``: play best). Writes the exact
    turn-start expectation (the TD(0) target), the points scored, the next turn-start state and the number of
    decisions (environment steps)."""
    n = Fs.shape[0]
    C = S.shape[1]
    for i in prange(n):
        F, u, y = Fs[i], us[i], ys[i]
        G = K.fast_successor_table(params, S, J, CLS, BOXV, NV, PTV, E, F, u, y, U, Y, thr, ycat)
        _, K0, _, K1, _, e = K.turn_tables(G)
        start[i] = e
        h = _sample(hand_cum, rand[i, 0])
        rolls = 2
        nsteps = 0
        c = -1
        while c < 0:
            a = K.best_action_of(G, K0, K1, rolls, h, pattern_keep, keep_mask, solver.TIE_TOLERANCE)
            nsteps += 1
            if a < NUM_KEEP_ACTIONS:
                h = _sample(trans_cum[pattern_keep[h, a]], rand[i, 3 - rolls])
                rolls -= 1
            else:
                c = a - NUM_KEEP_ACTIONS
        if explore[i] >= 0.0:
            nlegal = 0
            for k in range(C):
                if G[h, k] > NEG_INF:
                    nlegal += 1
            pick = int(explore[i] * nlegal)
            for k in range(C):
                if G[h, k] > NEG_INF:
                    if pick == 0:
                        c = k
                        break
                    pick -= 1
        face = K.FIVE_KIND_FACE[h]
        points[i] = K.points_for(params, S[h], J[h], face, F, u, y == 1, c)
        box = K.box_score(params, S[h], J[h], face, F, c)
        F2[i] = F | (1 << c)
        u2[i], y2[i] = K._successor(c, box, u, y, thr, Y, ycat)
        steps[i] = nsteps


@njit(cache=True)
def missing_successors(Fs: np.ndarray, us: np.ndarray, ys: np.ndarray, known: np.ndarray, box: np.ndarray,
                       nbox: np.ndarray, C: int, U: int, Y: int, thr: int, ycat: int) -> np.ndarray:
    """Flat indices (possibly repeated) of the successors of the states that ``known`` does not hold yet."""
    out = np.empty(Fs.shape[0] * box.shape[0] * box.shape[1], dtype=np.int64)
    n = 0
    for i in range(Fs.shape[0]):
        F, u, y = Fs[i], us[i], ys[i]
        for c in range(C):
            if (F >> c) & 1:
                continue
            base = (F | (1 << c)) * U
            for j in range(nbox[c]):
                u2, y2 = K._successor(c, box[c, j], u, y, thr, Y, ycat)
                idx = (base + u2) * Y + y2
                if not known[idx]:
                    out[n] = idx
                    n += 1
    return out[:n]


# ---- values: a network (memoised) or a given table ----------------------------------------------------------------


def _activation(name: str) -> Any:
    import torch.nn as nn

    acts = {"relu": nn.ReLU, "tanh": nn.Tanh, "elu": nn.ELU, "gelu": nn.GELU, "silu": nn.SiLU}
    if name not in acts:
        raise ValueError(f"unknown activation {name!r}; accepted: {', '.join(ACTIVATIONS)}")
    return acts[name]


def build_net(in_dim: int, hidden: Sequence[int], activation: str) -> torch.nn.Module:
    """The value network: an MLP from the features to one number (value / value_scale)."""
    import torch.nn as nn

    layers: list[nn.Module] = []
    d = in_dim
    for w in hidden:
        layers += [nn.Linear(d, int(w)), _activation(activation)()]
        d = int(w)
    layers.append(nn.Linear(d, 1))
    return nn.Sequential(*layers)


class ValueNet:
    """A value network for one rule set, with the metadata that goes into its ``.pt`` file."""

    def __init__(self, rules: str | RuleSet, hidden: Sequence[int] = (256, 256), activation: str = "relu",
                 value_scale: float = 100.0, net: torch.nn.Module | None = None) -> None:
        self.rules = get_rules(rules)
        self.space = StateSpace.of(self.rules)
        self.hidden = [int(w) for w in hidden]
        self.activation = activation
        self.value_scale = float(value_scale)
        self.net = net if net is not None else build_net(self.space.feature_dim, self.hidden, activation)

    def meta(self) -> dict[str, Any]:
        s = self.space
        return {"format": FORMAT, "rules": self.rules.name, "feature_layout_version": FEATURE_LAYOUT_VERSION,
                "feature_dim": s.feature_dim, "num_categories": s.num_categories, "upper_threshold": s.threshold,
                "five_kind_category": s.five_kind_category, "hidden": self.hidden, "activation": self.activation,
                "value_scale": self.value_scale}

    def predict(self, idx: np.ndarray, batch: int = 65536) -> np.ndarray:
        """Network values (points to come) of flat turn-start states, float64."""
        import torch

        out = np.empty(len(idx))
        self.net.eval()
        with torch.no_grad():
            for a in range(0, len(idx), batch):
                x = torch.from_numpy(self.space.features(idx[a:a + batch]))
                out[a:a + batch] = self.net(x).squeeze(1).double().numpy() * self.value_scale
        return out

    def save(self, path: str | Path, extra: dict[str, Any] | None = None) -> None:
        """Write the model as a small ``.pt`` file (state dict + metadata)."""
        import torch

        data = {"meta": self.meta(), "state_dict": self.net.state_dict()}
        if extra:
            data["info"] = extra
        tmp = Path(str(path) + ".tmp")
        torch.save(data, tmp)
        tmp.replace(path)

    @classmethod
    def load(cls, path: str | Path, rules: str | RuleSet) -> ValueNet:
        """Load a ``.pt`` saved by :meth:`save` for ``rules``; ``ValueError`` if it is something else or was made
        for other rules or another feature layout."""
        import torch

        rs = get_rules(rules)
        src = repr(str(path))
        try:
            data = torch.load(path, map_location="cpu", weights_only=True)
        except Exception as e:  # noqa: BLE001 - any unreadable file gets the same clear message
            raise ValueError(f"cannot load {src} as a TD model: {e}") from None
        meta = data.get("meta") if isinstance(data, dict) else None
        if not isinstance(meta, dict) or meta.get("format") != FORMAT:
            raise ValueError(f"{src} is not a TD model saved by agents.td (no {FORMAT!r} metadata)")
        if meta.get("rules") != rs.name:
            raise ValueError(f"{src} was trained for rules {meta.get('rules')!r}, not {rs.name!r}")
        if meta.get("feature_layout_version") != FEATURE_LAYOUT_VERSION:
            raise ValueError(f"{src} uses feature layout version {meta.get('feature_layout_version')!r}; this "
                             f"version of yacht-env reads version {FEATURE_LAYOUT_VERSION}: retrain it")
        model = cls(rs, meta["hidden"], meta["activation"], meta["value_scale"])
        want = model.meta()
        for k in ("feature_dim", "num_categories", "upper_threshold", "five_kind_category"):
            if meta.get(k) != want[k]:
                raise ValueError(f"{src} has {k} = {meta.get(k)!r}, rules {rs.name!r} need {want[k]!r}")
        try:
            model.net.load_state_dict(data["state_dict"])
        except (RuntimeError, KeyError) as e:
            raise ValueError(f"{src}: the network weights do not fit its metadata: {e}") from None
        return model


class ValueMemo:
    """``E``: values of turn-start states over the flat index, filled on demand from a network (or once from a
    full table), with the final state worth 0. :meth:`clear` after the network changes."""

    def __init__(self, arrays: RulesArrays, model: ValueNet | None = None, table: np.ndarray | None = None) -> None:
        if (model is None) == (table is None):
            raise ValueError("give a network or a value table")
        self.arrays = arrays
        self.model = model
        s = arrays.space
        self._final = s.flat(np.full(s.U * s.Y, (1 << s.num_categories) - 1), np.repeat(np.arange(s.U), s.Y),
                             np.tile(np.arange(s.Y), s.U))
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
        a = self.arrays
        s = a.space
        idx = missing_successors(Fs, us, ys, self.known, a.box, a.nbox, s.num_categories, *a.dims())
        if idx.size:
            idx = np.unique(idx)
            self.E[idx] = self.model.predict(idx)
            self.known[idx] = True
            self.evaluated += idx.size


# ---- the agent ------------------------------------------------------------------------------------------------------


class TDAgent(Agent):
    """Expectimax over the turn with a value network (or any value table) for the next turn-start states.

    ``TDAgent(rules, model=ValueNet)`` plays a learned model; ``TDAgent(rules, table=solution.values)`` plays with
    exact values and then plays exactly as :class:`~agents.optimal.OptimalAgent`. Deterministic."""

    name = "td"
    needs_state = True
    needs_obs = False
    batched = True

    def __init__(self, rules: str | RuleSet = "yacht", model: ValueNet | None = None, table: np.ndarray | None = None,
                 seed: int | None = None, name: str = "td") -> None:
        super().__init__(rules)
        if model is not None and model.rules.name != self.rules.name:
            raise ValueError(f"the model is for rules {model.rules.name!r}, not {self.rules.name!r}")
        self.seed(seed)
        self.name = name
        self.arrays = RulesArrays(self.rules)
        self.memo = ValueMemo(self.arrays, model=model, table=table)

    def decide(self, states: Sequence[GameState]) -> np.ndarray:
        """The expectimax action of each state."""
        s = self.arrays.space
        keys = np.array([s.key(st.filled_bits, st.upper_total, st.yahtzee_box) for st in states],
                        dtype=np.int64).reshape(-1, 3)
        Fs, us, ys = (np.ascontiguousarray(keys[:, i]) for i in range(3))
        hands = D.hand_indices(np.array([st.dice for st in states], dtype=np.int64).reshape(-1, D.NUM_DICE))
        rolls = np.array([st.rolls_left for st in states], dtype=np.int64)
        self.memo.ensure(Fs, us, ys)
        a = self.arrays
        return decide_batch(*a.tables, self.memo.E, Fs, us, ys, hands.astype(np.int64), rolls, *a.dims(),
                            _KEEP_MASK, K.PATTERN_KEEP)

    def act(self, obs: np.ndarray, mask: np.ndarray, state: GameState | None = None) -> int:
        if state is None:
            raise ValueError("the TD agent needs the GameState (needs_state=True)")
        return int(self.act_batch(np.zeros((1, 0), np.float32), mask[None], [state])[0])

    def act_batch(self, obs: np.ndarray, masks: np.ndarray, states: Sequence[GameState] | None = None
                  ) -> np.ndarray:
        if states is None:
            raise ValueError("the TD agent needs the GameStates (needs_state=True)")
        if not len(states):
            return np.zeros(0, dtype=np.int64)
        for st in states:
            if st.rules != self.rules.name:
                raise ValueError(f"this agent plays rules {self.rules.name!r}, the state is {st.rules!r}")
        actions = self.decide(states)
        bad = ~np.asarray(masks, bool)[np.arange(len(actions)), actions]
        if bad.any():  # never expected: the canonical keeps and the Joker-legal boxes are what the mask allows
            i = int(np.flatnonzero(bad)[0])
            raise RuntimeError(f"TD agent chose illegal action {int(actions[i])} in {states[i]}")
        return actions


def load_td_agent(path: str | Path, rules: str | RuleSet, seed: int | None = None) -> TDAgent:
    """A :class:`TDAgent` from a ``.pt`` model file; ``ValueError`` if the file is not one or does not fit."""
    model = ValueNet.load(path, rules)
    return TDAgent(rules, model=model, seed=seed, name=Path(path).stem)


# ---- learning -------------------------------------------------------------------------------------------------------


class SelfPlay:
    """Lockstep self-play with exact turn expectations as TD targets."""

    def __init__(self, model: ValueNet) -> None:
        self.model = model
        self.arrays = RulesArrays(model.rules)
        self.memo = ValueMemo(self.arrays, model=model)

    def play(self, games: int, rng: np.random.Generator, td_lambda: float = 0.0, explore: float = 0.0
             ) -> tuple[np.ndarray, np.ndarray, int, np.ndarray]:
        """Play ``games`` games with the current network. Returns the visited turn-start states (flat indices),
        their targets, the number of environment steps and the final scores."""
        a = self.arrays
        s = a.space
        C = s.num_categories
        Fs = np.zeros(games, dtype=np.int64)
        us = np.zeros(games, dtype=np.int64)
        ys = np.zeros(games, dtype=np.int64)
        idx = np.empty((C, games), dtype=np.int64)
        start = np.empty((C, games))
        points = np.empty((C, games), dtype=np.int64)
        F2, u2, y2, steps = (np.empty(games, dtype=np.int64) for _ in range(4))
        total_steps = 0
        for t in range(C):
            idx[t] = s.flat(Fs, us, ys)
            self.memo.ensure(Fs, us, ys)
            rand = rng.random((games, 3))
            exp = np.where(rng.random(games) < explore, rng.random(games), -1.0) if explore > 0 else np.full(
                games, -1.0)
            play_turns(*a.tables, self.memo.E, Fs, us, ys, *a.dims(), _KEEP_MASK, K.PATTERN_KEEP, _HAND_CUM,
                       _TRANS_CUM, rand, exp, start[t], points[t], F2, u2, y2, steps)
            total_steps += int(steps.sum())
            Fs, us, ys = F2.copy(), u2.copy(), y2.copy()
        # lambda-return, backwards: G_t = (1 - lam) * start_t + lam * (points_t + G_{t+1}), G_C = 0
        targets = np.empty((C, games))
        nxt = np.zeros(games)
        for t in range(C - 1, -1, -1):
            nxt = (1.0 - td_lambda) * start[t] + td_lambda * (points[t] + nxt)
            targets[t] = nxt
        return idx.reshape(-1), targets.reshape(-1), total_steps, points.sum(axis=0)


def _lr_at(value: float | str, fraction_done: float) -> float:
    """Learning rate: a number, or ``lin_<start>`` decayed linearly to 0 over the run."""
    if isinstance(value, str):
        return float(value[4:]) * max(1.0 - fraction_done, 0.0)
    return float(value)


def fit(model: ValueNet, optimizer: torch.optim.Optimizer, idx: np.ndarray, targets: np.ndarray, epochs: int,
        batch_size: int, rng: np.random.Generator) -> float:
    """Regress the network on (state, target) pairs; returns the mean squared error in points^2 of the last
    epoch."""
    import torch

    x = torch.from_numpy(model.space.features(idx))
    y = torch.from_numpy((targets / model.value_scale).astype(np.float32))
    net = model.net
    net.train()
    loss_sum = 0.0
    for _ in range(epochs):
        perm = torch.from_numpy(rng.permutation(len(idx)))
        loss_sum = 0.0
        for a in range(0, len(idx), batch_size):
            b = perm[a:a + batch_size]
            pred = net(x[b]).squeeze(1)
            loss = torch.nn.functional.mse_loss(pred, y[b])
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            loss_sum += loss.item() * len(b)
    return loss_sum / max(len(idx), 1) * model.value_scale**2


def train_td(cfg: TrainConfig, run_dir: Path, resume: bool = False, progress: bool = True) -> int:
    """Train a value network by self-play with exact TD targets (see the module docstring), in ``run_dir``.

    The run folder follows ``train.py``: checkpoints/ (``latest.pt``, a torch checkpoint, and periodic
    ``step_N.pt``), ``best_model.pt`` (best periodic evaluation), ``final_model.pt``, ``evaluations.json``, ``tb/``,
    ``eval.json`` (the model named by ``td.final_model`` on ``eval.final_episodes`` games with seeds unseen in
    training and in the periodic evaluations) and ``learning_curve.png``. Ctrl-C saves
    the checkpoint and returns; ``resume`` continues from it.
    """
    import torch
    from tqdm import tqdm

    from agents import train_support as ts
    from agents.evaluation import evaluate

    rs = get_rules(cfg.rules)
    td = cfg.td  # validated by TDConfig.__post_init__ when the config was read
    torch.manual_seed(cfg.seed)
    model = ValueNet(rs, td.hidden, td.activation, td.value_scale)
    optimizer = torch.optim.Adam(model.net.parameters(), lr=_lr_at(td.learning_rate, 0.0))
    rng = np.random.default_rng(cfg.seed)
    counters = {"iteration": 0, "timesteps": 0, "games": 0, "train_seconds": 0.0}
    latest = run_dir / ts.LATEST["td"]  # the torch checkpoint train.py --resume looks for

    def save_checkpoint(path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(str(path) + ".tmp")
        torch.save({"meta": model.meta(), "state_dict": model.net.state_dict(), "optimizer": optimizer.state_dict(),
                    "counters": dict(counters), "rng": rng.bit_generator.state,
                    "torch_rng": torch.get_rng_state()}, tmp)
        tmp.replace(path)

    if resume:
        ck = torch.load(latest, map_location="cpu", weights_only=False)
        if ck["meta"] != model.meta():
            raise ValueError(f"{str(latest)!r} does not match the run's config: {ck['meta']} vs {model.meta()}")
        model.net.load_state_dict(ck["state_dict"])
        optimizer.load_state_dict(ck["optimizer"])
        counters.update(ck["counters"])
        rng.bit_generator.state = ck["rng"]
        torch.set_rng_state(ck["torch_rng"])
        print(f"resuming at step {counters['timesteps']:,} of {cfg.total_timesteps:,} "
              f"({counters['games']:,} games)")

    evals = ts.load_evaluations(run_dir)
    best = max((e["mean"] for e in evals), default=float("-inf"))
    writer = None
    try:
        from torch.utils.tensorboard import SummaryWriter

        writer = SummaryWriter(str(run_dir / "tb"))
    except ImportError:
        pass
    total = cfg.total_timesteps
    next_eval = (counters["timesteps"] // cfg.eval.freq + 1) * cfg.eval.freq
    next_ckpt = (counters["timesteps"] // cfg.checkpoint_freq + 1) * cfg.checkpoint_freq
    bar = tqdm(total=total, initial=min(counters["timesteps"], total), unit="step", disable=not progress,
               dynamic_ncols=True)

    def run_evaluation() -> None:
        nonlocal best
        agent = TDAgent(rs, model=model, name="td")
        res = evaluate(agent, rs, cfg.eval.episodes, cfg.eval.seed, regret=False, progress=False)
        evals.append({"timesteps": counters["timesteps"], "mean": res["mean"],
                      "percent_of_optimal": res["percent_of_optimal"], "games": counters["games"],
                      "train_seconds": counters["train_seconds"], "time": time.time()})
        ts.save_evaluations(run_dir, evals)
        if writer is not None:
            writer.add_scalar("eval/mean_score", res["mean"], counters["timesteps"])
            writer.add_scalar("eval/percent_of_optimal", res["percent_of_optimal"], counters["timesteps"])
            writer.flush()
        if res["mean"] > best:
            best = res["mean"]
            model.save(run_dir / "best_model.pt", {"timesteps": counters["timesteps"], "eval_mean": res["mean"]})
        bar.set_postfix_str(f"eval {res['mean']:.1f} ({res['percent_of_optimal']:.2f}% of optimal)")

    try:
        player = SelfPlay(model)  # compiles the kernels on a first run: inside the try, so Ctrl-C is clean here too
        while counters["timesteps"] < total:
            t0 = time.perf_counter()
            lr = _lr_at(td.learning_rate, counters["timesteps"] / total)
            for g in optimizer.param_groups:
                g["lr"] = lr
            idx, targets, steps, scores = player.play(td.games_per_iteration, rng, td.td_lambda, td.explore)
            mse = fit(model, optimizer, idx, targets, td.epochs_per_iteration, td.batch_size, rng)
            player.memo.clear()
            counters["iteration"] += 1
            counters["timesteps"] += steps
            counters["games"] += td.games_per_iteration
            counters["train_seconds"] += time.perf_counter() - t0
            bar.update(min(counters["timesteps"], total) - bar.n)
            if writer is not None and counters["iteration"] % 10 == 0:
                writer.add_scalar("train/mse", mse, counters["timesteps"])
                writer.add_scalar("train/self_play_score", float(scores.mean()), counters["timesteps"])
                writer.add_scalar("train/learning_rate", lr, counters["timesteps"])
            if counters["timesteps"] >= next_eval:
                next_eval += cfg.eval.freq
                run_evaluation()
            if counters["timesteps"] >= next_ckpt:
                next_ckpt += cfg.checkpoint_freq
                save_checkpoint(run_dir / "checkpoints" / f"step_{counters['timesteps']}.pt")
    except KeyboardInterrupt:
        save_checkpoint(latest)
        bar.close()
        print(f"\ninterrupted at step {counters['timesteps']:,}: checkpoint saved. Continue with:\n"
              f"  python train.py --resume {run_dir}")
        return 0
    save_checkpoint(latest)
    model.save(run_dir / "final_model.pt", {"timesteps": counters["timesteps"]})
    if not evals or evals[-1]["timesteps"] != counters["timesteps"]:
        run_evaluation()
    bar.close()
    if writer is not None:
        writer.close()

    # ---- final evaluation on seeds unseen in training and in the periodic evaluations -----------------------------
    # td.final_model "final": the last network (the learning rate has decayed to 0); 1,000-game means cannot tell
    # late checkpoints apart, so "best" mostly picks the luckiest evaluation. "best": as train.py does for PPO.
    chosen = f"{td.final_model}_model.pt"
    agent = load_td_agent(run_dir / chosen, rs)
    result = evaluate(agent, rs, cfg.eval.final_episodes, cfg.eval.seed + 10_000_000, regret=False,
                      progress=progress)
    result.update(agent=chosen, training_timesteps=counters["timesteps"], training_games=counters["games"],
                  training_seconds=counters["train_seconds"])
    (run_dir / "eval.json").write_text(json.dumps(result, indent=1))
    ts.plot_learning_curve(evals, run_dir / "learning_curve.png", f"TD expectimax on {rs.name}")
    half = result["ci95"][1] - result["mean"]
    print(f"{rs.name}: {chosen} scores {result['mean']:.2f} ± {half:.2f} over {result['episodes']:,} games = "
          f"{result['percent_of_optimal']:.2f}% of optimal ({result['optimal_value']:.4f}); trained "
          f"{counters['games']:,} games in {counters['train_seconds']:.0f} s (self-play and updates)")
    return 0 if math.isfinite(result["mean"]) else 1
