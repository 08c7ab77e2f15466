"""The compiled engine: the rules and the observation encoder compiled by numba, and the kernels built on them.

- :mod:`.compile`: the pure functions of :mod:`yacht_env.rules` and :mod:`yacht_env.observation`, compiled;
- :mod:`.numba_cache`: numba's disk cache kept fresh and shared safely between processes, first-use compilation
  announced and timed apart;
- :mod:`.batch`, :mod:`.game`, :mod:`.batch_kernels`: N games in arrays and their steps (one thread);
- :mod:`.pcg64`, :mod:`.sampler`: dice (numpy's PCG64 in numba), random legal actions;
- :mod:`.notice`: a line on stderr while something slow runs;
- :mod:`.turn_search`, :mod:`.turn_tables`, :mod:`.state_search`: the search of a turn over the dice model;
  :mod:`.rule_tables`: the rules as dense tables.

Nothing is imported here: each engine part compiles only when used.
"""
