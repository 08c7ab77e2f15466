"""Masked PPO on the vector engine in one file, in the style of CleanRL's ``ppo.py``: read it top to bottom.

    python examples/cleanrl_masked_ppo.py --rules yacht --total-timesteps 200000

The vector engine (``gym.make_vec(..., vectorization_mode="vector_entry_point")``) steps all games in numba; the
policy is a small MLP whose logits of illegal actions are pushed to a large negative number before sampling, so it
only ever picks legal actions. The autoreset mode is ``SAME_STEP``: the observation after a game ends is already the
next game's first one, so every step of the rollout is a decision (``NEXT_STEP`` would put a step whose action is
ignored after every game). Legal play never truncates, so a finished game's value is 0 and nothing needs
bootstrapping. At the end the policy is measured against optimal play on seeded games (``yacht_tools.evaluation``).
"""

from __future__ import annotations

import argparse
import time

import gymnasium as gym
import numpy as np
import torch
from gymnasium.vector import AutoresetMode
from torch import nn
from torch.distributions import Categorical

import yacht_env
from yacht_tools.evaluation import evaluate


def parse_args() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rules", default="yacht", choices=sorted(yacht_env.ENV_IDS))
    p.add_argument("--total-timesteps", type=int, default=200_000)
    p.add_argument("--num-envs", type=int, default=64)
    p.add_argument("--num-steps", type=int, default=128, help="steps per game per rollout")
    p.add_argument("--learning-rate", type=float, default=3e-4)
    p.add_argument("--gamma", type=float, default=1.0, help="the score is a sum: no discount")
    p.add_argument("--gae-lambda", type=float, default=0.95)
    p.add_argument("--update-epochs", type=int, default=4)
    p.add_argument("--minibatches", type=int, default=4)
    p.add_argument("--clip-coef", type=float, default=0.2)
    p.add_argument("--ent-coef", type=float, default=0.01)
    p.add_argument("--vf-coef", type=float, default=0.5)
    p.add_argument("--reward-scale", type=float, default=0.02, help="points x this: returns of a few units")
    p.add_argument("--eval-episodes", type=int, default=1000)
    p.add_argument("--seed", type=int, default=0)
    return p.parse_args()


class Agent(nn.Module):
    """An actor and a critic over the flat observation."""

    def __init__(self, obs_size: int, n_actions: int) -> None:
        super().__init__()
        self.actor = nn.Sequential(nn.Linear(obs_size, 256), nn.Tanh(), nn.Linear(256, 256), nn.Tanh(),
                                   nn.Linear(256, n_actions))
        self.critic = nn.Sequential(nn.Linear(obs_size, 256), nn.Tanh(), nn.Linear(256, 1))

    def dist(self, obs: torch.Tensor, mask: torch.Tensor) -> Categorical:
        return Categorical(logits=self.actor(obs).masked_fill(~mask, -1e8))

    def value(self, obs: torch.Tensor) -> torch.Tensor:
        return self.critic(obs).squeeze(-1)


def main() -> None:
    args = parse_args()
    torch.manual_seed(args.seed)
    envs = gym.make_vec(yacht_env.ENV_IDS[args.rules], num_envs=args.num_envs, vectorization_mode="vector_entry_point",
                        autoreset_mode=AutoresetMode.SAME_STEP)
    obs_size, n_actions = envs.single_observation_space.shape[0], int(envs.single_action_space.n)
    agent = Agent(obs_size, n_actions)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)
    n, t_len = args.num_envs, args.num_steps
    obs_buf = torch.zeros(t_len, n, obs_size)
    mask_buf = torch.zeros(t_len, n, n_actions, dtype=torch.bool)
    act_buf, logp_buf, rew_buf, done_buf, val_buf = (torch.zeros(t_len, n) for _ in range(5))
    obs, _ = envs.reset(seed=args.seed)
    next_obs, next_mask = torch.as_tensor(obs), torch.as_tensor(envs.action_masks())
    iterations = max(1, args.total_timesteps // (n * t_len))
    start = time.perf_counter()
    for it in range(iterations):
        for t in range(t_len):  # the rollout
            obs_buf[t], mask_buf[t] = next_obs, next_mask
            with torch.no_grad():
                dist = agent.dist(next_obs, next_mask)
                action = dist.sample()
                logp_buf[t], val_buf[t] = dist.log_prob(action), agent.value(next_obs)
            obs, reward, terminated, truncated, _ = envs.step(action.numpy())
            act_buf[t], rew_buf[t] = action, torch.as_tensor(reward * args.reward_scale, dtype=torch.float32)
            done_buf[t] = torch.as_tensor(terminated | truncated, dtype=torch.float32)
            next_obs, next_mask = torch.as_tensor(obs), torch.as_tensor(envs.action_masks())
        with torch.no_grad():  # generalised advantage estimation; a finished game's value is 0
            adv = torch.zeros(t_len, n)
            last = torch.zeros(n)
            next_value = agent.value(next_obs)
            for t in reversed(range(t_len)):
                nv = next_value if t == t_len - 1 else val_buf[t + 1]
                delta = rew_buf[t] + args.gamma * nv * (1 - done_buf[t]) - val_buf[t]
                last = delta + args.gamma * args.gae_lambda * (1 - done_buf[t]) * last
                adv[t] = last
            ret = adv + val_buf
        b_obs, b_mask = obs_buf.reshape(-1, obs_size), mask_buf.reshape(-1, n_actions)
        b_act, b_logp, b_adv, b_ret = (x.reshape(-1) for x in (act_buf, logp_buf, adv, ret))
        size = b_obs.shape[0] // args.minibatches
        for _ in range(args.update_epochs):  # the PPO update
            for idx in torch.randperm(b_obs.shape[0]).split(size):
                dist = agent.dist(b_obs[idx], b_mask[idx])
                ratio = (dist.log_prob(b_act[idx]) - b_logp[idx]).exp()
                a = (b_adv[idx] - b_adv[idx].mean()) / (b_adv[idx].std() + 1e-8)
                pg = torch.max(-a * ratio, -a * ratio.clamp(1 - args.clip_coef, 1 + args.clip_coef)).mean()
                v_loss = 0.5 * (agent.value(b_obs[idx]) - b_ret[idx]).pow(2).mean()
                loss = pg + args.vf_coef * v_loss - args.ent_coef * dist.entropy().mean()
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), 0.5)
                optimizer.step()
        steps = (it + 1) * n * t_len
        print(f"steps {steps:,}  mean reward/step {rew_buf.mean().item() / args.reward_scale:.2f}  "
              f"{time.perf_counter() - start:.0f} s", flush=True)

    def policy(obs: np.ndarray, masks: np.ndarray) -> np.ndarray:  # greedy: the most likely legal action
        with torch.no_grad():
            return agent.dist(torch.as_tensor(obs), torch.as_tensor(masks)).probs.argmax(-1).numpy()

    result = evaluate(policy, args.rules, episodes=args.eval_episodes, seed=10**9, regret=False)
    print(f"{args.rules}: {result['mean']:.2f} over {args.eval_episodes:,} games = "
          f"{result['percent_of_optimal']:.2f}% of optimal, after {iterations * n * t_len:,} steps in "
          f"{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
