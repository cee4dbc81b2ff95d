"""The README's generated parts and commands stay true."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cahoots_envs.docs import env_table

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()


def _doc_script(name: str, file: str):
    """docs/<file> (a script, not a package module) loaded as module ``name``."""
    import importlib.util
    import sys

    spec = importlib.util.spec_from_file_location(name, ROOT / "docs" / file)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def _transcripts():
    return _doc_script("transcripts", "transcripts.py")


def _tables():
    return _doc_script("doc_tables", "tables.py")


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


def test_the_readme_reads_in_two_minutes() -> None:
    """At most 200 lines; the detail lives on the pages it links to."""
    assert len(README.splitlines()) <= 200


def test_readme_links_every_doc_page() -> None:
    for link in re.findall(r"\(docs/(\w+)\.md\)", README):
        assert (ROOT / "docs" / f"{link}.md").exists(), link


def test_every_console_block_has_a_transcript_marker() -> None:
    """docs/transcripts.py regenerates the ```console blocks; each says how (not run here)."""
    transcripts = _transcripts()
    for path in transcripts.DOCS:
        text = (ROOT / path).read_text()
        blocks = transcripts.find_blocks(path, text)  # raises on a block without a valid marker
        assert len(blocks) == text.count("```console"), path
        for block in blocks:
            assert block.manual or block.commands, f"{path}:{block.line}"


def test_every_page_with_generated_transcripts_is_one_the_generator_runs() -> None:
    """A page whose ```console blocks are made by running their commands (a marker that is not
    ``manual``) is in docs/transcripts.py's default files, so that a plain run or ``--check``
    covers it; and every page of docs/cli/ is linked from docs/cli.md."""
    transcripts = _transcripts()
    generated = set()
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("**/*.md"))]:
        rel = page.relative_to(ROOT).as_posix()
        text = page.read_text()
        if "```console" in text and any(not b.manual for b in transcripts.find_blocks(rel, text)):
            generated.add(rel)
    assert generated <= set(transcripts.DOCS), sorted(generated - set(transcripts.DOCS))
    cli = (ROOT / "docs" / "cli.md").read_text()
    for page in sorted((ROOT / "docs" / "cli").glob("*.md")):
        assert f"](cli/{page.name})" in cli, f"docs/cli.md does not link cli/{page.name}"


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




def test_every_generated_table_is_what_its_generator_makes_from_the_results_files() -> None:
    """docs/tables.py regenerates each ``<!-- table: NAME -->`` block from the results files."""
    tables = _tables()
    stale = []
    for page in tables.pages():
        _, changed = tables.fill(page.read_text(), page)
        stale += [f"{page.relative_to(ROOT)}: {name}" for name in changed]
    assert not stale, f"stale tables {stale}; regenerate with: python docs/tables.py"
    readme_blocks = tables.BLOCK.findall(README)
    assert [b[1] for b in readme_blocks] == ["headline"], "the README's one table of figures"


def test_the_table_check_fails_on_a_block_that_differs_and_names_it(tmp_path, capsys) -> None:
    tables = _tables()
    current = tables.GENERATORS["zoo-strength"]()
    page = tmp_path / "page.md"
    page.write_text(f"# A page\n\n<!-- table: zoo-strength -->\n{current}\n<!-- /table -->\n")
    assert tables.main(["--check", str(page)]) == 0
    row = next(line for line in current.splitlines() if line.startswith("| Kansas City"))
    figure = re.findall(r"\d\.\d{3}", row)[-1]  # the zoo entry against heuristic bots
    edited = row.replace(figure, f"{(float(figure) + 0.1) % 1:.3f}")
    page.write_text(page.read_text().replace(row, edited))
    assert tables.main(["--check", str(page)]) == 1
    assert f"stale: {page}: zoo-strength" in capsys.readouterr().out
    assert tables.main([str(page)]) == 0  # regenerates it
    assert tables.main(["--check", str(page)]) == 0 and row in page.read_text()


def test_an_unknown_table_name_is_one_line(tmp_path) -> None:
    tables = _tables()
    page = tmp_path / "page.md"
    page.write_text("<!-- table: no-such-table -->\n<!-- /table -->\n")
    with pytest.raises(SystemExit, match="unknown table 'no-such-table' \\(known: zoo-strength"):
        tables.main(["--check", str(page)])


def test_the_global_state_paragraph_is_one_text_on_every_game_page() -> None:
    from cahoots_envs.docs import STATE_INTRO

    for game in ("kansas_city", "texas_euchre", "cahoots_tricks", "cahoots_coop"):
        text = (ROOT / "docs" / f"{game}.md").read_text()
        intro = STATE_INTRO.format(path=f"cahoots_envs/games/{game}/state.py")
        assert f"<!-- state-intro -->\n{intro}\n<!-- /state-intro -->" in text, game


def test_the_search_page_says_what_every_setting_does() -> None:
    """docs/search.md's settings table has a row for every knob a search bot takes."""
    from cahoots_envs.search.policy import GENERIC_DEFAULTS

    text = (ROOT / "docs" / "search.md").read_text()
    missing = [knob for knob in GENERIC_DEFAULTS if f"\n| `{knob}` |" not in text]
    assert not missing, f"docs/search.md's settings table lacks {missing}"


@pytest.mark.parametrize("page", ["search.md", "training.md", "cli.md"])
def test_a_reference_page_reads_as_a_reference(page: str) -> None:
    """At most 400 lines: what was tried lives in lab notes under docs/lab/, linked from it."""
    text = (ROOT / "docs" / page).read_text()
    assert len(text.splitlines()) <= 400, page
    assert "](lab/" in text, f"{page} links no lab note"


def test_every_lab_note_is_listed_and_says_its_question() -> None:
    lab = ROOT / "docs" / "lab"
    listing = (lab / "README.md").read_text()
    for note in sorted(lab.glob("*.md")):
        if note.name == "README.md":
            continue
        assert f"]({note.name})" in listing, f"docs/lab/README.md does not list {note.name}"
        assert "**Question.**" in note.read_text(), f"{note.name} does not say its question"
