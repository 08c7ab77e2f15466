"""The turn search: exact expectimax over one turn's rolls and keeps, shared by the solver and the agents.

- :mod:`.turn_constants`: what the search reads (the dice arrays and each rule set's arrays);
- :mod:`.turn_search`: the compiled search of a turn, for many turn-start states at once;
- :mod:`.state_search`: the search from one state with every action's value (hints, the turn policy);
- :mod:`.turn_successors`: which turn-start states a batch of turns can lead to.

Nothing is imported here: each part compiles only when used.
"""
