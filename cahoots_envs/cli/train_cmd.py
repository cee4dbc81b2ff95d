"""``cahoots train``: self-play training (``cahoots_envs.training.train``), every argument after
``train`` handed on; needs the ``train`` extra."""

from __future__ import annotations

import argparse
import sys
import textwrap
from typing import TYPE_CHECKING

from cahoots_envs.cli.common import PROG, Command, Formatter, PassOn, UsageError, doc, raw

if TYPE_CHECKING:
    from cahoots_envs.cli.common import SubParsers


def cmd_train(args: argparse.Namespace) -> int:
    from importlib.util import find_spec

    rest = list(args.train_args)
    needed = {"pyyaml": find_spec("yaml"), "torch": find_spec("torch"),  # names as pip knows them
              "stable-baselines3": find_spec("stable_baselines3"),
              "sb3-contrib": find_spec("sb3_contrib")}
    missing = [name for name, found in needed.items() if found is None]
    if missing and not {"-h", "--help"} & set(rest):
        raise UsageError(f"training needs the train extra, and {', '.join(missing)} "
                         f"{'is' if len(missing) == 1 else 'are'} not installed; install it with "
                         "pip install \"cahoots-envs[train]\"")
    from cahoots_envs.training.train import main as train_main

    sys.argv[0] = f"{PROG} train"  # the script's usage line then reads as this command
    return int(train_main(rest) or 0)


def add_parser(sub: SubParsers, name: str) -> argparse.ArgumentParser:
    from cahoots_envs.training.config import packaged_configs

    p = sub.add_parser(
        name, formatter_class=Formatter, help="self-play training from a YAML config",
        description=doc("""
            Train a policy by self-play: runs the training (module
            cahoots_envs.training.train) with the arguments after 'train'. Needs
            pip install 'cahoots-envs[train]'. 'cahoots train -- --help' shows its options.
        """),
        epilog=raw("""
            examples:
              cahoots train --config kansas_city --total-timesteps 20000
              cahoots train --config my_config.yaml
              cahoots train --resume runs/<run>
        """) + "\n\n" + textwrap.fill(
            "--config takes a YAML file or the name of a config shipped in the package: "
            + ", ".join(packaged_configs()) + ".", 78),
    )
    p.add_argument("train_args", nargs="*", metavar="ARG",
                   help="arguments for the training script (see 'cahoots train -- --help')")
    return p


COMMAND = Command("train", add_parser, cmd_train, PassOn(), order=40)
