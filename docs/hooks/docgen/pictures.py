"""The site's pictures, drawn from the code and committed under ``docs/img/`` (``python docs/hooks/generate.py``
redraws those whose data changed): an animation of a game of each rule set from the environment's ``rgb_array``
frames, the exact score distribution and P*(T) curve of every rule set (solved where that takes about a second, else
from the curves recorded in ``docs/records``), the learning curves of the shipped agents from their run records, the
score of every shipped agent against its learning time, a regret chart and a replay page.

:data:`PICTURES` maps each file's path under ``docs/`` to a :class:`Picture`: the data it is drawn from and the
function that draws it. :func:`digest` hashes the data with the drawing code's source; ``docs/img/pictures.json``
keeps each committed picture's digest, so a picture whose data or drawing code changed is found stale without
comparing pixels (which differ between builds of matplotlib and Pillow).
"""

from __future__ import annotations

import hashlib
import inspect
import io
import json
from collections.abc import Callable
from functools import cache, partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from docgen.bench import bench_records

if TYPE_CHECKING:
    from yacht_tools.objective_records import Curves

ROOT = Path(__file__).resolve().parents[3]
RECORDS = ROOT / "docs" / "records"
MODELS = ROOT / "agents" / "models"
GAME_SEED = 0  # the game each animation shows: the single environment seeded with 0
REPLAY = ("greedy", "yacht", 7)  # the replay page the evaluation page embeds: agent, rules, seed
REGRET_GAMES = 1_000  # games of the regret chart (greedy on Yacht, seed 0)
# every rule set, as the Rules page
RULE_ORDER = ("yacht", "yahtzee", "yahtzee-free-joker", "yatzy", "knizia", "clubhouse")
SMALL_RULES = ("yacht", "knizia")  # whose distribution and reach tables a build solves (about a second each)
# picture -> (title, the shipped agents whose run records it draws)
LEARNING_CURVES = {
    "img/learning-curve-td-yacht.png": ("python train.py: TD expectimax on Yacht (the shipped td-yacht)",
                                        ("td-yacht",)),
    "img/learning-curves-td.png": ("TD expectimax with the dice model: the shipped td-* agents",
                                   ("td-yacht", "td-yahtzee", "td-yatzy", "td-clubhouse")),
    "img/learning-curves-ppo.png": ("MaskablePPO, plain policy network (model-free): the shipped ppo-* agents",
                                    ("ppo-yacht", "ppo-yahtzee", "ppo-yatzy")),
    "img/learning-curves-ppo-expectimax.png": ("MaskablePPO over the turn's expectimax: the shipped "
                                               "ppo-expectimax-* agents",
                                               ("ppo-expectimax-yacht", "ppo-expectimax-yahtzee")),
}
# the target each reach picture marks: the one of the page's commands (python benchmarks/objective_curves.py --rules R
# --record records the other rule sets' curves; their tables take 12 to 22 minutes each)
REACH_TARGETS = {"yacht": 200, "yahtzee": 300, "yahtzee-free-joker": 300, "yatzy": 300, "knizia": 200,
                 "clubhouse": 200}


PNG_COLOURS = 64  # a figure's PNG as a palette of this many colours: a quarter of the bytes, the same look


def _png(fig: Any) -> bytes:
    """A figure as a small PNG: drawn at 100 dpi, then reduced to :data:`PNG_COLOURS` colours (no dithering)."""
    from PIL import Image

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100)
    image = Image.open(io.BytesIO(buf.getvalue())).convert("RGB")
    small = image.quantize(colors=PNG_COLOURS, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    out = io.BytesIO()
    small.save(out, format="PNG", optimize=True)
    return out.getvalue()


def game_actions(rules: str) -> list[int]:
    """The decisions of the greedy agent in the game each animation shows (the environment seeded with
    :data:`GAME_SEED`)."""
    import gymnasium as gym
    import numpy as np

    import yacht_env
    from yacht_agents.loader import load_agent

    env = gym.make(yacht_env.ENV_IDS[rules])
    agent = load_agent("greedy", rules)
    obs, info = env.reset(seed=GAME_SEED)
    actions: list[int] = []
    done = False
    while not done:
        actions.append(int(agent.act(obs, np.asarray(info["action_mask"], dtype=bool), env.unwrapped.state)))
        obs, _, terminated, truncated, info = env.step(actions[-1])
        done = terminated or truncated
    env.close()
    return actions


def game_animation(rules: str, actions: list[int]) -> bytes:
    """A GIF of the game of :func:`game_actions`, a frame per decision from ``render_mode="rgb_array"``."""
    import gymnasium as gym
    import numpy as np
    from PIL import Image

    import yacht_env

    env = gym.make(yacht_env.ENV_IDS[rules], render_mode="rgb_array")
    env.reset(seed=GAME_SEED)
    frames = [env.render()]
    for action in actions:
        env.step(action)
        frames.append(env.render())
    env.close()
    # one palette for the whole game, from its first, middle and last frames (the frames share their colours)
    sample = Image.fromarray(np.concatenate([frames[0], frames[len(frames) // 2], frames[-1]]))
    palette = sample.quantize(colors=48, method=Image.Quantize.MEDIANCUT)
    images = [Image.fromarray(f).quantize(palette=palette, dither=Image.Dither.NONE) for f in frames]
    buf = io.BytesIO()
    durations = [700] * (len(images) - 1) + [4000]  # the final scorecard stays a while before the loop restarts
    images[0].save(buf, format="GIF", save_all=True, append_images=images[1:], duration=durations, loop=0)
    return buf.getvalue()


@cache
def objective_curves(rules: str) -> Curves:
    """A new game's distribution and P*(T) curve: solved for :data:`SMALL_RULES`, else the recorded ones (read and
    checked by :func:`yacht_tools.objective_records.read_record`)."""
    from yacht_solver import score_distribution, solve_reach
    from yacht_tools.objective_records import Curves, read_record

    if rules in SMALL_RULES:
        return Curves(rules, score_distribution(rules), solve_reach(rules).curve())
    return read_record(rules, RECORDS)[0]


def distribution_picture(rules: str, probabilities: Any) -> bytes:
    """The exact score distribution of optimal play (``yacht solve --distribution --plot``)."""
    from yacht_env.rules import get_rules
    from yacht_tools.objective_plots import distribution_figure

    return _png(distribution_figure(probabilities, f"{get_rules(rules).title}: final score of optimal play"))


def reach_curves(rules: str) -> tuple[Any, Any]:
    """P*(T) and the expected-score player's P(final >= T)."""
    c = objective_curves(rules)
    return c.best, c.dist.at_least()


def reach_picture(rules: str, curves: tuple[Any, Any]) -> bytes:
    """P*(T) beside the expected-score player's P(final >= T) (``yacht solve --objective reach --plot``)."""
    from yacht_env.rules import get_rules
    from yacht_tools.objective_plots import reach_figure

    best, expected_player = curves
    return _png(reach_figure(best, expected_player, f"{get_rules(rules).title}: the best chance of reaching T "
                             "points", REACH_TARGETS[rules]))


def shipped_record(agent: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """A shipped agent's periodic evaluations (its run's ``evaluations.json``, shipped as
    ``docs/records/AGENT-evaluations.json``) and its card (``agents/models/AGENT.json``)."""
    evals = json.loads((RECORDS / f"{agent}-evaluations.json").read_text(encoding="utf-8"))
    card = json.loads((MODELS / f"{agent}.json").read_text(encoding="utf-8"))
    return evals, card


def periodic_games(card: dict[str, Any]) -> int:
    """Games of each periodic evaluation: ``eval.episodes`` of the config the card names."""
    import yaml

    return int(yaml.safe_load((ROOT / card["config"]).read_text(encoding="utf-8"))["eval"]["episodes"])


def shipped_runs(agents: tuple[str, ...]) -> list[tuple[str, list[dict[str, Any]], dict[str, Any], int]]:
    """Each agent with its periodic evaluations, its final evaluation and the games of each periodic one."""
    out = []
    for agent in agents:
        evals, card = shipped_record(agent)
        out.append((agent, evals, card["final_eval"], periodic_games(card)))
    return out


def learning_curves(title: str, runs: list[tuple[str, list[dict[str, Any]], dict[str, Any], int]]) -> bytes:
    """Percent of optimal play of each shipped agent's run against training steps and against learning seconds
    (self-play or rollouts and updates; the periodic evaluations not counted), from its run record; the star is
    the final evaluation of its card, on 10,000 games that neither training nor the periodic evaluations played."""
    from matplotlib.ticker import FuncFormatter

    from yacht_tools.plots import figure

    fig = figure((11, 4.4 + 0.45 * len(runs)), what="the learning curves")
    axes = fig.subplots(1, 2)
    for i, (agent, evals, final, games) in enumerate(runs):
        colour, star = (f"C{i}", f"C{i}") if len(runs) > 1 else ("C0", "C3")
        for ax, key in zip(axes, ("timesteps", "learning_s")):
            x = [e[key] for e in evals]
            ax.plot(x, [e["percent_of_optimal"] for e in evals], marker="o", markersize=3, color=colour,
                    label=f"{agent}: periodic evaluations, the same {games:,} games each time")
            ax.plot([x[-1]], [final["percent_of_optimal"]], "*", markersize=12, color=star,
                    markeredgecolor="black", markeredgewidth=0.5,
                    label=f"{agent}: final evaluation, {final['episodes']:,} unseen games, "
                          f"{final['percent_of_optimal']:.2f}%")
    for ax, label in zip(axes, ("training steps (decisions played)", "learning seconds")):
        ax.axhline(100.0, color="grey", linestyle="--", linewidth=1, label="optimal play: 100%")
        ax.set_xlabel(label)
        ax.set_ylabel("mean final score (% of optimal play)")
        ax.grid(alpha=0.3)
    axes[0].xaxis.set_major_formatter(FuncFormatter(lambda x, _: f"{x / 1e6:g}M"))
    handles, labels = axes[0].get_legend_handles_labels()  # the two panels draw the same lines
    fig.legend(handles, labels, loc="outside lower center", ncols=2 if len(runs) > 1 else 1, frameon=False,
               fontsize=9)
    fig.suptitle(title)
    return _png(fig)


def agent_cards() -> list[tuple[str, float, float]]:
    """Every shipped agent's name, recorded training time (s) and final evaluation (percent of optimal)."""
    cards = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(MODELS.glob("*.json"))]
    return [(c["agent"], c["training_wall_s"], c["final_eval"]["percent_of_optimal"]) for c in cards]


def agents_time_to_quality(cards: list[tuple[str, float, float]]) -> bytes:
    """Every shipped agent's final evaluation (percent of optimal) against its recorded training time."""
    from yacht_tools.plots import figure, legend_below

    fig = figure((9, 5), what="the agents' chart")
    ax = fig.add_subplot()
    for i, (agent, seconds, percent) in enumerate(cards):
        ax.plot([seconds / 60], [percent], "o^sDvP*X"[i % 8], markersize=8, color=f"C{i % 10}", label=agent)
    ax.axhline(100.0, color="grey", linestyle="--", linewidth=1)
    ax.set_xscale("log")
    ax.set_xlabel("learning time recorded on the card (minutes, log scale)")
    ax.set_ylabel("final evaluation (% of optimal play)")
    ax.set_title("The shipped agents: quality against learning time")
    ax.grid(alpha=0.3)
    legend_below(ax, ncols=4)
    return _png(fig)


def regret_result() -> dict[str, Any]:
    """``yacht eval --agent greedy --rules yacht --episodes 1000 --seed 0``'s result, without its wall time."""
    from yacht_tools.evaluation import evaluate

    result = evaluate("greedy", "yacht", REGRET_GAMES, 0)
    result.pop("elapsed_s", None)
    return result


def regret_chart(result: dict[str, Any]) -> bytes:
    """``yacht eval --agent greedy --rules yacht --episodes 1000 --seed 0 --plot FILE``: scores and regret."""
    from yacht_tools.report import scores_figure

    return _png(scores_figure(result))


def replay_page() -> bytes:
    """``yacht replay --agent greedy --rules yacht --seed 7 --format html``: the game as a page of its own."""
    from yacht_tools.replay import replay_game
    from yacht_tools.replay_page import page_html

    agent, rules, seed = REPLAY
    return page_html(replay_game(agent, rules, seed), "en").encode("utf-8")


def bench_picture(records: list[dict[str, Any]]) -> bytes:
    """The learning curves of the benchmark's baseline records (``yacht bench report --plot``)."""
    from yacht_tools.protocol_report import curves_figure

    return _png(curves_figure(records))


def bench_profiles_picture(records: list[dict[str, Any]]) -> bytes:
    """The performance profiles of the benchmark's baseline records (``yacht bench report --profiles``)."""
    from yacht_tools.protocol_report import profiles_figure

    return _png(profiles_figure(records))


def _same(data: bytes) -> bytes:
    return data


class Picture(NamedTuple):
    """A committed picture: the data it is drawn from, the function that draws it, and the code whose source
    :func:`digest` hashes with the data (a change there makes the picture stale too)."""

    data: Callable[[], Any]
    draw: Callable[[Any], bytes]
    code: tuple[str, ...]  # dotted names of modules or functions


def _canonical(x: Any) -> Any:
    """Data as JSON-able values, floats to 10 significant digits (the last bits differ between processors)."""
    import numpy as np

    if isinstance(x, np.ndarray):
        return _canonical(x.tolist())
    if isinstance(x, np.generic):
        return _canonical(x.item())
    if isinstance(x, float):
        return format(x, ".10g")
    if isinstance(x, bytes):
        return hashlib.sha256(x).hexdigest()
    if isinstance(x, dict):
        return {str(k): _canonical(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_canonical(v) for v in x]
    return x


def digest(picture: Picture, data: Any) -> str:
    """The SHA-256 of a picture's data and of its drawing code's source: what ``docs/img/pictures.json`` records."""
    h = hashlib.sha256(json.dumps(_canonical(data), sort_keys=True).encode("utf-8"))
    draw = picture.draw.func if isinstance(picture.draw, partial) else picture.draw
    for source in (inspect.getsource(draw), *(_source(name) for name in picture.code)):
        h.update(source.encode("utf-8"))
    return h.hexdigest()


def distribution_probabilities(rules: str) -> Any:
    """The probability of each final score of optimal play."""
    return objective_curves(rules).dist.probabilities


def _source(name: str) -> str:
    """The source of a module or of a module's function, by dotted name."""
    import importlib

    try:
        return inspect.getsource(importlib.import_module(name))
    except ModuleNotFoundError:
        module, _, attr = name.rpartition(".")
        return inspect.getsource(getattr(importlib.import_module(module), attr))


def render(picture: Picture) -> tuple[bytes, str]:
    """A picture's bytes and its :func:`digest`."""
    data = picture.data()
    return picture.draw(data), digest(picture, data)


_PNG = "docgen.pictures._png"
_PLOTS = "yacht_tools.plots"
PICTURES: dict[str, Picture] = {
    **{f"img/game-{r}.gif": Picture(partial(game_actions, r), partial(game_animation, r), ("yacht_env.frames",))
       for r in RULE_ORDER},
    **{f"img/distribution-{r}.png": Picture(partial(distribution_probabilities, r), partial(distribution_picture, r),
                                            ("yacht_tools.objective_plots.distribution_figure", _PLOTS, _PNG))
       for r in RULE_ORDER},
    **{f"img/reach-{r}.png": Picture(partial(reach_curves, r), partial(reach_picture, r),
                                     ("yacht_tools.objective_plots.reach_figure", _PLOTS, _PNG)) for r in RULE_ORDER},
    **{path: Picture(partial(shipped_runs, agents), partial(learning_curves, title), (_PLOTS, _PNG))
       for path, (title, agents) in LEARNING_CURVES.items()},
    "img/agents-time-to-quality.png": Picture(agent_cards, agents_time_to_quality, (_PLOTS, _PNG)),
    "img/regret-greedy-yacht.png": Picture(regret_result, regret_chart, ("yacht_tools.report.scores_figure", _PLOTS,
                                                                         _PNG)),
    "replays/greedy-yacht-seed7.html": Picture(replay_page, _same, ()),
    "img/bench-curves.png": Picture(bench_records, bench_picture, ("yacht_tools.protocol_report.curves_figure",
                                                                   _PLOTS, _PNG)),
    "img/bench-profiles.png": Picture(bench_records, bench_profiles_picture, (
        "yacht_tools.protocol_report.profiles_figure", "yacht_tools.protocol_stats.performance_profile", _PLOTS, _PNG)),
}
"""Path under ``docs/`` -> the picture committed there."""
