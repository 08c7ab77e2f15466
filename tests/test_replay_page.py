"""The replay page (``yacht replay --format html``): self-contained, built from the record for every agent kind and
for a tournament game of several players, and, in headless Chromium, stepped through decision by decision with the
keyboard, every number shown checked against the JSON replay of the same game.

The browser tests need Debian's ``chromium`` and ``chromium-driver`` (``bash .ci/browser.sh`` installs them) and
selenium (the ``browser`` extra). Without them they are skipped, except under ``CI=true``, where they fail. The
screenshots are kept in ``build/test-artefacts/replay_page/`` (the test prints the folder).
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from yacht_cli import main
from yacht_env import multiplayer as MP
from yacht_env.state import GameState, parse
from yacht_tools.multiplayer_replay import replay_multiplayer
from yacht_tools.replay import replay_game
from yacht_tools.replay_page import page_data, page_html
from yacht_tools.seeds import game_seed

CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
ARTEFACTS = Path(__file__).resolve().parent.parent / "build" / "test-artefacts" / "replay_page"
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--window-size=1400,1000"]


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(["replay", *argv]) == 0
    return capsys.readouterr().out


def decisions(record: dict[str, Any]) -> list[dict[str, Any]]:
    if "turns" in record:
        return [d for t in record["turns"] for d in t["decisions"]]
    return record["decisions"]


# ---- the page without a browser ------------------------------------------------------------------------------


def test_the_page_is_one_file_that_fetches_nothing(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out = tmp_path / "game.html"
    assert main(["replay", "--agent", "greedy", "--rules", "yacht", "--seed", "3", "--format", "html",
                 "--output", str(out)]) == 0
    assert "wrote" in capsys.readouterr().err
    page = out.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    assert not re.search(r"""(src|href)\s*=|https?://(?!www\.w3\.org/2000/svg)|@import|url\(|fetch\(|XMLHttpRequest""",
                         page), "nothing outside the file"
    assert "{{" not in page and "/*{{" not in page, "every placeholder filled"
    data = json.loads(re.search(r'<script type="application/json" id="data">(.*?)</script>', page, re.S)
                      .group(1))
    assert data == json.loads(json.dumps(page_data(replay_game("greedy", "yacht", 3))))


def test_a_name_cannot_break_out_of_the_page() -> None:
    record = replay_game("greedy", "yacht", 1, regret=False)
    record["agent"] = "</script><script>alert(1)</script>"
    page = page_html(record)
    assert "</script><script>alert" not in page
    assert page_data(record)["steps"][0]["bars"] is None, "no solver: no bars, and the page says so"


@pytest.mark.parametrize("name", ["<!--<script>.pt", "{{DATA}}", "{{LANG}} /*{{JS}}*/ {{TITLE}}", "a&b>c\\<!--"])
def test_a_name_that_looks_like_markup_or_a_placeholder_stays_a_name(name: str) -> None:
    """``<!--`` inside the JSON block gave a blank page (the browser's script parser changes state); a name holding
    the template's placeholders was substituted. The data block holds no ``<``, and the template is filled once."""
    record = replay_game("greedy", "yacht", 1, regret=False)
    record["agent"] = name
    page = page_html(record)
    block = re.search(r'<script type="application/json" id="data">(.*?)</script>', page, re.S).group(1)
    assert "<" not in block and ">" not in block
    assert json.loads(block)["players"] == [name] and json.loads(block)["steps"][0]["player"] == name
    title = re.search(r"<title>(.*?)</title>", page, re.S).group(1)
    assert html.escape(name) in title and len(title) < 200
    assert page.count('<script type="application/json" id="data">') == 1 and page.count('<html lang="en">') == 1
    assert page.count("function") == page_html(replay_game("greedy", "yacht", 1, regret=False)).count("function")


@pytest.mark.parametrize("spec,rules", [("random", "yatzy"), ("td-yahtzee", "yahtzee"), ("ppo-yacht", "yacht"),
                                        ("optimal", "yahtzee-free-joker"), ("greedy", "knizia")])
def test_every_kind_of_agent_and_rule_set(spec: str, rules: str) -> None:
    if spec.startswith("td-"):
        pytest.importorskip("torch")
    if spec.startswith("ppo-"):
        pytest.importorskip("sb3_contrib")
    record = replay_game(spec, rules, 2)
    data = page_data(record)
    decs = decisions(record)
    assert len(data["steps"]) == len(decs)
    for step, d in zip(data["steps"], decs):
        assert step["value"] == f"{d['value']:.2f}" and step["regret"] == f"{d['regret']:.2f}"
        assert step["total"] == parse(d["state"], rules).total
        assert {b["action"] for b in step["bars"]} == {a for a, _ in d["action_values"]}
        assert step["bars"][0]["v"] == pytest.approx(d["best_value"]), "the first bar is the best action's"
    assert data["end"]["totals"] == [record["final_score"]]


def test_a_tournament_game_is_the_tournaments() -> None:
    """The replayed table plays the tournament's dice and seats: each recorded decision, applied to the table with
    the game's generator, reaches the next recorded position, and the totals are the tournament's."""
    from yacht_tools.tournament import play_match

    rec = replay_multiplayer(["greedy", "optimal", "greedy"], "yahtzee", 4, players=3, match=0, game=2)
    assert rec["players"] == ["greedy#2", "greedy", "optimal"], "seat s is the group's agent (s + game) mod 3"
    rng = np.random.default_rng(game_seed(4, 0, 2))
    states = MP.new_seating("yahtzee", 3, rng)
    for d in rec["decisions"]:
        assert MP.seat_to_act(states) == d["seat"]
        assert states[d["seat"]] == parse(d["state"], "yahtzee")
        states, _, _ = MP.play(states, d["action"], rng)
    assert [st.total for st in states] == rec["final_scores"]
    assert [GameState.from_dict(s) for s in rec["final_states"]] == list(states)
    for s in range(3):
        assert sum(d["points"] for d in rec["decisions"] if d["seat"] == s and d["points"] is not None) == \
            rec["final_scores"][s]
    from yacht_agents.greedy import GreedyAgent
    from yacht_agents.optimal import OptimalAgent

    totals = play_match([GreedyAgent("yahtzee"), OptimalAgent("yahtzee"), GreedyAgent("yahtzee")], "yahtzee", 3, 4)
    assert [totals[2, (s + 2) % 3] for s in range(3)] == rec["final_scores"]


# ---- the page in headless Chromium ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    missing = [p for p in (CHROMIUM, CHROMEDRIVER) if not os.path.exists(p)]
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        missing.append('selenium (pip install -e ".[browser]")')
    if missing:
        why = f"the replay page's browser test needs {', '.join(missing)}: run `bash .ci/browser.sh`"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(why + " (CI=true: not skipped)")
        pytest.skip(why)
    os.environ.setdefault("SE_OFFLINE", "true")  # Selenium Manager stays offline: the browser and driver are Debian's
    profile = tempfile.mkdtemp(prefix="yacht-chromium-")
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for flag in [*CHROMIUM_FLAGS, f"--user-data-dir={profile}"]:
        opts.add_argument(flag)
    driver = webdriver.Chrome(options=opts, service=Service(CHROMEDRIVER))  # this driver: nothing downloaded
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


_READ = """
const t = id => document.getElementById(id).textContent;
const shown = id => document.getElementById(id).getClientRects().length > 0;  // laid out, not hidden
const data = id => document.getElementById(id).dataset;
return {step: document.body.dataset.step, position: t('position'), dice: data('dice').faces,
  kept: [...document.querySelectorAll('#dice .die')].map(d => d.dataset.kept === '1'),
  agent: data('agent-move').action, best: data('best-move').action,
  value: t('agent-value'), best_value: t('best-value'), regret: t('regret'), total: t('total'), expected: t('expected'),
  optimal: t('optimal'), regret_sum: t('regret-sum'), shown: shown('agent-value') && shown('bars'),
  bars: [...document.querySelectorAll('#bars .bar')].map(b => [Number(b.dataset.action), b.querySelector('.value')
    .textContent, b.classList.contains('agent'), b.classList.contains('best')]),
  end: t('end'), end_shown: shown('end')};
"""


def step_through(driver: Any, page: Path, record: dict[str, Any]) -> dict[str, Any]:
    """Open ``page``, check every decision against ``record`` while stepping with the Right arrow; the end view."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    driver.get(page.as_uri())
    keys = ActionChains(driver)
    decs = decisions(record)
    regret_sum = [0.0] * 8
    for i, d in enumerate(decs):
        got = driver.execute_script(_READ)
        assert got["step"] == str(i) and got["position"] == f"Decision {i + 1} of {len(decs)}" and got["shown"]
        assert got["dice"] == " ".join(map(str, d["dice"]))
        assert int(got["agent"]) == d["action"] and int(got["best"]) == d["best_action"]
        assert got["value"] == f"{d['value']:.2f}" and got["best_value"] == f"{d['best_value']:.2f}"
        assert got["regret"] == f"{d['regret']:.2f}" and got["expected"] == f"{d['best_value']:.2f}"
        assert got["optimal"] == f"{record['optimal_value']:.2f}"
        seat = d.get("seat", 0)
        regret_sum[seat] += d["regret"]
        assert got["regret_sum"] == f"{regret_sum[seat]:.2f}"
        assert int(got["total"]) == parse(d["state"], record["rules"]).total
        assert sum(got["kept"]) == len(kept_faces(d) or ()), "the dice the action keeps are marked kept"
        want = [[a, f"{v:.2f}"] for a, v in sorted(d["action_values"], key=lambda av: (-av[1], av[0]))]
        assert [[a, v] for a, v, _, _ in got["bars"]] == want
        assert [a for a, _, is_agent, _ in got["bars"] if is_agent] == [d["action"]]
        assert [a for a, _, _, is_best in got["bars"] if is_best] == [d["best_action"]]
        keys.send_keys(Keys.ARROW_RIGHT).perform()
    got = driver.execute_script(_READ)
    assert got["step"] == str(len(decs)) and got["end_shown"] and not got["shown"]
    keys.send_keys(Keys.ARROW_RIGHT).perform()
    assert driver.execute_script(_READ)["step"] == str(len(decs)), "no step past the end"
    return got


def end_scores(driver: Any) -> list[list[str]]:
    """The rows of the end screen's table after its head: player, final score, expected points lost."""
    return driver.execute_script("return [...document.querySelectorAll('#end-scores tr')].slice(1)"
                                 ".map(r => [...r.children].map(c => c.textContent))")


def kept_faces(d: dict[str, Any]) -> list[int] | None:
    m = re.fullmatch(r"keep((?: \d)*)", d["move"])
    return [int(x) for x in m.group(1).split()] if m else None


def keep_screenshot(driver: Any, name: str, capsys: pytest.CaptureFixture[str]) -> Path:
    from PIL import Image

    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTEFACTS / name
    driver.save_screenshot(str(path))
    pixels = np.asarray(Image.open(path).convert("RGB"))
    assert pixels.shape[0] >= 600 and pixels.shape[1] >= 1000
    assert pixels.std() > 20 and len(np.unique(pixels.reshape(-1, 3), axis=0)) > 100, f"{path} is blank"
    with capsys.disabled():
        print(f"\nreplay page screenshot: {path}")
    return path


def test_browser_steps_through_a_game_with_the_keyboard(browser: Any, capsys: pytest.CaptureFixture[str],
                                                         tmp_path: Path) -> None:
    argv = ["--agent", "greedy", "--rules", "yahtzee", "--seed", "7"]
    record = json.loads(cli(capsys, *argv, "--format", "json"))
    page = tmp_path / "game.html"
    cli(capsys, *argv, "--format", "html", "--output", str(page))
    step_through(browser, page, record)
    assert end_scores(browser) == [[record["agent"], f"{record['final_score']} points", f"{record['regret']:.2f}"]]
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    keys = ActionChains(browser)
    keys.send_keys(Keys.HOME).perform()
    assert browser.execute_script(_READ)["step"] == "0"
    for _ in range(5):
        keys.send_keys(Keys.ARROW_RIGHT).perform()
    keys.send_keys(Keys.ARROW_LEFT).perform()
    assert browser.execute_script(_READ)["step"] == "4"
    keep_screenshot(browser, "yahtzee-greedy-seed7.png", capsys)
    keys.send_keys(Keys.END).perform()
    assert browser.execute_script(_READ)["end_shown"]


def test_browser_steps_through_a_tournament_game(browser: Any, capsys: pytest.CaptureFixture[str],
                                                 tmp_path: Path) -> None:
    argv = ["--agents", "optimal", "greedy", "random", "--seed", "0", "--match", "1", "--game", "3"]
    record = json.loads(cli(capsys, *argv, "--format", "json"))
    page = tmp_path / "game.html"
    cli(capsys, *argv, "--format", "html", "--output", str(page))
    end = step_through(browser, page, record)
    assert [row[:2] for row in end_scores(browser)] == [[name, f"{total} points"] for name, total in
                                                         zip(record["players"], record["final_scores"])]
    assert "Winner: " + ", ".join(record["winners"]) in end["end"]
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    ActionChains(browser).send_keys(Keys.HOME).perform()
    heads = browser.execute_script("return [...document.querySelectorAll('#cards thead th')].map(t => t.textContent)")
    assert heads[1:] == [record["players"][0], "Now", record["players"][1]], "both cards, the player to act first"
    keep_screenshot(browser, "yacht-tournament-game.png", capsys)


_BARS = """
const box = id => document.getElementById(id).getBoundingClientRect();
const axis = document.getElementById('bars-axis');
return {floor: Number(axis.dataset.floor), top: Number(axis.dataset.top),
  caption: document.getElementById('bars-floor').textContent,
  scale: [...axis.querySelectorAll('.scale span')].map(s => s.textContent),
  bars: [...document.querySelectorAll('#bars .bar')].map(b => [Number(b.dataset.value),
    b.querySelector('.fill').getBoundingClientRect().width / b.querySelector('.track').getBoundingClientRect().width]),
  turns: [...document.querySelectorAll('#chart text.turn')].map(t => t.textContent),
  x: document.getElementById('chart-x').textContent, y: document.getElementById('chart-y').textContent,
  chart_fits: box('chart').height > 0 && [...document.querySelectorAll('#chart text')].every(t => {
    const r = t.getBoundingClientRect(), c = box('chart');
    return r.left >= c.left - 1 && r.right <= c.right + 1 && r.top >= c.top - 1 && r.bottom <= c.bottom + 1; })};
"""

_END = """
const t = id => document.getElementById(id).textContent;
return {title: t('values-title'), bars_legend_shown: !document.getElementById('values-legend').hidden,
  costliest: [...document.querySelectorAll('#costliest li')].map(li => [Number(li.dataset.step), li.dataset.regret,
    li.textContent]),
  links: [...document.querySelectorAll('#costliest a')].map(a => a.getAttribute('href')),
  fits: ['end-scores', 'costliest'].every(id => {
    const r = document.getElementById(id).getBoundingClientRect();
    const p = document.getElementById(id).closest('section').getBoundingClientRect();
    return r.width > 0 && r.left >= p.left && r.right <= p.right; })};
"""


def test_browser_labels_the_bars_and_the_chart_and_links_the_costliest_decisions(
        browser: Any, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """The value bars say where they start (not at zero), and their lengths are their values above it; the
    running-total chart has its turns and its axes named; the end screen lists the three costliest decisions,
    each a link that shows it."""
    argv = ["--agent", "greedy", "--rules", "yahtzee", "--seed", "7"]
    record = json.loads(cli(capsys, *argv, "--format", "json"))
    page = tmp_path / "game.html"
    cli(capsys, *argv, "--format", "html", "--output", str(page))
    browser.get(page.as_uri())
    decs = decisions(record)
    for i in (0, 1, len(decs) - 1):
        browser.get(page.as_uri() + f"#decision-{i + 1}")
        browser.refresh()
        assert browser.execute_script(_READ)["step"] == str(i), "a #decision-K address opens decision K"
        got = browser.execute_script(_BARS)
        values = [v for v, _ in got["bars"]]
        assert got["top"] == pytest.approx(max(values)) and got["scale"] == [str(int(got["floor"])),
                                                                             f"{max(values):.2f}"]
        if got["floor"] > 0:
            assert got["floor"] < min(values) and f"start at {int(got['floor'])} points, not at 0" in got["caption"]
        else:
            assert got["caption"] == "The bars start at 0 points."
        for v, width in got["bars"]:
            assert width == pytest.approx((v - got["floor"]) / (got["top"] - got["floor"]), abs=0.01)
        turns = [str(t) for t in range(1, 14)] + ["end"]
        assert got["turns"] == turns and got["x"].startswith("turn") and got["y"] == "points" and got["chart_fits"]
    keep_screenshot(browser, "yahtzee-greedy-seed7-last-decision.png", capsys)
    browser.execute_script("document.getElementById('progress').scrollIntoView()")
    keep_screenshot(browser, "yahtzee-greedy-seed7-chart.png", capsys)
    browser.execute_script("window.scrollTo(0, 0)")

    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    ActionChains(browser).send_keys(Keys.END).perform()
    end = browser.execute_script(_END)
    costly = sorted(range(len(decs)), key=lambda i: (-round(decs[i]["regret"], 2), i))[:3]
    assert end["title"] == "The costliest decisions" and not end["bars_legend_shown"] and end["fits"]
    assert [[step, regret] for step, regret, _ in end["costliest"]] == [[i, f"{decs[i]['regret']:.2f}"]
                                                                       for i in costly]
    assert end["links"] == [f"#decision-{i + 1}" for i in costly]
    first, when = decs[costly[0]], page_data(record)["steps"][costly[0]]
    assert f"turn {when['turn']}, roll {first['roll']}" in end["costliest"][0][2]
    keep_screenshot(browser, "yahtzee-greedy-seed7-end.png", capsys)
    browser.find_element("css selector", "#costliest a").click()
    shown = browser.execute_script(_READ)
    assert shown["step"] == str(costly[0]) and shown["regret"] == f"{first['regret']:.2f}"
    assert browser.execute_script(_BARS)["turns"], "the decision's view is whole again"
