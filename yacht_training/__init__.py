"""The training code beside ``train.py``: the config schema (:mod:`.config`), the run folder (:mod:`.run_folder`),
and each algorithm's run (:mod:`.td`, :mod:`.sb3_ppo`), with the SB3 vector-env adapter and safe resume.

Training needs the ``train`` extra: importing this package without it raises ``ModuleNotFoundError`` naming it."""

from yacht_env.extras import require

require("yaml", "torch", "stable_baselines3", "sb3_contrib", what="training (train.py)")
require("pydantic", what="training (train.py)")  # the config schema; often present already, so checked apart
