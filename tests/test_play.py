"""``yacht play``: commands, bad input, whole games through a real pseudo-terminal, --vs, --hint, languages."""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import pytest

from yacht_agents.greedy import GreedyAgent
from yacht_cli import main
from yacht_env.actions import NUM_KEEP_ACTIONS, action_mask
from yacht_env.env import YachtEnv
from yacht_env.i18n import LANGUAGES, category_name
from yacht_env.render import action_command, action_label, render_dice, render_scorecard
from yacht_env.rules import get_rules
from yacht_env.state import (
    GameState,
    deal,
    end_turn,
    new_game,
    parse,
    reroll,
    reroll_pattern,
    score_category,
    unrolled_game,
)
from yacht_solver import solve
from yacht_tools.messages import fmt, text
from yacht_tools.play import (
    PROMPT,
    InputError,
    hint_line,
    parse_command,
    parse_faces,
    play_game,
    resolve_category,
)

pexpect = pytest.importorskip("pexpect")

REPO = Path(__file__).resolve().parents[1]
YACHT_IDS = get_rules("yacht").category_ids


# ---- helpers ----------------------------------------------------------------------------------------------------


def scripted(lines: Sequence[str]) -> tuple[Iterator[str], list[str]]:
    """A ``read`` that answers ``lines`` in turn then raises EOFError, and the list ``write`` appends to."""
    it = iter(lines)
    out: list[str] = []

    def read(prompt: str) -> str:
        out.append(prompt)
        try:
            return next(it)
        except StopIteration:
            raise EOFError from None

    return read, out  # type: ignore[return-value]


def greedy_turn(agent: GreedyAgent, st: GameState, rng: np.random.Generator) -> GameState:
    """One turn of the greedy agent, exactly as ``yacht play --vs greedy`` plays it: its first roll made as the turn
    begins, and none after its score (the next turn's roll is made when that turn begins)."""
    st = deal(st, rng)
    while True:
        a = agent.act(np.zeros(0, dtype=np.float32), action_mask(st), st)
        if a < NUM_KEEP_ACTIONS:
            st = reroll_pattern(st, a, rng)
        else:
            return end_turn(st, a - NUM_KEEP_ACTIONS)[0]


def round_vs_greedy(agent: GreedyAgent, me: GameState, them: GameState, box: int, rng: np.random.Generator
                    ) -> tuple[GameState, GameState]:
    """A round of ``yacht play --vs greedy``: the person scores ``box``, greedy plays its turn, then the person's
    next turn begins with its first roll."""
    me, _ = end_turn(me, box)
    them = greedy_turn(agent, them, rng)
    return (me if me.is_over else deal(me, rng)), them


def spawn(*args: str) -> pexpect.spawn:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    env["PYTHONIOENCODING"] = "utf-8"
    return pexpect.spawn(sys.executable, ["-m", "yacht_cli", "play", *args], cwd=str(REPO), env=env,
                         encoding="utf-8", timeout=60, dimensions=(60, 200))


def answer(child: pexpect.spawn, line: str) -> str:
    """Send ``line``, wait for the next prompt, return what came in between (line ends normalised)."""
    child.sendline(line)
    child.expect_exact(PROMPT)
    return child.before.replace("\r\n", "\n")


# ---- commands ---------------------------------------------------------------------------------------------------


def test_parse_faces() -> None:
    assert parse_faces(["5", "5", "6"]) == [5, 5, 6]
    assert parse_faces(["556"]) == [5, 5, 6]
    assert parse_faces(["5,5,6"]) == [5, 5, 6]
    assert parse_faces([]) == []
    for bad in (["7"], ["five"], ["0"], ["-1"], ["5.5"]):
        with pytest.raises(InputError, match="is not a die face"):
            parse_faces(bad)


def test_parse_command_keeps_and_errors() -> None:
    st = parse("yacht | dice 1 3 3 5 6 | rolls 2 | filled -")
    assert parse_command("keep 3 3 6", st) == ("keep", [3, 3, 6])
    assert parse_command("k 5", st) == ("keep", [5])
    assert parse_command("KEEP", st) == ("keep", [])
    assert parse_command("   ", st) == ("none", None)
    for line, cmd in (("help", "help"), ("?", "help"), ("quit", "quit"), ("q", "quit"), ("show", "show"),
                      ("hint", "hint")):
        assert parse_command(line, st) == (cmd, None)
    with pytest.raises(InputError, match=r"Cannot keep 4: the dice are 1 3 3 5 6"):
        parse_command("keep 4", st)
    with pytest.raises(InputError, match=r"Cannot keep 3 3 3"):
        parse_command("keep 3 3 3", st)
    with pytest.raises(InputError, match="Keeping all five dice wastes a roll"):
        parse_command("keep 1 3 3 5 6", st)
    with pytest.raises(InputError, match=r"Unknown command 'roll'\. Accepted: keep <faces>, score <category>"):
        parse_command("roll", st)
    last = parse("yacht | dice 1 3 3 5 6 | rolls 0 | filled -")
    with pytest.raises(InputError, match="No rolls left"):
        parse_command("keep 3", last)


@pytest.mark.parametrize(("spec", "cid"), [
    ("7", "full_house"), ("full_house", "full_house"), ("Full House", "full_house"), ("full", "full_house"),
    ("choice", "choice"), ("CHOICE", "choice"), ("s", "sixes"), ("little", "little_straight"), ("12", "yacht"),
    ("four of a kind", "four_of_a_kind"), ("four-of-a-kind", "four_of_a_kind"),
])
def test_resolve_category(spec: str, cid: str) -> None:
    st = parse("yacht | dice 1 3 3 5 6 | rolls 2 | filled twos=2")
    assert resolve_category(spec, st) == YACHT_IDS.index(cid)
    assert parse_command(f"s {spec}", st) == ("score", YACHT_IDS.index(cid))


@pytest.mark.parametrize(("lang", "rules", "spec", "cid"), [
    ("ms", "yahtzee", "Peluang", "chance"), ("ms", "yahtzee", "rumah penuh", "full_house"),
    ("ms", "yahtzee", "satu", "ones"), ("ms", "yahtzee", "3 jenis", "three_of_a_kind"),
    ("ms", "yacht", "lima", "fives"), ("el", "yacht", "Καρέ", "four_of_a_kind"),
    ("el", "yacht", "μικρη κεντα", "little_straight"), ("el", "yahtzee", "τύχη", "chance"),
    ("et", "yacht", "neli", "four_of_a_kind"), ("et", "yahtzee", "Juhus", "chance"),
    ("te", "yacht", "ఆరు", "sixes"), ("te", "yacht", "choice", "choice"),
    ("el", "yacht", "choice", "choice"),  # English names are always accepted
    ("ms", "yatzy", "dua pasang", "two_pairs"), ("ms", "yatzy", "satu", "ones"), ("ms", "yatzy", "4 jenis",
    "four_of_a_kind"), ("el", "yatzy", "ζευγάρι", "one_pair"), ("et", "yatzy", "kaks paari", "two_pairs"),
    ("te", "yatzy", "one pair", "one_pair"), ("en", "yatzy", "yatzy", "yatzy"),
])
def test_resolve_localized_names(lang: str, rules: str, spec: str, cid: str) -> None:
    st = parse(f"{rules} | dice 1 3 3 5 6 | rolls 0 | filled -")
    assert resolve_category(spec, st, lang) == get_rules(rules).category_index(cid)


def test_resolve_category_errors() -> None:
    st = parse("yacht | dice 1 3 3 5 6 | rolls 2 | filled ones=1,choice=18")
    with pytest.raises(InputError, match=r"Choice is already filled\. Open: 2 Twos"):
        resolve_category("choice", st)
    with pytest.raises(InputError, match=r"Ones is already filled"):
        resolve_category("1", st)
    with pytest.raises(InputError, match=r"'fo' could be: 4 Fours, 8 Four of a Kind"):
        resolve_category("fo", st)
    for bad in ("0", "13", "99", "xyz", "!!"):
        with pytest.raises(InputError, match=r"Unknown category .* Give a number 1-12, an id or a name\. Open: 2 Tw"):
            resolve_category(bad, st)
    with pytest.raises(InputError, match="Which category"):
        parse_command("score", st)


def test_joker_forbidden_category() -> None:
    st = parse("yahtzee | dice 4 4 4 4 4 | rolls 0 | filled yahtzee=50")
    with pytest.raises(InputError, match=r"The Joker rule forbids Chance now\. Allowed: 4 Fours"):
        resolve_category("chance", st)
    assert resolve_category("fours", st) == 3
    with pytest.raises(InputError, match="Ο κανόνας Joker"):
        resolve_category("chance", st, "el")


# ---- whole games in process -------------------------------------------------------------------------------------


def test_play_game_in_process_with_bad_input() -> None:
    script = ["nonsense", "keep 9", "score 42", "help", "show", "hint"] + [f"s {k + 1}" for k in range(12)]
    read, out = scripted(script)
    res = play_game("yacht", 21, read=read, write=out.append)
    text = "\n".join(out)
    rng = np.random.default_rng(21)
    st = new_game("yacht", rng)
    for k in range(12):
        st, _ = score_category(st, k, rng)
    assert res["finished"] and res["totals"] == [st.total]
    assert res["states"][0] == st
    assert "Unknown command 'nonsense'" in text and "'9' is not a die face" in text
    assert "Unknown category '42'" in text and "Commands:" in text and "Hint: " in text
    assert render_scorecard(st) in text and text.rstrip().endswith(f"Final score: {st.total}")


def test_end_of_input_and_quit_keep_nothing_broken() -> None:
    read, out = scripted(["s 1"])
    res = play_game("yacht", 1, read=read, write=out.append)
    assert not res["finished"] and res["states"][0].turn == 1 and out[-1] == "Game left unfinished. Bye."
    read, out = scripted(["quit"])
    res = play_game("yacht", 1, read=read, write=out.append)
    assert not res["finished"] and out[-1] == "Game left unfinished. Bye."


def test_play_game_against_greedy_in_process() -> None:
    read, out = scripted([f"score {cid}" for cid in YACHT_IDS])
    res = play_game("yacht", 8, opponent=GreedyAgent("yacht"), read=read, write=out.append)
    rng = np.random.default_rng(8)
    me, them = new_game("yacht", rng), unrolled_game("yacht")
    agent = GreedyAgent("yacht")
    for k in range(12):
        me, them = round_vs_greedy(agent, me, them, k, rng)
    assert res["finished"] and res["totals"] == [me.total, them.total]
    text = "\n".join(out)
    assert "Turn of greedy (12/12)" in text
    want = (f"Winner: greedy with {them.total}." if them.total > me.total else
            f"Winner: You with {me.total}." if me.total > them.total else f"Tie at {me.total}: You, greedy.")
    assert out[-1] == want


def test_play_in_malay_and_greek() -> None:
    read, out = scripted(["bogus", "s peluang", "s 13"] + [f"s {k + 1}" for k in range(12)])
    play_game("yahtzee", 5, lang="ms", read=read, write=out.append)
    text = "\n".join(out)
    assert "Arahan tidak dikenali: 'bogus'" in text and "Anda: " in text and "Skor akhir: " in text
    assert "Peluang" in text and "Lurus Kecil" in text and "Aces (Satu)" in text
    assert "Peluang sudah diisi. Terbuka: 1 Aces (Satu)" in text  # "s 13" after chance is filled
    read, out = scripted(["k 7"])
    play_game("yacht", 5, lang="el", read=read, write=out.append)
    text = "\n".join(out)
    assert "δεν είναι τιμή ζαριού" in text and "Καρέ" in text and "Ζάρια: " in text


def test_play_yatzy_in_estonian() -> None:
    read, out = scripted([f"s {k + 1}" for k in range(15)])
    res = play_game("yatzy", 3, lang="et", read=read, write=out.append)
    rng = np.random.default_rng(3)
    st = new_game("yatzy", rng)
    for k in range(15):
        st, _ = score_category(st, k, rng)
    text = "\n".join(out)
    assert res["finished"] and res["totals"] == [st.total]
    assert "Kaks paari" in text and "Paar" in text and "Yatzy" in text


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_hints_in_the_game_language(lang: str) -> None:
    """The hint names the move in the game's language, with the command to type where the words differ."""
    sol = solve("yacht")
    keep = parse("yacht | dice 5 5 1 2 3 | rolls 2 | filled ones=1,twos=2,threes=3,fours=4")
    assert int(sol.best_action(keep)) < NUM_KEEP_ACTIONS  # a keep is best here
    line = hint_line(keep, sol, lang)
    kept = action_label(int(sol.best_action(keep)), keep.dice, "yacht", lang)
    assert line.startswith(text("hint", lang).split("{action}")[0] + kept)
    full = parse("yacht | dice 6 6 6 6 6 | rolls 0")
    line = hint_line(full, sol, lang)
    assert fmt("act_score", lang, category=category_name("yacht", lang)) in line
    if lang == "en":
        assert line.startswith("Hint: score Yacht (expected final score ")
    else:
        assert "(score yacht)" in line and f"({action_command(int(sol.best_action(keep)), keep)})" in \
            hint_line(keep, sol, lang)
        assert not re.match(r"\S+: (keep|score) ", line), line  # no English words before the command
    if lang != "et":
        return
    read, out = scripted(["hint", "quit"])  # --hint's line before the decision, then the one asked for
    play_game("yacht", 4, lang="et", hint=True, read=read, write=out.append)
    hints = [x for x in out if x.startswith("Vihje: ")]
    assert len(hints) == 2 and all(re.match(r"Vihje: (hoia [1-6 ]+|veereta kõik uuesti|vali .+) \((keep|score)", h)
                                   for h in hints), hints


def test_seed_gives_the_environment_dice() -> None:
    read, out = scripted([])
    play_game("yacht", 77, read=read, write=out.append)
    env = YachtEnv("yacht")
    env.reset(seed=77)
    assert env.state is not None and f"Dice: {render_dice(env.state)}" in out[0]


@pytest.mark.parametrize(("argv", "message"), [
    (["--lang", "xx"], "unknown language 'xx'; accepted: en, ms, el, et, te"),
    (["--rules", "poker"], "unknown rules 'poker'; accepted: yacht, yahtzee, yahtzee-free-joker"),
    (["--vs", "nobody"], "unknown agent 'nobody'; accepted: random, greedy, optimal"),
    (["--seed", "x"], "seed must be a non-negative integer"),
])
def test_bad_options_fail_clearly(capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    assert main(["play", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("yacht play: error: ") and message in err and len(err.strip().splitlines()) == 1


def test_a_bare_keep_says_it_rerolls_all_five() -> None:
    read, out = scripted(["k", "keep 9"])
    play_game("yacht", 3, read=read, write=out.append)
    assert out.count("Keeping none: rerolling all five dice.") == 1
    rng = np.random.default_rng(3)
    st = reroll(new_game("yacht", rng), [], rng)
    assert f"Dice: {render_dice(st)}   Rolls left: 1" in "\n".join(out[out.index("Keeping none: rerolling all five "
                                                                               "dice."):])
    read, out = scripted(["k " + " ".join(map(str, new_game("yacht", np.random.default_rng(3)).dice[:1]))])
    play_game("yacht", 3, read=read, write=out.append)
    assert "Keeping none: rerolling all five dice." not in out, "said only of a bare keep"


def _zero_and_better(rules: str = "yacht") -> tuple[int, GameState, int, int]:
    """A seed whose first dice score 0 in some box (k) while another (best) scores more; that box and the best."""
    for seed in range(200):
        st = new_game(rules, np.random.default_rng(seed))
        zero = [k for k in st.legal_categories() if st.points(k) == 0]
        if zero:
            best = max(st.legal_categories(), key=lambda j: (st.points(j), -j))
            return seed, st, zero[0], best
    raise AssertionError("no such seed")


def test_scoring_0_where_another_box_scores_more_is_confirmed() -> None:
    seed, st, k, best = _zero_and_better()
    zero_name, best_name = category_name(YACHT_IDS[k]), category_name(YACHT_IDS[best])
    question = (f"{zero_name} scores 0 now; {best_name} would score {st.points(best)}. Score 0 in {zero_name}? "
                "[y/N] ")
    # "n" (or anything but y/yes): not scored, the same dice again; then "y": scored
    read, out = scripted([f"s {k + 1}", "n", f"s {k + 1}", "Y"])
    res = play_game("yacht", seed, read=read, write=out.append, confirm=True)
    assert out.count(question) == 2 and "Not scored: choose again." in out
    assert out[out.index("Not scored: choose again.") + 1] == PROMPT, "the prompt again, the turn unchanged"
    assert f"You: 0 in {zero_name}, total 0" in out and not res["finished"]
    assert res["states"][0].scores[k] == 0
    # a box that scores something, or confirm=False (--no-confirm): no question
    read, out = scripted([f"s {best + 1}"])
    play_game("yacht", seed, read=read, write=out.append, confirm=True)
    assert not any("[y/N]" in line for line in out)
    read, out = scripted([f"s {k + 1}"])
    res = play_game("yacht", seed, read=read, write=out.append, confirm=False)
    assert not any("[y/N]" in line for line in out) and res["states"][0].scores[k] == 0


def test_no_question_where_no_other_box_scores_more() -> None:
    from yacht_tools.play import zero_question

    seed, st, k, best = _zero_and_better()
    assert zero_question(st, best) is None and zero_question(st, k) is not None
    assert zero_question(st, k, "et").endswith("[y/N] ")
    rng, last = np.random.default_rng(0), st
    for j in range(len(YACHT_IDS)):
        if j != k:
            last, _ = score_category(last, j, rng)
    only = GameState("yacht", st.dice, 0, last.scores)  # the same dice, every other box filled
    assert zero_question(only, k) is None, "no other box: nothing to ask"


# ---- through a real pseudo-terminal -----------------------------------------------------------------------------


def test_full_game_through_a_terminal() -> None:
    seed = 4
    rng = np.random.default_rng(seed)  # what YachtEnv.reset(seed=4) installs
    st = new_game("yacht", rng)
    child = spawn("--rules", "yacht", "--seed", str(seed), "--no-confirm")  # the boxes in order, 0 or not
    try:
        child.expect_exact(PROMPT)
        first = child.before.replace("\r\n", "\n")
        assert f"Seed: {seed}" in first and f"Dice: {render_dice(st)}   Rolls left: 2" in first
        # bad input on the first turn: each gets its message and the prompt again
        assert "Unknown command 'foo'. Accepted: keep <faces>, score <category>" in answer(child, "foo")
        assert "'7' is not a die face (1 to 6)." in answer(child, "keep 7")
        missing = next(f for f in range(1, 7) if f not in st.dice)
        assert f"Cannot keep {missing}: the dice are {' '.join(map(str, st.dice))}." in answer(child, f"k {missing}")
        assert "Keeping all five dice wastes a roll" in answer(child, "keep " + " ".join(map(str, st.dice)))
        assert "Which category?" in answer(child, "score")
        assert "Unknown category '99'. Give a number 1-12" in answer(child, "score 99")
        assert "keep <faces>" in answer(child, "help")
        # two rerolls, then a keep with no rolls left
        kept = list(st.dice[:2])
        st = reroll(st, kept, rng)
        assert f"Dice: {render_dice(st)}   Rolls left: 1" in answer(child, "k " + " ".join(map(str, kept)))
        st = reroll(st, [], rng)
        assert f"Dice: {render_dice(st)}   Rolls left: 0" in answer(child, "keep")
        assert "No rolls left this turn" in answer(child, f"keep {st.dice[0]}")
        # one score a turn, with every way of naming a category
        names = ["score ones", "s 2", "s three", "score Fours", "s fives", "s 6", "s full_house",
                 "s four of a kind", "s little", "s big", "s choice", "s 12"]
        for k, cmd in enumerate(names):
            if k == 1:
                assert "Ones is already filled. Open: 2 Twos" in answer(child, "s 1")
            st, pts = score_category(st, k, rng)
            if k < 11:
                out = answer(child, cmd)
                assert f"You: {pts} in {category_name(YACHT_IDS[k])}, total {st.total}" in out
                assert f"Turn {k + 2}/12   Dice: {render_dice(st)}" in out
        child.sendline(names[-1])
        child.expect(pexpect.EOF)
        end = child.before.replace("\r\n", "\n")
        assert st.is_over
        assert render_scorecard(st) in end
        assert end.rstrip().endswith(f"Final score: {st.total}")
    finally:
        child.close()
    assert child.exitstatus == 0


def test_vs_and_hint_through_a_terminal() -> None:
    seed = 6
    child = spawn("--rules", "yacht", "--seed", str(seed), "--vs", "greedy", "--hint", "--no-confirm")
    rng = np.random.default_rng(seed)
    me, them = new_game("yacht", rng), unrolled_game("yacht")
    agent = GreedyAgent("yacht")
    try:
        for k in range(12):
            child.expect_exact(PROMPT)
            shown = child.before.replace("\r\n", "\n")
            assert re.search(r"Hint: (keep[ 1-6]*|reroll all \(keep\)|score [^()]+( \(score \w+\))?) "
                             r"\(expected final score \d+\.\d\d\)", shown)
            assert "You" in shown and "greedy" in shown and f"Dice: {render_dice(me)}" in shown
            if k:
                assert f"Turn of greedy ({k}/12)" in shown
            child.sendline(f"s {k + 1}")
            me, them = round_vs_greedy(agent, me, them, k, rng)
        child.expect(pexpect.EOF)
        end = child.before.replace("\r\n", "\n")
    finally:
        child.close()
    assert child.exitstatus == 0
    assert re.search(rf"Total\s+{me.total}\s+{them.total}", end)
    if me.total == them.total:
        assert f"Tie at {me.total}: You, greedy." in end
    else:
        winner, top = ("You", me.total) if me.total > them.total else ("greedy", them.total)
        assert f"Winner: {winner} with {top}." in end


def test_play_asks_before_a_0_unless_no_confirm() -> None:
    seed, st, k, best = _zero_and_better()
    child = spawn("--rules", "yacht", "--seed", str(seed))
    try:
        child.expect_exact(PROMPT)
        child.sendline(f"s {k + 1}")
        child.expect_exact("[y/N] ")
        assert f"{category_name(YACHT_IDS[k])} scores 0 now" in child.before
        assert "Not scored: choose again." in answer(child, "")
        child.sendline("quit")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0
    child = spawn("--rules", "yacht", "--seed", str(seed), "--no-confirm")
    try:
        child.expect_exact(PROMPT)
        out = answer(child, f"s {k + 1}")
        assert "[y/N]" not in out and f"You: 0 in {category_name(YACHT_IDS[k])}, total 0" in out
        child.sendline("quit")
        child.expect(pexpect.EOF)
    finally:
        child.close()


def test_ctrl_d_and_quit_exit_cleanly() -> None:
    child = spawn("--seed", "1", "--lang", "et")
    try:
        child.expect_exact(PROMPT)
        assert "Täringud" in child.before
        child.sendeof()
        child.expect(pexpect.EOF)
        assert "Head aega" in child.before and "Traceback" not in child.before
    finally:
        child.close()
    assert child.exitstatus == 0
    child = spawn("--seed", "1")
    try:
        child.expect_exact(PROMPT)
        child.sendline("quit")
        child.expect(pexpect.EOF)
        assert "Bye" in child.before
    finally:
        child.close()
    assert child.exitstatus == 0


@pytest.mark.parametrize("line", ["x" * 20_000_000, "keep " + "7" * 1_000_000, "score " + "y" * 1_000_000,
                                  "keep " + "1" * 1_000_000, "keep 1 " + "2 " * 500_000],
                         ids=["command", "keep", "score", "keep-digits", "keep-faces"])
def test_a_huge_input_line_is_not_echoed_back_whole(line: str) -> None:
    """A 20 MB line was echoed back whole in the message about it."""
    read, out = scripted([line, "quit"])
    play_game("yacht", 1, read=read, write=out.append)
    (said,) = [o for o in out if "more characters" in o]
    assert len(said) < 1000 and max(map(len, out)) < 2000
