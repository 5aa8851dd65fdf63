"""load_procedures: the cached walk gives what a plain `rglob` read gives, is read once per process, and
notices every change when the caller asks it to check."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from workbench.core.errors import InputError
from workbench.runner.procedures import MAX_BYTES, load_procedures

DATA = Path(__file__).parent / "data"


def read_all(plugin: Path) -> dict[str, str]:
    """The general path: every `*.md` file under PLUGIN outside hidden folders, read afresh."""
    out = {}
    for path in sorted(plugin.rglob("*.md")):
        rel = path.relative_to(plugin)
        if any(part.startswith(".") for part in rel.parts) or not path.is_file():
            continue
        if path.stat().st_size <= MAX_BYTES:
            out[rel.as_posix()] = path.read_text(encoding="utf-8", errors="replace")
    return out


@pytest.mark.parametrize("plugin", [DATA / "adversarial" / "plugin", DATA / "streams" / "evidence-plugin"])
def test_the_cached_walk_reads_what_rglob_reads(plugin: Path) -> None:
    first = load_procedures(plugin)
    assert first == read_all(plugin) and list(first) == list(read_all(plugin))
    again = load_procedures(plugin)
    assert again == first and again is not first  # the caller's own dict


def make_plugin(root: Path) -> Path:
    plugin = root / "plugin"
    for rel, text in {"procedures/a.md": "# A\nStep one of the first procedure.\n",
                      "procedures/a-b/c.md": "# C\n", "procedures/b.md": "# B\n",
                      ".hidden/x.md": "# hidden\n", "procedures/.y.md": "# hidden too\n",
                      "procedures/notes.txt": "not markdown\n", "z.md": "top\r\nline\n"}.items():
        (plugin / rel).parent.mkdir(parents=True, exist_ok=True)
        (plugin / rel).write_bytes(text.encode())
    return plugin


def test_a_plugin_is_read_once_per_process_unless_checked(tmp_path: Path) -> None:
    plugin = make_plugin(tmp_path)
    assert load_procedures(plugin)["procedures/a.md"] == "# A\nStep one of the first procedure.\n"
    (plugin / "procedures/a.md").write_text("# A\nrewritten in place\n")
    (plugin / "procedures/b.md").unlink()
    assert load_procedures(plugin) == {**read_all(plugin), "procedures/b.md": "# B\n",
                                       "procedures/a.md": "# A\nStep one of the first procedure.\n"}
    assert load_procedures(plugin, check=True) == read_all(plugin)
    assert load_procedures(plugin) == read_all(plugin)  # the checked read is what is kept


def test_every_change_to_the_plugin_is_read_again(tmp_path: Path) -> None:
    plugin = make_plugin(tmp_path)
    assert load_procedures(plugin, check=True) == read_all(plugin)
    assert list(load_procedures(plugin, check=True)) == list(read_all(plugin)) == ["procedures/a-b/c.md", "procedures/a.md",
                                                                      "procedures/b.md", "z.md"]

    (plugin / "procedures/a.md").write_text("# A\nrewritten in place\n")
    assert load_procedures(plugin, check=True)["procedures/a.md"] == "# A\nrewritten in place\n"
    (plugin / "procedures/a-b/new.md").write_text("# New\n")  # a new file two folders down
    assert "procedures/a-b/new.md" in load_procedures(plugin, check=True)
    (plugin / "procedures/b.md").unlink()
    assert "procedures/b.md" not in load_procedures(plugin, check=True)
    (plugin / "procedures/a-b/new.md").rename(plugin / "procedures/renamed.md")
    assert load_procedures(plugin, check=True) == read_all(plugin)

    big = plugin / "procedures/big.md"
    big.write_text("x" * (MAX_BYTES + 1))
    assert "procedures/big.md" not in load_procedures(plugin, check=True)
    big.write_text("# now small\n")  # shrinks below the cap: a procedure now
    assert load_procedures(plugin, check=True)["procedures/big.md"] == "# now small\n"

    os.symlink(plugin / "missing-target.md", plugin / "procedures/dangling.md")
    assert load_procedures(plugin, check=True) == read_all(plugin)
    (plugin / "missing-target.md").write_text("# target\n")
    assert load_procedures(plugin, check=True) == read_all(plugin)
    assert load_procedures(plugin, check=True)["procedures/dangling.md"] == "# target\n"


def test_a_folder_swapped_in_under_the_same_name_is_read(tmp_path: Path) -> None:
    plugin = make_plugin(tmp_path)
    load_procedures(plugin, check=True)
    plugin.rename(tmp_path / "old")
    other = make_plugin(tmp_path / "elsewhere")
    other.rename(plugin)
    (plugin / "procedures/a.md").write_text("# other plugin\n")
    assert load_procedures(plugin, check=True)["procedures/a.md"] == "# other plugin\n"


def test_a_missing_plugin_is_bad_input(tmp_path: Path) -> None:
    plugin = make_plugin(tmp_path)
    load_procedures(plugin, check=True)
    (tmp_path / "plugin").rename(tmp_path / "gone")
    with pytest.raises(InputError, match="not a plugin folder"):
        load_procedures(plugin, check=True)
