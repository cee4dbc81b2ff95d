"""The install is reproducible: every install command in the README and docs takes its pinned
versions from a committed constraints file that covers every package those extras bring, and
the environment running these tests was installed from it (the README's test command does so).
"""

from __future__ import annotations

import re
from importlib import metadata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
INSTALL = re.compile(r"pip install (?P<args>[^&\n`]*?)-e \"?\.(?:\[(?P<extras>[\w,]+)\])?\"?")


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def pins(path: Path) -> dict[str, str]:
    out = {}
    for line in path.read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            name, _, version = line.partition("==")
            assert version, f"{path.name}: {line!r} is not a pin (name==version)"
            out[canonical(name)] = version
    return out


def requirements(extras: set[str]) -> set[str]:
    """The names cahoots-envs itself requires, with these extras."""
    names = set()
    for req in metadata.requires("cahoots-envs") or []:
        name = canonical(re.match(r"[A-Za-z0-9_.\-]+", req).group(0))  # type: ignore[union-attr]
        marker = re.search(r"extra\s*==\s*['\"]([\w\-]+)['\"]", req)
        if marker is None or marker.group(1) in extras:
            names.add(name)
    return names


def install_commands() -> list[tuple[str, str, set[str]]]:
    found = []
    for path in DOCS:
        for m in INSTALL.finditer(path.read_text()):
            if ".venv" in m.group(0) or "constraints/" in m.group(0):
                found.append((path.name, m.group("args"), set((m.group("extras") or "").split(",")) - {""}))
    return found


def test_every_venv_install_command_uses_a_constraints_file_that_covers_it() -> None:
    commands = install_commands()
    assert len(commands) >= 3, commands  # the main job, the tests, the RLlib tests at least
    for where, args, extras in commands:
        file = re.search(r"-c (constraints/\w+\.txt)", args)
        assert file, f"{where}: `pip install {args}...` takes no -c constraints/<file>.txt"
        assert "torch==2.13.0" in args, f"{where}: torch must stay pinned to the CPU build"
        pinned = pins(ROOT / file.group(1))
        missing = requirements(extras) - set(pinned)
        assert not missing, f"{where}: {file.group(1)} pins none of {sorted(missing)}"
        assert pinned["torch"] == "2.13.0"


def test_this_environment_was_installed_from_the_constraints() -> None:
    """The test command installs with -c constraints/main.txt: a package at another version
    means the figures quoted in the docs may not reproduce here."""
    if "ray" in {canonical(d.metadata["Name"]) for d in metadata.distributions()}:
        pytest.skip("the RLlib environment: constraints/rllib.txt")
    wrong = []
    for name, version in pins(ROOT / "constraints" / "main.txt").items():
        try:
            have = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue  # an extra this environment did not install
        if have.split("+")[0] != version:
            wrong.append(f"{name} {have} (pinned {version})")
    assert not wrong, ("installed without constraints/main.txt (the README's test command "
                       "uses it): " + ", ".join(wrong))
