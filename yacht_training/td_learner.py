"""Training of the model-based TD agent (:mod:`yacht_agents.td_agent`): self-play with exact TD targets.

Self-play games, many in lockstep. The TD(0) target of a visited turn-start state ``s`` is the exact expectation
over its turn, ``E_dice[max(points + V(successor))]``: the start value of the turn search, computed anyway to play the
turn (:func:`yacht_solver.search.turn_search.turn_values`). With ``td_lambda > 0`` it is mixed with the realised points
of the rest of the game (lambda-return). The network never sees the exact solver's value table; the solver only measures
the agent (percent of optimal). With ``players: 2`` the network values the chance to win of the game of two and the
self-play is :mod:`yacht_training.td_heads_up`'s; the rest of the run (checkpoints, evaluations, budget) is this one.
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from yacht_agents.nets import load_torch_file
from yacht_agents.td_agent import TDAgent, ValueMemo, ValueNet
from yacht_agents.td_win import TDWinAgent, WinNet, load_td_model
from yacht_env.actions import KEEP_MASK_UNIQUE
from yacht_env.files import write_atomic
from yacht_env.rules import get_rules
from yacht_env.state import longest_game
from yacht_solver.search import turn_search as T
from yacht_solver.search.turn_constants import Starts, search_constants
from yacht_solver.self_play import TurnOutcomes, play_turns, turn_draws
from yacht_training.optimizer_state import describe_differences, load_optimizer_state
from yacht_training.td_heads_up import HeadsUpSelfPlay

if TYPE_CHECKING:
    import torch

    from yacht_training.config import TrainConfig

_KEEP_MASK = np.ascontiguousarray(KEEP_MASK_UNIQUE)


class SelfPlay:
    """Lockstep self-play with exact turn expectations as TD targets."""

    def __init__(self, model: ValueNet) -> None:
        self.model = model
        self.constants = search_constants(model.rules)
        self.memo = ValueMemo(model.rules, model=model)

    def network_changed(self) -> None:
        """Forget the values memoised from the network (after an update)."""
        self.memo.clear()

    def play(self, games: int, rng: np.random.Generator, td_lambda: float = 0.0, explore: float = 0.0
             ) -> tuple[np.ndarray, np.ndarray, int, np.ndarray]:
        """Play ``games`` games with the current network. Returns the visited turn-start states (flat indices),
        their targets, the number of environment steps and the final scores."""
        s = self.memo.space
        C = s.num_categories
        Fs = np.zeros(games, dtype=np.int64)
        us = np.zeros(games, dtype=np.int64)
        ys = np.zeros(games, dtype=np.int64)
        idx = np.empty((C, games), dtype=np.int64)
        start = np.empty((C, games))
        points = np.empty((C, games), dtype=np.int64)
        F2, u2, y2, steps = (np.empty(games, dtype=np.int64) for _ in range(4))
        keeps = T.empty_keep_values(games)
        total_steps = 0
        for t in range(C):
            idx[t] = s.flat(Fs, us, ys)
            self.memo.ensure(Fs, us, ys)
            draws = turn_draws(rng, games, explore)
            E = self.memo.E
            starts = Starts(Fs, us, ys)
            T.turn_values(self.constants, E, starts, keeps, start[t])  # start: the TD(0) targets
            play_turns(self.constants, E, starts, keeps, _KEEP_MASK, draws,
                       TurnOutcomes(points[t], F2, u2, y2, steps))
            total_steps += int(steps.sum())
            Fs, us, ys = F2.copy(), u2.copy(), y2.copy()
        # lambda-return, backwards: G_t = (1 - lam) * start_t + lam * (points_t + G_{t+1}), G_C = 0
        targets = np.empty((C, games))
        nxt = np.zeros(games)
        for t in range(C - 1, -1, -1):
            nxt = (1.0 - td_lambda) * start[t] + td_lambda * (points[t] + nxt)
            targets[t] = nxt
        return idx.reshape(-1), targets.reshape(-1), total_steps, points.sum(axis=0)


def last_games(games: int, left: int, longest: int) -> int:
    """Games of the next self-play iteration: ``games``, or as many as cannot pass the ``left`` steps of the budget
    (each at most ``longest`` steps), so that a run stops within one game of its budget and never past it."""
    return min(games, max(left, 0) // longest)


def _lr_at(value: float | str, fraction_done: float) -> float:
    """Learning rate: a number, or ``lin_<start>`` decayed linearly to 0 over the run."""
    if isinstance(value, str):
        return float(value[4:]) * max(1.0 - fraction_done, 0.0)
    return float(value)


def fit(model: ValueNet, optimizer: torch.optim.Optimizer, idx: np.ndarray, targets: np.ndarray, epochs: int,
        batch_size: int, rng: np.random.Generator) -> float:
    """Regress the network on (what it values, target) pairs; returns the mean squared error of the last epoch, in
    points^2 for one player (in squared chances to win for two)."""
    import torch

    x = torch.from_numpy(model.features(idx))
    y = torch.from_numpy((targets / model.value_scale).astype(np.float32))
    net = model.net
    net.train()
    loss_sum = 0.0
    for _ in range(epochs):
        perm = torch.from_numpy(rng.permutation(len(idx)))
        loss_sum = 0.0
        for a in range(0, len(idx), batch_size):
            b = perm[a:a + batch_size]
            pred = model.output(x[b])
            loss = torch.nn.functional.mse_loss(pred, y[b])
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            loss_sum += loss.item() * len(b)
    return loss_sum / max(len(idx), 1) * model.value_scale**2


def train_td(cfg: TrainConfig, run_dir: Path, resume: bool = False, progress: bool = True,
             on_resumed: Callable[[], None] | None = None) -> int:
    """Train a value network by self-play with exact TD targets (see the module docstring), in ``run_dir``.

    The run folder follows ``train.py`` (:mod:`yacht_training.run_folder`): ``checkpoints/step_N.pt`` (torch
    checkpoints of plain tensors and numbers, periodic and at the end or on Ctrl-C), ``best_model.pt`` (best periodic
    evaluation), ``final_model.pt``, ``evaluations.json``, ``tb/``, ``eval.json`` (the model named by
    ``td.final_model`` on ``eval.final_episodes`` games with seeds unseen in training and in the periodic
    evaluations) and ``learning_curve.png``. Ctrl-C saves a checkpoint and returns; ``resume`` continues from the
    newest checkpoint that loads.
    """
    import torch

    from yacht_tools.evaluation import evaluate
    from yacht_tools.heads_up_eval import win_evaluation, win_line
    from yacht_tools.progress import progress_bar
    from yacht_training import run_folder as ts

    rs = get_rules(cfg.rules)
    td = cfg.td  # validated by TDConfig.__post_init__ when the config was read
    torch.manual_seed(cfg.seed)
    heads_up = cfg.players == 2
    model = (WinNet if heads_up else ValueNet)(rs, td.hidden, td.activation, td.value_scale)
    optimizer = torch.optim.Adam(model.net.parameters(), lr=_lr_at(td.learning_rate, 0.0))
    rng = np.random.default_rng(cfg.seed)
    counters = {"iteration": 0, "timesteps": 0, "games": 0, "train_seconds": 0.0}

    def save_checkpoint() -> None:
        data = {"meta": model.meta(), "state_dict": model.net.state_dict(), "optimizer": optimizer.state_dict(),
                "counters": dict(counters), "rng": rng.bit_generator.state, "torch_rng": torch.get_rng_state()}
        path = ts.checkpoint_path(run_dir, cfg, counters["timesteps"])
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, lambda f: torch.save(data, f))

    differences: dict[str, tuple[Any, Any]] = {}

    def load_checkpoint(path: Path) -> None:
        differences.clear()
        try:  # plain tensors and numbers only: nothing in the file can run code
            ck = load_torch_file(path)
            meta = ck["meta"]
        except (OSError, ValueError, KeyError, TypeError) as e:  # any unreadable file: the caller tries an older one
            raise ValueError(f"not a readable checkpoint: {e}") from None
        if meta != model.meta():
            raise ValueError(f"it does not match the run's config: {meta} vs {model.meta()}")
        checked = ts.checked_counters(ck.get("counters"), counters)
        state = ck.get("rng")
        if not isinstance(state, dict) or state.get("bit_generator") != type(rng.bit_generator).__name__:
            raise ValueError(f"its generator state is not a {type(rng.bit_generator).__name__} state")
        model.net.load_state_dict(ck["state_dict"])
        differences.update(load_optimizer_state(optimizer, ck.get("optimizer"), "its optimizer state"))
        try:
            rng.bit_generator.state = state
            torch.set_rng_state(ck["torch_rng"])
        except (TypeError, ValueError, KeyError, RuntimeError) as e:
            raise ValueError(f"its generator states do not load: {e}") from None
        counters.update(checked)

    if resume:
        _, path = ts.load_newest(run_dir, cfg, load_checkpoint, on_resumed)
        print(f"resuming from {path.name} at step {counters['timesteps']:,} of {cfg.total_timesteps:,} "
              f"({counters['games']:,} games)")
        if differences:
            print(f"train.py: {path.name} has other optimizer settings than the config, the config's are kept: "
                  f"{describe_differences(differences)}", file=sys.stderr)

    evals = ts.evaluations_until(run_dir, counters["timesteps"])
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
    bar = progress_bar(total, "td", "step", enabled=progress, initial=min(counters["timesteps"], total))

    def run_evaluation() -> None:
        nonlocal best
        if heads_up:
            res = win_evaluation(TDWinAgent(rs, model=model, name="td"), rs, cfg.eval.episodes, cfg.eval.seed)
        else:
            res = evaluate(TDAgent(rs, model=model, name="td"), rs, cfg.eval.episodes, cfg.eval.seed, regret=False,
                           progress=False)
        ts.record_evaluation(run_dir, evals, counters["timesteps"], res, counters["train_seconds"], writer,
                             games=counters["games"])
        if res["mean"] > best:
            best = res["mean"]
            model.save(run_dir / "best_model.pt", {"timesteps": counters["timesteps"], "eval_mean": res["mean"]})
        bar.set_postfix_str(f"eval {res['mean']:.3f} (win rate)" if heads_up else
                            f"eval {res['mean']:.1f} ({res['percent_of_optimal']:.2f}% of optimal)")

    try:
        # compiles the kernels on a first run: inside the try, so Ctrl-C is clean here too
        player = HeadsUpSelfPlay(model) if heads_up else SelfPlay(model)
        while counters["timesteps"] < total:
            t0 = time.perf_counter()
            lr = _lr_at(td.learning_rate, counters["timesteps"] / total)
            for g in optimizer.param_groups:
                g["lr"] = lr
            games = (last_games(td.games_per_iteration, total - counters["timesteps"], longest_game(rs) * cfg.players)
                     if cfg.exact_budget else td.games_per_iteration)
            if games == 0:  # fewer steps left than the longest game: the budget is spent
                break
            idx, targets, steps, scores = player.play(games, rng, td.td_lambda, td.explore)
            mse = fit(model, optimizer, idx, targets, td.epochs_per_iteration, td.batch_size, rng)
            player.network_changed()
            counters["iteration"] += 1
            counters["timesteps"] += steps
            counters["games"] += games
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
                save_checkpoint()
    except KeyboardInterrupt:  # between two updates the counters and the network agree: save them
        save_checkpoint()
        bar.close()
        print(f"\ninterrupted at step {counters['timesteps']:,}: checkpoint saved. Continue with:\n"
              f"  python train.py --resume {run_dir}")
        return 130  # the shell's status for SIGINT, as everywhere else: a script sees it stopped
    save_checkpoint()
    model.save(run_dir / "final_model.pt", {"timesteps": counters["timesteps"]})
    try:
        if not evals or evals[-1]["timesteps"] != counters["timesteps"]:
            run_evaluation()
        bar.close()
        if writer is not None:
            writer.close()
        result = _final_evaluation(cfg, run_dir, progress)
    except KeyboardInterrupt:
        bar.close()
        print(f"\ninterrupted during the final evaluation; the model is saved. Evaluate it with:\n"
              f"  python train.py --resume {run_dir}", file=sys.stderr)
        return 130
    result.update(training_timesteps=counters["timesteps"], training_games=counters["games"],
                  training_wall_s=counters["train_seconds"])
    ts.write_json(run_dir / "eval.json", result)
    title = f"TD expectimax on {rs.name}" + (": win rate against optimal, % of an even share" if heads_up else "")
    ts.plot_learning_curve(evals, run_dir / "learning_curve.png", title, final=result,
                           final_steps=counters["timesteps"], periodic_games=cfg.eval.episodes)
    line = win_line(rs.name, result["agent"], result) if heads_up else score_line(rs.name, result)
    print(f"{line}; trained {counters['games']:,} games in {counters['train_seconds']:.0f} s "
          "(self-play and updates)")
    return 0 if math.isfinite(result["mean"]) else 1


def score_line(rules_name: str, result: dict[str, Any]) -> str:
    """The final evaluation as the last line of ``train.py`` gives it (the README quotes it): the mean, the half-width
    of its 95% interval, the games and the percent of optimal play."""
    half = result["ci95"][1] - result["mean"]
    return (f"{rules_name}: {result['agent']} scores {result['mean']:.2f} ± {half:.2f} over {result['episodes']:,} "
            f"games = {result['percent_of_optimal']:.2f}% of optimal ({result['optimal_value']:.4f})")


def _final_evaluation(cfg: TrainConfig, run_dir: Path, progress: bool) -> dict[str, Any]:
    """The model ``td.final_model`` names on ``eval.final_episodes`` games with seeds unseen in training and in the
    periodic evaluations. "final": the last network (the learning rate has decayed to 0); 1,000-game means cannot
    tell late checkpoints apart, so "best" mostly picks the luckiest evaluation."""
    from yacht_tools.evaluation import evaluate
    from yacht_tools.heads_up_eval import win_evaluation

    chosen = f"{cfg.td.final_model}_model.pt"
    agent = load_td_model(run_dir / chosen, cfg.rules)
    seed = cfg.eval.seed + 10_000_000
    if cfg.players == 2:
        result = win_evaluation(agent, cfg.rules, cfg.eval.final_episodes, seed, progress=progress)
    else:
        result = evaluate(agent, cfg.rules, cfg.eval.final_episodes, seed, regret=False, progress=progress)
    result["agent"] = chosen
    return result
