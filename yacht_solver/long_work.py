"""One way to announce long work: every table the solver makes (the expected values, the sizing of the reach and
distribution tables, those tables, the two-player table) says before it starts what it is about to do, how big and
for about how long, then shows it is still going, and stops at Ctrl-C within a moment (:func:`cancel_on_interrupt`).

The time is estimated from the rule set's sizes before anything is allocated: a turn-start state costs a search over
its open boxes, and :data:`STATE_BOXES_PER_SECOND` of those go by each second on one core.
"""

from __future__ import annotations

from collections.abc import Iterable
from concurrent.futures import Future

from yacht_env.jit.notice import SlowNotice, say
from yacht_env.rules import RuleSet, TurnStartLayout

STATE_BOXES_PER_SECOND = 5_500_000
"""Turn-start states times their rule set's boxes searched per second on one core: Yahtzee's 1,048,576 states of 13
boxes are solved in about 2.5 s (``yacht solve --rules yahtzee --no-cache``, the performance page)."""
ANNOUNCE_FROM_S = 10.0
"""Work estimated at this many seconds or more is announced at once; shorter work only if it runs past 2 s."""


def sweep_seconds(rules: RuleSet) -> float:
    """About how long one sweep over every turn-start state of ``rules`` takes on one core."""
    return TurnStartLayout.of(rules).size * rules.num_categories / STATE_BOXES_PER_SECOND


def about(seconds: float) -> str:
    """``about 40 s``, ``about 4 minutes``, ``about 2.5 hours``."""
    if seconds < 90:
        return f"about {max(seconds, 1):.0f} s"
    if seconds < 5400:
        return f"about {seconds / 60:.0f} minutes"
    return f"about {seconds / 3600:.1f} hours"


def long_work(what: str, seconds: float) -> SlowNotice:
    """The notice of a piece of long work: ``what`` (with its size) and its estimated time said at once when it is
    long (:data:`ANNOUNCE_FROM_S`), then "still ..." lines while it runs."""
    line = f"{what}, {about(seconds)}; Ctrl-C stops it and keeps nothing"
    if seconds >= ANNOUNCE_FROM_S:
        say(line + "...")
        return SlowNotice(line, said=True)
    return SlowNotice(line)


def cancel_on_interrupt(jobs: Iterable[Future]) -> None:
    """Cancel the queued ``jobs`` of a thread pool (those running end within a moment): called where Ctrl-C
    interrupts the wait, so that leaving the pool does not run the rest of the work first."""
    for job in jobs:
        job.cancel()
