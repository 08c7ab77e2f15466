"""The lean PPO loop (``ppo.learner: lean``): MaskablePPO's rollout and update written for the engine's arrays.

sb3-contrib's MaskablePPO spends most of a run outside the network: per rollout step it converts observations,
builds a masked distribution object and copies every array into numpy buffers; per minibatch it copies the rollout
again and builds the distribution anew. :class:`LeanMaskablePPO` keeps MaskablePPO's model, file format, schedules,
callbacks, checkpoints and ``learn()``, and replaces only its two hot methods:

- :meth:`LeanMaskablePPO.collect_rollouts`: the rollout lives in preallocated torch tensors; actions are sampled by
  the Gumbel-max trick over the masked logits (one ``argmax``, no distribution object); GAE is computed in place.
- :meth:`LeanMaskablePPO.train`: minibatches are index views into the rollout; the masked log-probabilities and
  entropy come from one ``log_softmax``; optional ``torch.compile`` (``ppo.compile``) of the network. (bfloat16,
  ``ppo.autocast``, is the network's own: it works the same with either learner.)

The losses are MaskablePPO's (clipped surrogate, per-minibatch advantage normalisation, MSE value loss to the GAE
returns, entropy bonus, gradient-norm clip, ``target_kl`` early stop), so a config trains the same model with either
learner; ``benchmarks/bench_learner.py`` measures both side by side.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
import torch as th
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.utils import get_action_masks
from stable_baselines3.common.utils import explained_variance

ILLEGAL = -1e8
"""The logit an illegal action gets (MaskablePPO's value): its probability is 0 in float32."""


class Rollout(NamedTuple):
    """One rollout, ``(n_steps, n_envs, ...)`` tensors; ``advantages`` and ``returns`` filled after the last step."""

    obs: th.Tensor
    masks: th.Tensor
    actions: th.Tensor
    log_probs: th.Tensor
    values: th.Tensor
    rewards: th.Tensor
    dones: th.Tensor  # the step ended the game (the next observation is a new game's)
    advantages: th.Tensor
    returns: th.Tensor


def new_rollout(n_steps: int, n_envs: int, obs_dim: int, n_actions: int) -> Rollout:
    """Zeroed tensors of one rollout."""
    f = {"dtype": th.float32}
    return Rollout(obs=th.zeros(n_steps, n_envs, obs_dim, **f), masks=th.zeros(n_steps, n_envs, n_actions,
                                                                               dtype=th.bool),
                   actions=th.zeros(n_steps, n_envs, dtype=th.long), log_probs=th.zeros(n_steps, n_envs, **f),
                   values=th.zeros(n_steps, n_envs, **f), rewards=th.zeros(n_steps, n_envs, **f),
                   dones=th.zeros(n_steps, n_envs, **f), advantages=th.zeros(n_steps, n_envs, **f),
                   returns=th.zeros(n_steps, n_envs, **f))


def masked_log_softmax(logits: th.Tensor, masks: th.Tensor) -> th.Tensor:
    """Log-probabilities over the legal actions (illegal ones about :data:`ILLEGAL`: finite, so that the entropy's
    gradient holds no ``0 * inf``)."""
    return th.log_softmax(logits.float().masked_fill(~masks, ILLEGAL), dim=-1)


def masked_entropy(log_p: th.Tensor, masks: th.Tensor) -> th.Tensor:
    """Entropy of each row over its legal actions, from :func:`masked_log_softmax`'s output."""
    return -(log_p.exp() * log_p).where(masks, 0.0).sum(-1)


def gae(r: Rollout, last_values: th.Tensor, gamma: float, lam: float) -> None:
    """Fill ``r.advantages`` and ``r.returns`` by generalised advantage estimation (SB3's convention: a done step
    does not bootstrap from the next observation)."""
    last = th.zeros_like(last_values)
    next_values = last_values
    for t in range(r.rewards.shape[0] - 1, -1, -1):
        alive = 1.0 - r.dones[t]
        delta = r.rewards[t] + gamma * next_values * alive - r.values[t]
        last = delta + gamma * lam * alive * last
        r.advantages[t] = last
        next_values = r.values[t]
    th.add(r.advantages, r.values, out=r.returns)


class LeanMaskablePPO(MaskablePPO):
    """MaskablePPO with the lean rollout and update (module docstring). Extra keyword arguments: ``compile_net``
    (``torch.compile`` the network), ``entropy_schedules`` (``((keep start, end), (score start, end))``: entropy
    weights per decision type, for policies with ``keep_decision``)."""

    def __init__(self, *args: Any, compile_net: bool = False,
                 entropy_schedules: tuple[tuple[float, float], tuple[float, float]] | None = None,
                 **kwargs: Any) -> None:
        self.compile_net = compile_net
        self.entropy_schedules = entropy_schedules
        self._rollout: Rollout | None = None
        self._net: Any = None
        super().__init__(*args, **kwargs)
        opt = self.policy.optimizer
        if type(opt) in (th.optim.Adam, th.optim.AdamW):  # fused: one kernel for all weights, 3x faster a step
            self.policy.optimizer = type(opt)(self.policy.parameters(), **{**opt.defaults, "fused": True,
                                                                           "foreach": None})
        if entropy_schedules is not None and not hasattr(self.policy.mlp_extractor, "keep_decision"):
            raise ValueError("ppo.ent_coef_keep / ppo.ent_coef_score need policy.kind model_free (it tells keep "
                             "decisions from score decisions)")

    def _excluded_save_params(self) -> list[str]:
        return [*super()._excluded_save_params(), "_rollout", "_net"]

    # ---- the network: logits and values of a batch of observations ----------------------------------------------
    def logits_values(self, obs: th.Tensor) -> tuple[th.Tensor, th.Tensor]:
        """``(logits (B, A), values (B,))`` of the policy, in fp32 (the network may run in bfloat16)."""
        if self._net is None:
            p = self.policy

            def net(o: th.Tensor) -> tuple[th.Tensor, th.Tensor]:
                latent_pi, latent_vf = p.mlp_extractor(p.extract_features(o, p.features_extractor))
                return p.action_net(latent_pi), p.value_net(latent_vf)

            self._net = th.compile(net, dynamic=False) if self.compile_net else net
        logits, values = self._net(obs)
        return logits.float(), values.float().flatten()

    # ---- rollout --------------------------------------------------------------------------------------------------
    def collect_rollouts(self, env: Any, callback: Any, rollout_buffer: Any, n_rollout_steps: int,
                         use_masking: bool = True) -> bool:
        """Play ``n_rollout_steps`` steps of every game into the rollout tensors; ``False`` if a callback stopped
        the run."""
        self.policy.set_training_mode(False)
        n, obs_dim = env.num_envs, int(np.prod(env.observation_space.shape))
        if self._rollout is None or self._rollout.obs.shape[:2] != (n_rollout_steps, n):
            self._rollout = new_rollout(n_rollout_steps, n, obs_dim, int(env.action_space.n))
        r = self._rollout
        callback.on_rollout_start()
        for t in range(n_rollout_steps):
            r.obs[t] = th.from_numpy(np.asarray(self._last_obs, dtype=np.float32))
            r.masks[t] = th.from_numpy(get_action_masks(env))
            with th.no_grad():
                logits, r.values[t] = self.logits_values(r.obs[t])
                log_p = masked_log_softmax(logits, r.masks[t])
                gumbel = -th.log(-th.log(th.rand_like(log_p).clamp_(1e-20, 1.0)))
                r.actions[t] = th.argmax(log_p + gumbel, dim=-1)
                r.log_probs[t] = log_p.gather(1, r.actions[t, :, None])[:, 0]
            new_obs, rewards, dones, infos = env.step(r.actions[t].numpy())
            self.num_timesteps += n
            callback.update_locals(locals())
            if not callback.on_step():
                return False
            self._update_info_buffer(infos, dones)
            r.rewards[t] = th.from_numpy(np.asarray(rewards, dtype=np.float32))
            r.dones[t] = th.from_numpy(np.asarray(dones, dtype=np.float32))
            self._bootstrap_truncated(r, t, infos)
            self._last_obs = new_obs
            self._last_episode_starts = dones
        with th.no_grad():
            _, last_values = self.logits_values(th.from_numpy(np.asarray(new_obs, dtype=np.float32)))
        gae(r, last_values, self.gamma, self.gae_lambda)
        callback.on_rollout_end()
        return True

    def _bootstrap_truncated(self, r: Rollout, t: int, infos: list[dict[str, Any]]) -> None:
        """A game cut by ``max_steps`` (not finished) is worth its value: add it to the last reward (SB3 does the
        same)."""
        cut = [i for i in np.flatnonzero(r.dones[t].numpy()) if infos[i].get("TimeLimit.truncated", False)]
        if not cut:
            return
        last = th.as_tensor(np.stack([infos[i]["terminal_observation"] for i in cut]), dtype=th.float32)
        with th.no_grad():
            _, v = self.logits_values(last)
        r.rewards[t, cut] += self.gamma * v

    # ---- update ---------------------------------------------------------------------------------------------------
    def _entropy_weights(self, obs: th.Tensor) -> th.Tensor | float:
        """The entropy weight of each row: the scheduled keep or score weight, or ``ent_coef`` on every row."""
        if self.entropy_schedules is None:
            return float(self.ent_coef)
        done = 1.0 - self._current_progress_remaining
        (k0, k1), (s0, s1) = self.entropy_schedules
        keep, score = k0 + (k1 - k0) * done, s0 + (s1 - s0) * done
        self.logger.record("train/ent_coef_keep", keep)
        self.logger.record("train/ent_coef_score", score)
        return th.where(self.policy.mlp_extractor.keep_decision(obs), keep, score)

    def train(self) -> None:
        """``n_epochs`` passes of minibatch updates over the rollout (MaskablePPO's losses)."""
        assert self._rollout is not None, "collect_rollouts() fills the rollout train() learns from"
        self.policy.set_training_mode(True)
        self._update_learning_rate(self.policy.optimizer)
        clip = float(self.clip_range(self._current_progress_remaining))
        r = self._rollout
        obs, masks = r.obs.flatten(0, 1), r.masks.flatten(0, 1)
        actions, old_log_p = r.actions.flatten(), r.log_probs.flatten()
        advantages, returns = r.advantages.flatten(), r.returns.flatten()
        ent_w = self._entropy_weights(obs)
        stats: dict[str, list[float]] = {"pg": [], "vf": [], "ent": [], "kl": [], "clip": []}
        size = obs.shape[0]
        for _ in range(self.n_epochs):
            kls: list[float] = []
            for mb in th.randperm(size).split(self.batch_size):
                logits, values = self.logits_values(obs[mb])
                log_p_all = masked_log_softmax(logits, masks[mb])
                log_p = log_p_all.gather(1, actions[mb, None])[:, 0]
                entropy = masked_entropy(log_p_all, masks[mb])
                adv = advantages[mb]
                adv = (adv - adv.mean()) / (adv.std() + 1e-8)
                log_ratio = log_p - old_log_p[mb]
                ratio = log_ratio.exp()
                pg = -th.min(adv * ratio, adv * ratio.clamp(1 - clip, 1 + clip)).mean()
                vf = th.nn.functional.mse_loss(values, returns[mb])
                w = ent_w if isinstance(ent_w, float) else ent_w[mb]
                ent = (entropy * w).mean()
                with th.no_grad():
                    kl = float(((ratio - 1) - log_ratio).mean())
                    stats["clip"].append(float(((ratio - 1).abs() > clip).float().mean()))
                kls.append(kl)
                stats["pg"].append(float(pg.detach()))
                stats["vf"].append(float(vf.detach()))
                stats["ent"].append(-float(ent.detach()))
                if self.target_kl is not None and kl > 1.5 * self.target_kl:
                    break
                loss = pg + self.vf_coef * vf - ent
                self.policy.optimizer.zero_grad(set_to_none=True)
                loss.backward()
                th.nn.utils.clip_grad_norm_(self.policy.parameters(), self.max_grad_norm)
                self.policy.optimizer.step()
            stats["kl"] += kls
            self._n_updates += 1
            if self.target_kl is not None and kls and kls[-1] > 1.5 * self.target_kl:
                break
        self.logger.record("train/entropy_loss", float(np.mean(stats["ent"])))
        self.logger.record("train/policy_gradient_loss", float(np.mean(stats["pg"])))
        self.logger.record("train/value_loss", float(np.mean(stats["vf"])))
        self.logger.record("train/approx_kl", float(np.mean(stats["kl"])))
        self.logger.record("train/clip_fraction", float(np.mean(stats["clip"])))
        self.logger.record("train/explained_variance",
                           float(explained_variance(r.values.flatten().numpy(), returns.numpy())))
        self.logger.record("train/n_updates", self._n_updates, exclude="tensorboard")
        self.logger.record("train/clip_range", clip)


__all__ = ["LeanMaskablePPO", "Rollout", "gae", "masked_entropy", "masked_log_softmax", "new_rollout"]
