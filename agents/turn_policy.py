"""A MaskablePPO policy that plays each turn by exact expectimax over the dice, with learned box utilities.

The network sees only the scorecard part of the observation (open boxes, turn, capped upper total, Yahtzee box)
and outputs one *utility* per way of filling a box: what that is worth for the rest of the game. Everything
within the turn is then computed exactly from the dice model (``yacht_env.dice``): the value of ending the turn
with hand ``h`` is ``max`` over the boxes ``c`` it may go in of ``points(c, h) + utility(c, h)``; keeps are valued
by their outcome probabilities; a hand with a roll left is worth its best keep. Action values ``Q`` come out for
every keep pattern and every box; the logits are ``Q`` times a learned inverse temperature and the critic is the
best ``Q`` (the expected points still to come), so PPO's policy and value losses both train the utilities.

Why: a plain MLP over the observation has to learn the dice probabilities and the turn's search from rewards, and
it plateaus near 80% of optimal (README, "Training"). With this head the learner only has to learn what a box is
worth. It can express optimal play exactly: for Yacht the utility of box ``c`` is the optimal value of the
scorecard with ``c`` filled; for Yahtzee the utility of an upper box depends on how many dice of its face are
scored (so on the upper total it leads to) and that of the Yahtzee box on whether it gets 50. The tests check this
by plugging in the solver's values and comparing every action value with the solver's.

It never reads the solver's table: the utilities are learned from the games' rewards alone.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import torch as th
from gymnasium import spaces
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from torch import nn

from yacht_agents.sb3_policies import TURN_EXPECTIMAX_KWARGS, PolicySpec, register_policy
from yacht_env import dice as D
from yacht_env import observation as O
from yacht_env.actions import NUM_KEEP_ACTIONS
from yacht_env.jit.rule_constants import rule_constants
from yacht_env.rules import FIVE_KIND_FACE, NUM_UPPER, RuleSet, get_rules

NEG = -1.0e4  # "impossible" action value (finite, so that masked gradients stay finite)
GLOBAL_SLICES = ("open", "turn", "upper_total", "upper_bonus", "yahtzee_box")  # what the utility network sees


def utility_index(rules: RuleSet) -> tuple[np.ndarray, int]:
    """``(index, U)``: ``index[h, c]`` is the utility that scoring hand ``h`` in box ``c`` uses, among ``U``.

    Upper boxes under an upper bonus: one utility per number of dice of the box's face (0-5), since the upper
    total they lead to differs. The five-of-a-kind box when its 50 earns later bonuses: one for a 50, one for a
    0. Every other box: one utility."""
    c_num = rules.num_categories
    idx = np.zeros((D.NUM_HANDS, c_num), dtype=np.int64)
    u = 0
    for c in range(c_num):
        if rules.has_upper_bonus and c < NUM_UPPER:
            idx[:, c] = u + D.HAND_COUNTS[:, c]
            u += D.NUM_DICE + 1
        elif rules.has_five_kind_box and c == rules.five_kind_category:
            idx[:, c] = u + (FIVE_KIND_FACE > 0)
            u += 2
        else:
            idx[:, c] = u
            u += 1
    return idx, u


class TurnExpectimax(nn.Module):
    """The policy and value head (SB3's ``mlp_extractor`` slot): observation in, ``(logits, value)`` out.

    :param rules: the rule set the observations come from.
    :param reward_scale: the environment's reward scale (utilities, values and Q are in scaled points).
    :param net_arch: hidden layer widths of the utility network.
    :param activation_fn: activation of the utility network.
    :param inverse_temperature: initial logits per point of action value (learned from there).
    :param box_prior: initial points per box left open after this one, added to every utility (learned from
        there). The utilities are worth up to the whole rest of the game (over 100 points); a network starting at
        0 takes many updates to get there, while this one number gives them the right size from the start.
    """

    def __init__(self, rules: str | RuleSet, reward_scale: float, net_arch: list[int], activation_fn: type[nn.Module],
                 inverse_temperature: float = 1.0, box_prior: float = 0.0) -> None:
        super().__init__()
        rs = get_rules(rules)
        self.rules = rs
        self.reward_scale = float(reward_scale)
        lay = O.layout(rs)
        self.open = lay["open"]
        self.upper_total = lay.get("upper_total")
        gidx = np.concatenate([np.arange(lay[k].start, lay[k].stop) for k in GLOBAL_SLICES if k in lay])
        idx, n_util = utility_index(rs)
        self.num_utilities = n_util
        c = rs.num_categories
        self.latent_dim_pi = NUM_KEEP_ACTIONS + c
        self.latent_dim_vf = 1

        layers: list[nn.Module] = []
        width = len(gidx) + (rs.upper_bonus_threshold + 2 if rs.has_upper_bonus else 0)
        for w in net_arch:
            layers += [nn.Linear(width, w), activation_fn()]
            width = w
        out = nn.Linear(width, n_util)
        nn.init.zeros_(out.weight)
        nn.init.zeros_(out.bias)
        self.utility_net = nn.Sequential(*layers, out)
        self.box_prior = nn.Parameter(th.tensor(float(box_prior), dtype=th.float32))
        self.log_beta = nn.Parameter(th.tensor(math.log(inverse_temperature / self.reward_scale), dtype=th.float32))

        def buf(name: str, a: np.ndarray, dtype: th.dtype) -> None:
            self.register_buffer(name, th.as_tensor(np.array(a), dtype=dtype), persistent=False)

        buf("global_idx", gidx, th.long)
        util_cat = np.zeros(n_util, dtype=np.int64)  # the box of each utility
        util_cat[idx] = np.arange(c)[None, :]
        buf("util_cat", util_cat, th.long)
        buf("util_idx", idx, th.long)  # (252, C)
        buf("util_idx_flat", idx.reshape(-1), th.long)
        # every rule-dependent number from the rules' own arrays (yacht_env.jit.rule_constants)
        rt = rule_constants(rs)
        self.five_plain = rt.five_plain  # no Joker and no bonus: five of a kind goes the way of any hand
        buf("base_scaled", rs.box_scores * self.reward_scale, th.float32)  # (252, C): the box of each hand
        buf("base_flat", rs.box_scores.reshape(-1) * self.reward_scale, th.float32)
        gain = rt.gain[:, np.arange(c)[None, :], rs.box_scores]  # (U, 252, C): the upper bonus a box earns
        buf("gain_scaled", gain * self.reward_scale, th.float32)
        buf("gain_by_value", rt.gain * self.reward_scale, th.float32)  # (U, C, V)
        five_hands = np.flatnonzero(FIVE_KIND_FACE)
        five_pos = np.full(D.NUM_HANDS, -1, dtype=np.int64)
        five_pos[five_hands] = np.arange(len(five_hands))
        buf("five_hands", five_hands, th.long)
        buf("five_pos", five_pos, th.long)
        buf("box5", rt.box5, th.long)  # (6, 2**C, C): what a five of a kind writes, Joker included
        buf("legal5", rt.legal5, th.bool)  # (6, 2**C, C): where it may go
        buf("bonus5_scaled", rt.bonus5 * self.reward_scale, th.float32)  # (6, 2): its bonus with 50 in the box
        buf("util_idx5", idx[five_hands].reshape(-1), th.long)
        buf("trans_t", D.TRANSITION.T, th.float32)  # (252, 462)
        buf("pattern_keep", D.PATTERN_KEEP, th.long)  # (252, 32)
        pairs = sorted({(h, int(k)) for h in range(D.NUM_HANDS) for k in D.PATTERN_KEEP[h]})  # distinct keeps
        buf("pair_hand", np.array([h for h, _ in pairs]), th.long)
        buf("pair_keep", np.array([k for _, k in pairs]), th.long)
        buf("bits", 1 << np.arange(c), th.long)
        buf("cats", np.arange(c), th.long)
        buf("par", 3.0 * np.arange(1, NUM_UPPER + 1), th.float32)

    # ---- parts -----------------------------------------------------------------------------------------------
    def utilities(self, obs: th.Tensor) -> th.Tensor:
        """(B, U) learned utilities, in scaled points."""
        open_ = obs[:, self.open] > 0.5
        left = open_.sum(1, keepdim=True).to(obs.dtype) - 1  # boxes open after this one
        return self.utility_net(self.scorecard_features(obs, open_)) + self.box_prior * self.reward_scale * left

    def scorecard_features(self, obs: th.Tensor, open_: th.Tensor) -> th.Tensor:
        """The utility network's input: the scorecard slices of the observation, and under an upper bonus the
        capped upper total one-hot and its lead over three of each filled upper box's face (the bonus's par),
        both derived from the observation, so that the network need not carve them out of one scalar."""
        g = obs[:, self.global_idx]
        if not self.rules.has_upper_bonus:
            return g
        thr = self.rules.upper_bonus_threshold
        upper = th.round(obs[:, self.upper_total.start] * thr).long().clamp(0, thr)
        par = ((~open_[:, :NUM_UPPER]).to(obs.dtype) * self.par).sum(1)
        lead = (upper.to(obs.dtype) - par) / thr
        return th.cat([g, nn.functional.one_hot(upper, thr + 1).to(obs.dtype), lead[:, None]], 1)

    def _decode(self, obs: th.Tensor) -> tuple[th.Tensor, ...]:
        """``(hand, rolls, open, upper, y, filled)`` of each row, by the one decoder of the observation
        (:func:`yacht_env.observation.decode_batch`; these fields carry no gradient)."""
        d = O.decode_batch(obs.detach().cpu().numpy(), self.rules)
        dev = obs.device
        hand, rolls, upper = (th.as_tensor(a, device=dev) for a in (d.hand, d.rolls, d.upper))
        open_ = th.as_tensor(d.open, device=dev)
        y = th.as_tensor((d.five_box > 0).astype(np.int64), device=dev)  # scored with five of a kind
        filled = ((~open_).long() * self.bits).sum(1)
        return hand, rolls, open_, upper, y, filled

    def _five_kind_values(self, open_: th.Tensor, upper: th.Tensor, y: th.Tensor, filled: th.Tensor,
                          ut: th.Tensor) -> th.Tensor:
        """(B, 6, C) end-of-turn values of the six five-of-a-kind hands: their box (Joker values included), the
        upper bonus it earns, their bonus, their utility; ``NEG`` where the rules forbid the box."""
        rs = self.rules
        b = ut.shape[0]
        box = self.box5[:, filled].transpose(0, 1)  # (B, 6, C)
        gain = self.gain_by_value[upper[:, None, None], self.cats[None, None, :], box]
        util = ut.gather(1, self.util_idx5.expand(b, -1)).view(b, -1, rs.num_categories)
        end = box.to(ut.dtype) * self.reward_scale + (util + gain)
        end = end + self.bonus5_scaled[:, y].transpose(0, 1)[..., None]
        return th.where(self.legal5[:, filled].transpose(0, 1), end, th.full_like(end, NEG))

    def action_values(self, obs: th.Tensor, util: th.Tensor) -> tuple[th.Tensor, th.Tensor]:
        """``(Q, value)``: (B, 32 + C) expected scaled points still to come after each action (about ``NEG`` for
        boxes that may not be scored; keep entries ``NEG`` with no roll left) and (B,) the best of them.

        Only what a row needs is computed: a score decision needs its own hand's boxes; with a roll left, every
        hand's end-of-turn value; with two, the hands' values with one roll left as well."""
        b = obs.shape[0]
        hand, rolls, open_, upper, y, filled = self._decode(obs)
        ut = th.where(open_[:, self.util_cat], util, th.full_like(util, NEG))  # a filled box cannot close
        gain = self.gain_scaled[upper]  # (B, 252, C)
        q_box = self.base_scaled[hand] + (ut.gather(1, self.util_idx[hand]) + gain[th.arange(b, device=obs.device),
                                                                                    hand])
        end5 = None
        if not self.five_plain:
            end5 = self._five_kind_values(open_, upper, y, filled, ut)
            five = self.five_pos[hand]  # index among the six, -1 if not five of a kind
            q_box = th.where((five >= 0)[:, None], end5[th.arange(b, device=obs.device), five.clamp(min=0)], q_box)
        best_box = q_box.max(1).values
        q_keep = th.full((b, D.NUM_PATTERNS), NEG, dtype=q_box.dtype, device=obs.device)
        i1 = th.nonzero(rolls > 0).squeeze(1)
        if i1.numel():
            n1 = i1.numel()
            end = self.base_flat + (ut[i1].gather(1, self.util_idx_flat.expand(n1, -1)) + gain[i1].reshape(n1, -1))
            t0 = end.view(n1, D.NUM_HANDS, -1).max(-1).values  # every hand with no roll left: its best box
            if end5 is not None:
                t0 = t0.index_copy(1, self.five_hands, end5[i1].max(-1).values)
            keeps = t0 @ self.trans_t  # (n1, 462): each keep rolled once more
            j = th.nonzero(rolls[i1] == 2).squeeze(1)
            if j.numel():
                n2 = j.numel()
                v1 = th.full((n2, D.NUM_HANDS), NEG, dtype=keeps.dtype, device=obs.device).scatter_reduce(
                    1, self.pair_hand.expand(n2, -1), keeps[j][:, self.pair_keep], "amax", include_self=False)
                keeps = keeps.index_copy(0, j, v1 @ self.trans_t)  # one roll left: a hand's best keep
            q_keep = q_keep.index_copy(0, i1, keeps.gather(1, self.pattern_keep[hand[i1]]))
        value = th.where(rolls > 0, th.maximum(best_box, q_keep.max(1).values), best_box)
        value = th.where(open_.any(1), value, th.zeros_like(value))
        return th.cat([q_keep, q_box], 1), value

    # ---- the mlp_extractor interface -------------------------------------------------------------------------
    def forward(self, features: th.Tensor) -> tuple[th.Tensor, th.Tensor]:
        q, value = self.action_values(features, self.utilities(features))
        return q * self.log_beta.exp(), value[:, None]

    def forward_actor(self, features: th.Tensor) -> th.Tensor:
        return self.forward(features)[0]

    def forward_critic(self, features: th.Tensor) -> th.Tensor:
        return self.forward(features)[1]


class TurnExpectimaxPolicy(MaskableActorCriticPolicy):
    """MaskablePPO policy whose head is :class:`TurnExpectimax` (``rules``, ``reward_scale`` and
    ``inverse_temperature``, ``box_prior`` as there; ``net_arch`` is the utility network's hidden widths). Orthogonal
    initialisation is off: the utilities start at 0, which plays greedily for the turn's points."""

    def __init__(self, observation_space: spaces.Space, action_space: spaces.Space, lr_schedule: Any,
                 rules: str = "yacht", reward_scale: float = 0.02, inverse_temperature: float = 1.0,
                 box_prior: float = 0.0, net_arch: list[int] | None = None, activation_fn: type[nn.Module] = nn.Tanh,
                 **kwargs: Any) -> None:
        self.rules_name = get_rules(rules).name
        self.reward_scale = float(reward_scale)
        self.inverse_temperature = float(inverse_temperature)
        self.box_prior = float(box_prior)
        kwargs["ortho_init"] = False
        # it reads only slices every layout version has: a model saved with an older one reads its first columns
        want = sorted({(O.size(self.rules_name, v),) for v in O.LAYOUT_VERSIONS})
        if tuple(observation_space.shape) not in want:
            raise ValueError(f"TurnExpectimaxPolicy for rules {self.rules_name!r} needs observations of shape "
                             f"{' or '.join(map(str, want))} (one per layout version), got {observation_space.shape}")
        super().__init__(observation_space, action_space, lr_schedule, net_arch=list(net_arch or [256, 256]),
                         activation_fn=activation_fn, **kwargs)

    def _build_mlp_extractor(self) -> None:
        self.mlp_extractor = TurnExpectimax(self.rules_name, self.reward_scale, list(self.net_arch),
                                            self.activation_fn, self.inverse_temperature, self.box_prior)

    def _build(self, lr_schedule: Any) -> None:
        super()._build(lr_schedule)
        self.action_net = nn.Identity()  # the head's outputs are the logits and the value themselves
        self.value_net = nn.Identity()
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)

    def _get_constructor_parameters(self) -> dict[str, Any]:
        data = super()._get_constructor_parameters()
        data.update(rules=self.rules_name, reward_scale=self.reward_scale,
                    inverse_temperature=self.inverse_temperature, box_prior=self.box_prior)
        data.pop("ortho_init", None)
        return data


_SPEC = PolicySpec("TurnExpectimaxPolicy", "maskable", lambda: TurnExpectimaxPolicy, TURN_EXPECTIMAX_KWARGS,
                   first_layer_from_obs=False)
register_policy("yacht_agents.turn_policy", "TurnExpectimaxPolicy", _SPEC)
register_policy("agents.turn_policy", "TurnExpectimaxPolicy", _SPEC)  # where the shipped models were saved from

__all__ = ["TurnExpectimax", "TurnExpectimaxPolicy", "utility_index"]
