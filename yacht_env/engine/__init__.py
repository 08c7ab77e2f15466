"""The compiled engine that steps games: N games in arrays and the numba kernels that step them.

- :mod:`.batch`, :mod:`.game`, :mod:`.batch_kernels`: N games in arrays and their steps (one thread);
- :mod:`.one_game`: one game stepped by the same kernel (the single environment's compiled path);
- :mod:`.pcg64`, :mod:`.sampler`: dice (numpy's PCG64 in numba), random legal actions;
- :mod:`.self_play`: sampled turns for TD self-play.

The turn search the solver and the agents share is :mod:`yacht_solver.search`; the compile machinery (the rules
compiled, numba's cache) is :mod:`yacht_env.jit`. Nothing is imported here: each engine part compiles only when used.
"""
