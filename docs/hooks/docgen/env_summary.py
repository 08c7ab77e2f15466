"""The summary box of each environment (as Gymnasium's environment pages open): its animation, id, import line,
action space, observation space, reward range and the optimal expected score, read from the environment itself."""

from __future__ import annotations

import html

from docgen.pictures import RULE_ORDER


def env_summary(rules: str) -> str:
    """An HTML box: the game's animation (``img/game-RULES.gif``) beside a table of its environment's facts."""
    import gymnasium as gym

    import yacht_env
    from yacht_env.rules import get_rules
    from yacht_solver import solve

    env_id = yacht_env.ENV_IDS[rules]
    env = gym.make(env_id)
    obs_space = env.observation_space
    rows = [
        ("Id", f"<code>{env_id}</code>"),
        ("Import", f'<code>import yacht_env; gym.make("{env_id}")</code>'),
        ("Action space", f"<code>{html.escape(repr(env.action_space))}</code>"),
        ("Observation", f"<code>Box</code>, shape <code>{obs_space.shape}</code>, "
                        f"<code>{obs_space.dtype}</code>, in [{obs_space.low.min():g}, {obs_space.high.max():g}]"),
        ("Reward", "0 for a keep; a score action's points, bonuses included: a game's rewards add up to its "
                   "final score"),
        ("Optimal expected score", f"{solve(rules).start_value:.7f} (<code>yacht solve --rules {rules}</code>)"),
    ]
    env.close()
    body = "\n".join(f"<tr><th>{k}</th><td>{v}</td></tr>" for k, v in rows)
    title = get_rules(rules).title
    return (f'<div class="env-summary" markdown="0">\n'
            f'<img src="img/game-{rules}.gif" alt="a game of {html.escape(title)}, the greedy agent playing" '
            f'width="320" height="240" loading="lazy">\n'
            f"<table>\n<caption>{html.escape(title)}</caption>\n{body}\n</table>\n</div>\n")


def env_summaries() -> str:
    """The summary box of every rule set, in the order of the Rules page."""
    import yacht_env

    return "\n".join(env_summary(r) for r in RULE_ORDER if r in yacht_env.ENV_IDS)
