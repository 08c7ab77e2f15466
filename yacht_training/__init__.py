"""The training code beside ``train.py``: the config schema (:mod:`.config`), the run folder (:mod:`.run_folder`),
the registry of learners (:mod:`.learners`, the built-in ones registered by :mod:`.algorithms`) and each learner's run
(:mod:`.td_learner`, :mod:`.sb3_ppo`, :mod:`.rllib_ppo`), with the SB3 vector-env adapters and safe resume.

Training needs the ``train`` extra: importing this package without it raises ``ModuleNotFoundError`` naming it."""

from yacht_env.extras import require

require("yaml", "torch", "stable_baselines3", "sb3_contrib", what="training (train.py)")
require("pydantic", what="training (train.py)")  # the config schema; often present already, so checked apart

from yacht_training import algorithms as _algorithms  # noqa: E402, F401 - registers the built-in learners
