"""The compile machinery: the rules and the observation encoder compiled by numba, and numba's disk cache.

- :mod:`.compile`: the pure functions of :mod:`yacht_env.rules` and :mod:`yacht_env.observation`, compiled once for
  every compiled engine;
- :mod:`.rule_constants`: the rules as dense arrays, for engines that cannot call compiled functions;
- :mod:`.numba_cache`: numba's disk cache of the kernels in a folder named by the sources, first compile announced;
- :mod:`.stopwatch`: seconds of a block without the seconds spent compiling;
- :mod:`.notice`: a line on stderr while something slow runs.

Nothing is imported here: numba is imported only by the modules that compile.
"""
