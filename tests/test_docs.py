"""The README's generated parts and commands stay true."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cahoots_envs.docs import env_table

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()


def test_readme_env_table_is_current() -> None:
    assert env_table() in README, "regenerate with: python -m cahoots_envs.docs"


def test_readme_has_the_two_commands_and_ci_runs_the_test_command() -> None:
    for marker in ("main-command", "test-command"):
        pattern = rf"<!-- {marker} -->\n```\n(.+?)\n```\n<!-- /{marker} -->"
        block = re.search(pattern, README, re.DOTALL)
        assert block, f"README lacks the {marker} block"
        assert "torch==2.13.0" in block.group(1), "torch must be pinned to the CPU build"
    ci = (ROOT / ".ci" / "run").read_text()
    assert "test-command" in ci


def test_readme_links_every_doc_page() -> None:
    for link in re.findall(r"\(docs/(\w+)\.md\)", README):
        assert (ROOT / "docs" / f"{link}.md").exists(), link


def test_every_console_block_has_a_transcript_marker() -> None:
    """docs/transcripts.py regenerates the ```console blocks; each says how (not run here)."""
    import importlib.util
    import sys

    spec = importlib.util.spec_from_file_location("transcripts", ROOT / "docs" / "transcripts.py")
    assert spec and spec.loader
    transcripts = importlib.util.module_from_spec(spec)
    sys.modules["transcripts"] = transcripts  # dataclasses look their module up there
    spec.loader.exec_module(transcripts)
    for path in transcripts.DOCS:
        text = (ROOT / path).read_text()
        blocks = transcripts.find_blocks(path, text)  # raises on a block without a valid marker
        assert len(blocks) == text.count("```console"), path
        for block in blocks:
            assert block.manual or block.commands, f"{path}:{block.line}"


def test_the_main_job_quote_is_the_same_in_the_readme_and_the_training_page() -> None:
    """Both pages quote what the main command printed; they must not drift apart (the quote
    names the clone it started from and says whether the intervals overlap)."""
    training = (ROOT / "docs" / "training.md").read_text()
    pattern = r"```\n(win share in one seat vs random opponents:.+?)\n```"
    readme_quote = re.search(pattern, README, re.DOTALL)
    training_quote = re.search(pattern, training, re.DOTALL)
    assert readme_quote and training_quote
    assert readme_quote.group(1) == training_quote.group(1)
    assert readme_quote.group(1).count("the clone it started from, same games:") == 2
    main = re.search(r"<!-- main-command -->\n```\n(.+?)\n```", README, re.DOTALL)
    train = re.search(r"<!-- train-command -->\n```\n(.+?)\n```", training, re.DOTALL)
    assert main and train and main.group(1) == train.group(1)


def test_the_doc_generator_refuses_an_unknown_game_in_one_line(capsys) -> None:
    from cahoots_envs.docs import main

    with pytest.raises(SystemExit) as done:
        main(["no_such_game"])
    assert done.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("python -m cahoots_envs.docs: error: unknown env 'no_such_game'")
