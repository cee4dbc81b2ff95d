"""Environment throughput and memory: the benchmark ``cahoots bench`` runs, from a checkout.

The benchmark lives in the package (``cahoots_envs/bench.py``, its options read by
``cahoots_envs.cli.bench_parser``), so that ``cahoots bench`` works wherever the package is
installed; this script is the same benchmark under its old command, with the same options and
output (``--help`` lists them):

    python benchmarks/bench_envs.py [--seconds 2] [--rounds 3] [--no-classic] [--envs NAMES]
        [--no-batched] [--num-envs 1,64,1024,4096,8192] [--no-compile] [--no-seat-env]
        [--seat-envs 64]

is ``cahoots bench -- <the same arguments>``.
"""

from __future__ import annotations

from cahoots_envs.bench import run
from cahoots_envs.cli import bench_parser


def main(argv: list[str] | None = None) -> None:
    run(bench_parser().parse_args(argv))


if __name__ == "__main__":
    main()
