"""The site's pictures, drawn from the code at every build (so none can go stale): an animation of a game of each
rule set from the environment's ``rgb_array`` frames, the exact score distribution and P*(T) curve of every rule set
(solved in the build where that takes about a second, else from the curves recorded in ``docs/records``), the
learning curves of the shipped agents from their run records, the score of
every shipped agent against its learning time, a regret chart and a replay page.

:data:`PICTURES` maps each file's path in the site to the function that makes its bytes; the hook adds them to the
site's files before the pages are read, so a page links them as any other file (``![...](img/game-yacht.gif)``).
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from docgen.bench import bench_curves

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


def _png(fig: Any) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100)
    return buf.getvalue()


def game_animation(rules: str) -> bytes:
    """A GIF of one game of the greedy agent, a frame per decision from ``render_mode="rgb_array"``."""
    import gymnasium as gym
    import numpy as np
    from PIL import Image

    import yacht_env
    from yacht_agents.loader import load_agent

    env = gym.make(yacht_env.ENV_IDS[rules], render_mode="rgb_array")
    agent = load_agent("greedy", rules)
    obs, info = env.reset(seed=GAME_SEED)
    frames = [env.render()]
    done = False
    while not done:
        mask = np.asarray(info["action_mask"], dtype=bool)
        obs, _, terminated, truncated, info = env.step(agent.act(obs, mask, env.unwrapped.state))
        done = terminated or truncated
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


def objective_curves(rules: str) -> Curves:
    """A new game's distribution and P*(T) curve: solved for :data:`SMALL_RULES`, else the recorded ones (read and
    checked by :func:`yacht_tools.objective_records.read_record`)."""
    from yacht_solver import score_distribution, solve_reach
    from yacht_tools.objective_records import Curves, read_record

    if rules in SMALL_RULES:
        return Curves(rules, score_distribution(rules), solve_reach(rules).curve())
    return read_record(rules, RECORDS)[0]


def distribution_picture(rules: str) -> bytes:
    """The exact score distribution of optimal play (``yacht solve --distribution --plot``)."""
    from yacht_env.rules import get_rules
    from yacht_tools.objective_plots import distribution_figure

    dist = objective_curves(rules).dist
    return _png(distribution_figure(dist.probabilities, f"{get_rules(rules).title}: final score of optimal play"))


def reach_picture(rules: str) -> bytes:
    """P*(T) beside the expected-score player's P(final >= T) (``yacht solve --objective reach --plot``)."""
    from yacht_env.rules import get_rules
    from yacht_tools.objective_plots import reach_figure

    c = objective_curves(rules)
    return _png(reach_figure(c.best, c.dist.at_least(), f"{get_rules(rules).title}: the best chance of reaching T "
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


def learning_curves(title: str, agents: tuple[str, ...]) -> bytes:
    """Percent of optimal play of each shipped agent's run against training steps and against learning seconds
    (self-play or rollouts and updates; the periodic evaluations not counted), from its run record; the star is
    the final evaluation of its card, on 10,000 games that neither training nor the periodic evaluations played."""
    from matplotlib.ticker import FuncFormatter

    from yacht_tools.plots import figure

    fig = figure((11, 4.4 + 0.45 * len(agents)), what="the learning curves")
    axes = fig.subplots(1, 2)
    for i, agent in enumerate(agents):
        evals, card = shipped_record(agent)
        final = card["final_eval"]
        colour, star = (f"C{i}", f"C{i}") if len(agents) > 1 else ("C0", "C3")
        games = periodic_games(card)
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
    fig.legend(handles, labels, loc="outside lower center", ncols=2 if len(agents) > 1 else 1, frameon=False,
               fontsize=9)
    fig.suptitle(title)
    return _png(fig)


def agents_time_to_quality() -> bytes:
    """Every shipped agent's final evaluation (percent of optimal) against its recorded training time."""
    from yacht_tools.plots import figure, legend_below

    fig = figure((9, 5), what="the agents' chart")
    ax = fig.add_subplot()
    for i, path in enumerate(sorted(MODELS.glob("*.json"))):
        card = json.loads(path.read_text(encoding="utf-8"))
        ax.plot([card["training_wall_s"] / 60], [card["final_eval"]["percent_of_optimal"]],
                "o^sDvP*X"[i % 8], markersize=8, color=f"C{i % 10}", label=card["agent"])
    ax.axhline(100.0, color="grey", linestyle="--", linewidth=1)
    ax.set_xscale("log")
    ax.set_xlabel("learning time recorded on the card (minutes, log scale)")
    ax.set_ylabel("final evaluation (% of optimal play)")
    ax.set_title("The shipped agents: quality against learning time")
    ax.grid(alpha=0.3)
    legend_below(ax, ncols=4)
    return _png(fig)


def regret_chart() -> bytes:
    """``yacht eval --agent greedy --rules yacht --episodes 1000 --seed 0 --plot FILE``: scores and regret."""
    from yacht_tools.evaluation import evaluate
    from yacht_tools.report import scores_figure

    return _png(scores_figure(evaluate("greedy", "yacht", REGRET_GAMES, 0)))


def replay_page() -> bytes:
    """``yacht replay --agent greedy --rules yacht --seed 7 --format html``: the game as a page of its own."""
    from yacht_tools.replay import replay_game
    from yacht_tools.replay_page import page_html

    agent, rules, seed = REPLAY
    return page_html(replay_game(agent, rules, seed), "en").encode("utf-8")


PICTURES: dict[str, Callable[[], bytes]] = {
    **{f"img/game-{r}.gif": partial(game_animation, r) for r in RULE_ORDER},
    **{f"img/distribution-{r}.png": partial(distribution_picture, r) for r in RULE_ORDER},
    **{f"img/reach-{r}.png": partial(reach_picture, r) for r in RULE_ORDER},
    **{path: partial(learning_curves, *what) for path, what in LEARNING_CURVES.items()},
    "img/agents-time-to-quality.png": agents_time_to_quality,
    "img/regret-greedy-yacht.png": regret_chart,
    "replays/greedy-yacht-seed7.html": replay_page,
    "img/bench-curves.png": lambda: _png(bench_curves()),
}
"""Path in the site -> maker of the file's bytes."""
