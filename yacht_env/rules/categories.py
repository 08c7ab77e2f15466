"""The boxes of a scorecard: each a scoring *kind* with parameters, scored on face counts.

A :class:`Category` is pure data plus its scoring rule; rule sets (:mod:`yacht_env.rules.definitions`) are lists
of them. Scores are computed once per rule set into arrays over the 252 hands (:class:`.RuleSet`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from yacht_env import dice as D


@dataclass(frozen=True)
class Category:
    """One box on the scorecard.

    ``kind`` names the scoring rule and ``param`` parametrises it:

    - ``upper``: sum of the dice showing face ``param``.
    - ``full_house_sum`` / ``full_house_fixed``: exactly three of one face and two of another; the dice sum /
      ``param`` points.
    - ``full_house_sum_or_five``: three of one face and two of another, or five of a kind; the dice sum (Knizia's
      Full House, where five of a kind counts as a full house).
    - ``kind_face_times``: at least ``param`` dice of one face; ``param`` × the highest such face (Yacht's Four of a
      Kind; Yatzy's One Pair, Three and Four of a Kind: only the dice of the set count).
    - ``kind_sum``: at least ``param`` dice of one face; sum of all dice.
    - ``two_pairs``: two different faces with at least two dice each; the sum of those four dice (Yatzy's Two Pairs:
      four or five of a kind is one face, so not two pairs; a full house is).
    - ``straight_exact``: the dice are exactly the faces in ``faces``; ``param`` points.
    - ``straight_run``: ``run`` consecutive faces among the dice; ``param`` points.
    - ``sum``: sum of all dice.
    - ``five_kind``: all five dice the same; ``param`` points.
    """

    id: str
    name: str
    kind: str
    param: int = 0
    faces: tuple[int, ...] = ()
    run: int = 0

    def score_counts(self, counts: Sequence[int]) -> int:
        """Box score of a hand given as face counts (``counts[f-1]`` dice show ``f``)."""
        total = sum((f + 1) * c for f, c in enumerate(counts))
        k = self.kind
        if k == "upper":
            return self.param * int(counts[self.param - 1])
        if k in ("full_house_sum", "full_house_fixed"):
            if sorted(c for c in counts if c) == [2, 3]:
                return total if k == "full_house_sum" else self.param
            return 0
        if k == "full_house_sum_or_five":
            return total if sorted(c for c in counts if c) in ([2, 3], [D.NUM_DICE]) else 0
        if k == "kind_face_times":
            for f in range(D.NUM_FACES, 0, -1):  # the highest face first: for a pair of dice, two faces may qualify
                if counts[f - 1] >= self.param:
                    return self.param * f
            return 0
        if k == "two_pairs":
            pairs = [f + 1 for f, c in enumerate(counts) if c >= 2]
            return 2 * sum(pairs) if len(pairs) == 2 else 0
        if k == "kind_sum":
            return total if max(counts) >= self.param else 0
        if k == "straight_exact":
            want = [0] * D.NUM_FACES
            for f in self.faces:
                want[f - 1] += 1
            return self.param if list(counts) == want else 0
        if k == "straight_run":
            run = best = 0
            for c in counts:
                run = run + 1 if c else 0
                best = max(best, run)
            return self.param if best >= self.run else 0
        if k == "sum":
            return total
        if k == "five_kind":
            return self.param if max(counts) == D.NUM_DICE else 0
        raise ValueError(f"unknown category kind {k!r}")

    def joker_score(self, face: int) -> int:
        """Box score of five ``face``s when the Joker rule grants full value (Full House, straights at par)."""
        if self.kind == "full_house_fixed":
            return self.param
        if self.kind in ("straight_exact", "straight_run"):
            return self.param
        counts = [0] * D.NUM_FACES
        counts[face - 1] = D.NUM_DICE
        return self.score_counts(counts)
