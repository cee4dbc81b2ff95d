"""Smoke test of the built wheel, installed alone (numpy, gymnasium, pettingzoo, safetensors; no
torch) into a clean virtual environment: run with that environment's python from the source
tree's root (the README's wheel-test-command).

It makes and plays each env, loads each zoo policy and acts with it, runs ``cahoots list`` and
``cahoots serve --help``, and resolves by name every training config of the source tree's
``cahoots_envs/configs/`` (any folder depth) in the installed package: a config folder that
pyproject's package data leaves out of the wheel fails here and nowhere else.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import time
from pathlib import Path

SOURCE = Path(__file__).resolve().parents[1] / "cahoots_envs"


def main() -> int:
    start = time.perf_counter()
    import numpy as np

    import cahoots_envs
    from cahoots_envs.training.config import CONFIG_DIR, resolve_config

    installed = Path(cahoots_envs.__file__).resolve().parent
    if installed == SOURCE.resolve():
        sys.exit(f"cahoots_envs imported from the source tree ({installed}), not the wheel")
    if importlib.util.find_spec("torch") is not None:
        sys.exit("torch is installed here: the smoke test needs an environment without it")
    print(f"cahoots-envs {cahoots_envs.__version__} from {installed}")

    envs = cahoots_envs.list_envs()
    for env_id in envs:
        env = cahoots_envs.make(env_id)
        env.reset(seed=0)
        for agent in env.agent_iter(max_iter=40):
            obs, _, terminated, truncated, _ = env.last()
            env.step(None if terminated or truncated
                     else int(np.flatnonzero(obs["action_mask"])[0]))
    print(f"made and stepped {len(envs)} envs: {', '.join(envs)}")

    zoo = cahoots_envs.list_policies()
    shipped = sorted(p.stem for p in (SOURCE / "policies" / "zoo").glob("*.safetensors"))
    assert sorted(e["name"] for e in zoo) == shipped, (zoo, shipped)
    for entry in zoo:
        env_id = entry["env_id"]
        policy = cahoots_envs.load_policy(entry["spec"], env_id, entry.get("options"))
        env = cahoots_envs.make(env_id, **(entry.get("options") or {}))
        env.reset(seed=1)
        obs = env.last()[0]
        action = policy.act(obs["observation"], obs["action_mask"])
        assert obs["action_mask"][action], (entry["name"], action)
    print(f"loaded and played {len(zoo)} zoo policies with numpy alone: "
          f"{', '.join(e['name'] for e in zoo)}")

    configs = sorted(p.relative_to(SOURCE / "configs").with_suffix("").as_posix()
                     for p in (SOURCE / "configs").rglob("*.yaml"))
    missing = []
    for name in configs:
        try:
            path = resolve_config(name)
        except ValueError as error:
            missing.append(f"{name}: {error}")
            continue
        if not path.resolve().is_relative_to(CONFIG_DIR.resolve()):
            missing.append(f"{name}: resolved to {path}, outside the installed package")
    assert not missing, "packaged configs missing from the wheel:\n" + "\n".join(missing)
    print(f"resolved {len(configs)} packaged training configs by name: {', '.join(configs)}")

    cahoots = Path(sys.executable).with_name("cahoots")
    for args in (["list"], ["serve", "--help"], ["--version"]):
        run = subprocess.run([str(cahoots), *args], capture_output=True, text=True, timeout=300,
                             check=False)
        assert run.returncode == 0, f"cahoots {' '.join(args)}: {run.stderr[-2000:]}"
        print(f"cahoots {' '.join(args)}: ok ({len(run.stdout.splitlines())} lines)")
    print(f"wheel smoke test passed in {time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
