"""The per-game step of the engine: roll, play an action, write the legal-action mask and the observation.

Every rule comes from :mod:`yacht_env.rules`: the turn logic (``legal_bits``, ``box_score``, ``points_for``) is the
*same* Python functions, compiled once by :mod:`yacht_env.jit.compile`, and so is the observation encoder
(:func:`yacht_env.observation.write_observation`); the scoring, dice and encoder arrays are passed in as arrays
(:class:`yacht_env.engine.batch.KernelInputs`). The dice are drawn with :mod:`yacht_env.engine.pcg64` exactly as
:func:`yacht_env.randomness.roll` draws them. These functions are inlined into the kernels over a batch
(:mod:`.batch_kernels`), each at one call site: numba compiles an inlined function again at every site, and that is
what a first use waits for. ``tests/test_vector.py`` checks the vector engine bit for bit against
:class:`yacht_env.env.YachtEnv`, and ``tests/test_env.py`` holds that env to the pure transitions of
:mod:`yacht_env.state`.
"""

from __future__ import annotations

import numpy as np

from yacht_env import dice as D
from yacht_env import rules as R
from yacht_env.actions import NUM_KEEP_ACTIONS
from yacht_env.engine import pcg64 as PCG
from yacht_env.engine.batch import (
    C_AUTORESET,
    C_NUM_CAT,
    C_TIME_LIMIT,
    C_YCAT,
    Batch,
    KernelInputs,
    StepOutputs,
)
from yacht_env.jit.compile import box_score, legal_bits, points_for, write_observation
from yacht_env.jit.numba_cache import cached_njit
from yacht_env.observation import Position
from yacht_env.rules import HandRules
from yacht_env.state import ROLLS_PER_TURN

EMPTY_KEEP = int(D.KEY_TO_KEEP[0])  # keep index of "no dice kept" (0)
RESET_ACTION = -1
"""The action :func:`step_game` takes as "start a new game" (never a player's: actions are checked first)."""
SKIP_ACTION = -2
"""The action :func:`step_game` takes as "leave the game as it is": nothing of it or of its rows of the outputs is
written (the games a partial reset keeps)."""
_FULL_HAND = D.NUM_DICE


# ---- per-game helpers (inlined into the kernels) ------------------------------------------------------------------
# ``st`` is a Batch, ``ki`` a KernelInputs: fields read by name


@cached_njit(inline="always", _nrt=False)
def roll_into(keep, n, rng, i, keep_add, keep_to_hand):
    """Roll ``n`` dice from game i's generator onto keep index ``keep``; return the hand index."""
    s_hi = rng[i, PCG.S_HI]
    s_lo = rng[i, PCG.S_LO]
    i_hi = rng[i, PCG.I_HI]
    i_lo = rng[i, PCG.I_LO]
    for _ in range(n):
        f, s_hi, s_lo = PCG.die(s_hi, s_lo, i_hi, i_lo)
        keep = keep_add[keep, f - 1]
    rng[i, PCG.S_HI] = s_hi
    rng[i, PCG.S_LO] = s_lo
    return keep_to_hand[keep]


@cached_njit(inline="always", _nrt=False)
def legal(i, st, ki):
    """Legal score bits of game i (0 once the game is over: nothing is legal then)."""
    hand, filled = st.hand, st.filled
    params, cfg, five = ki.scoring.params, ki.cfg, ki.dice.five_face
    f = np.int64(filled[i])
    if f == (np.int64(1) << cfg[C_NUM_CAT]) - 1:
        return np.int64(0)
    return np.int64(legal_bits(params, five[hand[i]], f))


@cached_njit(inline="always", _nrt=False)
def write_mask(row, i, lbits, st, ki) -> None:
    """Legal-action mask of game i into the 1-d ``row``: the keep part copied from the hand's keep row (or zeros),
    the score part expanded from the legal bits."""
    keep_mask, c = ki.keep_mask, ki.cfg[C_NUM_CAT]
    if st.rolls[i] > 0 and lbits != 0:
        krow = keep_mask[st.hand[i]]
        for a in range(NUM_KEEP_ACTIONS):
            row[a] = krow[a]
    else:
        for a in range(NUM_KEEP_ACTIONS):
            row[a] = False
    for k in range(c):
        row[NUM_KEEP_ACTIONS + k] = (lbits >> k) & 1 == 1


@cached_njit(inline="always", _nrt=False)
def write_obs_row(row, i, lbits, st, ki) -> None:
    """Observation of game i into the 1-d ``row``: :func:`yacht_env.observation.write_observation`, compiled."""
    hand, rolls, filled, scores, upper = st.hand, st.rolls, st.filled, st.scores, st.upper
    sc, cfg, five = ki.scoring, ki.cfg, ki.dice.five_face
    params, score, joker = sc.params, sc.box_scores, sc.joker_scores
    h = hand[i]
    ycat = cfg[C_YCAT]
    five_box = np.int64(scores[i, ycat]) if ycat >= 0 else np.int64(-1)
    write_observation(row, ki.encoder,
                      HandRules(params, score[h], joker[h], five[h]),
                      Position(np.int64(h), np.int64(rolls[i]), np.int64(filled[i]), np.int64(upper[i]), five_box,
                               lbits))


@cached_njit(inline="always", _nrt=False)
def new_game(i, st, ki) -> None:
    """Game i starts over: empty scorecard, no dice yet (its first roll is :func:`roll_into` from
    :data:`EMPTY_KEEP`)."""
    for k in range(ki.cfg[C_NUM_CAT]):
        st.scores[i, k] = -1
    st.filled[i] = 0
    st.upper[i] = 0
    st.bonus[i] = 0
    st.total[i] = 0
    st.steps[i] = 0
    st.rolls[i] = ROLLS_PER_TURN - 1


@cached_njit(inline="always", _nrt=False)
def play(i, a, st, ki, mask) -> tuple[int, bool, int]:
    """Game i takes action ``a`` as :meth:`yacht_env.env.YachtEnv.step` does (an illegal action is a no-op) and
    counts the step; the roll that follows is left to the caller. Returns (points added, whether the action was
    illegal, the keep to roll the other dice from: -1 for no roll)."""
    hand, rolls, filled, scores, upper, bonus, total, steps, _ = st
    sc, cfg, five = ki.scoring, ki.cfg, ki.dice.five_face
    params, score, joker = sc.params, sc.box_scores, sc.joker_scores
    ycat = cfg[C_YCAT]
    steps[i] += 1
    pts = 0
    bad = not mask[i, a]  # the mask row is the current game's (the kernels keep it so)
    if bad:
        return pts, bad, -1
    h = hand[i]
    keep = EMPTY_KEEP  # the dice kept for the roll that follows, if any
    if a < NUM_KEEP_ACTIONS:
        keep = ki.dice.pattern_keep[h, a]
        rolls[i] -= 1
    else:
        k = a - NUM_KEEP_ACTIONS
        f = np.int64(filled[i])
        face = five[h]
        scored5 = ycat >= 0 and scores[i, ycat] > 0  # that box holds its five-of-a-kind score or 0 (RuleSet)
        pts = points_for(params, score[h], joker[h], face, f, np.int64(upper[i]), scored5, k)
        box = box_score(params, score[h], joker[h], face, f, k)
        if face > 0 and scored5 and params[R.P_FIVE_BONUS] > 0:
            bonus[i] += 1
        scores[i, k] = box
        f |= np.int64(1) << k
        filled[i] = f
        if k < R.NUM_UPPER:
            upper[i] += box
        total[i] += pts
        if f == (np.int64(1) << cfg[C_NUM_CAT]) - 1:
            rolls[i] = 0
            return pts, bad, -1
        rolls[i] = ROLLS_PER_TURN - 1
    return pts, bad, keep


@cached_njit(inline="always", _nrt=False)
def step_game(i: int, a: int, st: Batch, ki: KernelInputs, out: StepOutputs) -> int:
    """Step game i with action ``a`` (:func:`play`; :data:`RESET_ACTION` starts a new game instead,
    :data:`SKIP_ACTION` leaves it and its output rows as they are), then, with autoreset, restart it if it ended;
    writes row i of ``out``. Returns 1 if it ended.

    Truncation, the one mechanism: after the ``TimeLimit`` steps (``max_episode_steps``, which ``make_vec`` passes)
    whether or not the game also terminated, as Gymnasium's wrapper does; none without it. Each helper has one call
    site (an inlined function is compiled again at every site, which is what a cold start waits for): a game that
    ends under autoreset goes round the loop twice, its final observation and mask first; the roll after an action
    or a new game is made in the loop."""
    if a == SKIP_ACTION:
        return 0
    obs, mask, reward, terminated, truncated, illegal, final_obs, final_mask, final_card = out
    filled, scores, upper, bonus, total, steps = st.filled, st.scores, st.upper, st.bonus, st.total, st.steps
    params, cfg = ki.scoring.params, ki.cfg
    c = cfg[C_NUM_CAT]
    ended = 0
    term = False
    keep = -1  # the dice kept for a roll still to make (-1: none)
    restart = a == RESET_ACTION
    if a < 0:
        reward[i] = 0
        illegal[i] = False
        terminated[i] = False
        truncated[i] = False
    else:
        pts, bad, keep = play(i, a, st, ki, mask)
        reward[i] = pts
        illegal[i] = bad
        term = np.int64(filled[i]) == (np.int64(1) << c) - 1
        limit = cfg[C_TIME_LIMIT]
        trunc = limit > 0 and steps[i] >= limit
        terminated[i] = term
        truncated[i] = trunc
        if term or trunc:
            ended = 1
    if term:
        for k in range(c):
            final_card[i, k] = scores[i, k]
        ub = params[R.P_UPPER_BONUS]
        final_card[i, c] = ub if ub > 0 and upper[i] >= params[R.P_UPPER_THRESHOLD] else 0
        final_card[i, c + 1] = bonus[i] * params[R.P_FIVE_BONUS]
        final_card[i, c + 2] = total[i]
    else:  # the outputs are allocated uninitialised: the card and final mask rows of other games hold zeros
        for k in range(c + 3):
            final_card[i, k] = 0
    final = ended == 1 and cfg[C_AUTORESET] != 0
    if not final and cfg[C_AUTORESET] != 0:  # without autoreset final_mask is never read
        for j in range(final_mask.shape[1]):
            final_mask[i, j] = False
    while True:
        if restart:
            new_game(i, st, ki)
            keep = EMPTY_KEEP
        if keep >= 0:
            dice = ki.dice
            st.hand[i] = roll_into(keep, _FULL_HAND - dice.keep_size[keep], st.rng, i, dice.keep_add, dice.keep_to_hand)
            keep = -1
        lbits = legal(i, st, ki)
        write_mask(final_mask[i] if final else mask[i], i, lbits, st, ki)
        write_obs_row(final_obs[i] if final else obs[i], i, lbits, st, ki)
        if not final:
            return ended
        final = False
        restart = True
