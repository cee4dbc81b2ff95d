"""The documentation site (docs/conf.py: Sphinx, MyST, furo) builds strictly, links nothing from
the network, and its API reference covers every name of the public modules' ``__all__``.

The build runs once, into pytest's temporary folder, with ``-W --keep-going``: any warning (a
broken link or reference, a page in no navigation, a docstring that does not parse) fails it.
Skipped where the ``docs`` extra is not installed.
"""

from __future__ import annotations

import importlib
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# the modules the API reference documents (docs/reference/): each name of their __all__
DOCUMENTED = ["cahoots_envs", "cahoots_envs.policies", "cahoots_envs.search",
              "cahoots_envs.training", "cahoots_envs.evaluation", "cahoots_envs.gamelog",
              "cahoots_envs.vector", "cahoots_envs.web"]
# the classes the guides name that their module's __all__ does not list
NAMED = ["cahoots_envs.core.aec.CardGameEnv", "cahoots_envs.core.parallel.CardGameParallelEnv",
         "cahoots_envs.training.seat_vector_env.SeatVectorEnv",
         "cahoots_envs.training.config.TrainConfig", "cahoots_envs.kansas_city_v1.env",
         "cahoots_envs.texas_euchre_v1.env", "cahoots_envs.cahoots_tricks_v1.env",
         "cahoots_envs.cahoots_coop_v1.env"]

# a remote asset: src/href of <script>, <link>, <img>, <source>, <iframe>, and url(...) in CSS
TAG = re.compile(r"<(script|link|img|source|iframe|video|audio)\b[^>]*>", re.IGNORECASE)
ATTR = re.compile(r"""\b(?:src|href|srcset)\s*=\s*["']?\s*((?:https?:)?//[^"'\s>]+)""",
                  re.IGNORECASE)
CSS_URL = re.compile(r"""(?:url\(\s*["']?|@import\s+["'])\s*((?:https?:)?//[^"')\s]+)""",
                     re.IGNORECASE)


def remote_assets(site: Path) -> list[str]:
    """``file: url`` for every asset of the built site that a browser would fetch from the
    network: scripts, stylesheets, images and frames in the HTML, fonts and imports in CSS."""
    found = []
    for path in sorted(site.rglob("*")):
        if path.suffix == ".html":
            text = path.read_text("utf-8", errors="replace")
            urls = [u for tag in TAG.finditer(text) for u in ATTR.findall(tag.group(0))]
            urls += CSS_URL.findall(text)  # inline <style> and style="..."
        elif path.suffix == ".css":
            urls = CSS_URL.findall(path.read_text("utf-8", errors="replace"))
        else:
            continue
        found += [f"{path.relative_to(site)}: {url}" for url in urls]
    return found


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    for module in ("sphinx", "myst_parser", "furo"):
        pytest.importorskip(module, reason="the docs extra: pip install -e '.[docs]'")
    out = tmp_path_factory.mktemp("site")
    run = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
         "-d", str(out / ".doctrees"), str(ROOT / "docs"), str(out / "html")],
        capture_output=True, text=True, cwd=ROOT, timeout=600, check=False)
    assert run.returncode == 0, f"the strict docs build failed:\n{run.stderr[-6000:]}"
    return out / "html"


def test_strict_build_has_every_page_in_its_navigation(site: Path) -> None:
    index = (site / "index.html").read_text("utf-8")
    pages = [p.relative_to(site).as_posix() for p in site.rglob("*.html")
             if p.parent.name not in ("_modules", "_static") and p.name not in
             ("genindex.html", "search.html", "py-modindex.html", "index.html")]
    assert len(pages) >= 25, pages
    missing = [p for p in pages if f'href="{p}"' not in index]
    assert not missing, f"pages not in the front page's navigation: {missing}"
    assert 'id="searchbox"' in index or 'class="sidebar-search"' in index, "no search box"
    assert (site / "searchindex.js").exists()


def test_site_fetches_nothing_from_the_network(site: Path) -> None:
    assert not remote_assets(site)


def test_remote_asset_check_catches_a_cdn_link(tmp_path: Path) -> None:
    (tmp_path / "page.html").write_text(
        '<html><head><link rel="stylesheet" href="https://cdn.example.org/x.css">'
        '<script src="//cdn.example.org/x.js"></script></head>'
        '<body><a href="https://example.org">a link is no asset</a>'
        '<img src="_static/local.png"></body></html>')
    (tmp_path / "theme.css").write_text(
        '@font-face { src: url("https://fonts.example.org/f.woff2") } '
        'body { background: url(_static/local.png) }')
    assert remote_assets(tmp_path) == [
        "page.html: https://cdn.example.org/x.css", "page.html: //cdn.example.org/x.js",
        "theme.css: https://fonts.example.org/f.woff2"]


def test_api_reference_covers_every_public_name(site: Path) -> None:
    ids: set[str] = set()
    for page in (site / "reference").glob("*.html"):
        ids |= set(re.findall(r'\bid="([\w.]+)"', page.read_text("utf-8")))
    wanted = [f"{name}.{member}" for name in DOCUMENTED
              for member in importlib.import_module(name).__all__] + NAMED
    missing = [name for name in wanted if name not in ids]
    assert not missing, f"names with no entry in the API reference: {missing}"
