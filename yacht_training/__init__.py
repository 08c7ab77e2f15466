"""The training code beside ``train.py``: the config schema (:mod:`.config`), the run folder (:mod:`.run_folder`),
and each algorithm's run (:mod:`.td`, :mod:`.sb3_ppo`), with the SB3 vector-env adapter and safe resume."""
