"""Route shapes real marketplaces use, each from its minimal reproduction (written here, not copied)."""

from __future__ import annotations

from pathlib import Path

from workbench.core.audit import dangling, unindexed
from workbench.core.routing import parse_files


def _plugin(tmp_path: Path, body: str) -> tuple[Path, Path]:
    root = tmp_path / "p"
    for rel in ("skills/s/workflows/b.md", "skills/s/jobs/x.md", "shared/c.md"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("# procedure\n")
    (root / ".claude-plugin").mkdir()
    (root / ".claude-plugin/plugin.json").write_text('{"name": "p"}')
    skill = root / "skills/s/SKILL.md"
    skill.write_text("---\nname: s\ndescription: Use when building things\n---\n" + body)
    return root, skill


def test_host_path_variables_resolve_to_the_skill_and_plugin_folders(tmp_path: Path) -> None:
    root, skill = _plugin(tmp_path, "| Task | File |\n|---|---|\n| Before building | [b]({baseDir}/workflows/b.md) |\n\n"
                          "Before running a job, read `${CLAUDE_SKILL_DIR}/jobs/x.md`.\n\n"
                          "Before sharing, read [c](${CLAUDE_PLUGIN_ROOT}/shared/c.md).\n")
    rows = parse_files([skill], plugin=root)
    routed = [r for r in rows if r.links]
    assert [r.trigger for r in routed] == ["Before building", "Before running a job", "Before sharing"]
    assert all(lk.path.is_file() for r in routed for lk in r.links)
    assert dangling(rows) == []
    procedures = sorted(root.rglob("*.md"))
    assert unindexed(rows, procedures, plugin=root) == []
    assert [r.id for r in routed] == ["s/b", "s/x", "s/c"]


def test_header_aware_tables_link_first_and_id_columns(tmp_path: Path) -> None:
    root, skill = _plugin(tmp_path, "| Procedure | Use it |\n|---|---|\n| [create](jobs/x.md) | Before creating the DB |\n\n"
                          "| ID | When | Read |\n|---|---|---|\n| A | Before sharing a file | [c](../../shared/c.md) |\n\n"
                          "| Step | Read |\n|---|---|\n| 2 | Before deploying, read [b](workflows/b.md) |\n")
    rows = [r for r in parse_files([skill], plugin=root) if r.links]
    assert [r.trigger for r in rows] == ["Before creating the DB", "Before sharing a file", "Before deploying"]
    assert "ID/step column" in rows[1].why and "headed 'When'" in rows[1].why


def test_link_first_and_id_column_rows_lint_on_their_real_trigger(tmp_path: Path) -> None:
    from workbench.core.lint import lint_rows
    from workbench.core.routing import assign_ids

    root, skill = _plugin(tmp_path, "| Procedure | Use it |\n|---|---|\n| [create](jobs/x.md) | When the DB is new |\n\n"
                          "| ID | When | Read |\n|---|---|---|\n| A | Before sharing a file | [c](../../shared/c.md) |\n")
    rows = assign_ids(parse_files([skill], plugin=root))
    messages = [f.message for f in lint_rows(rows)]
    assert not any("''" in m or "'A'" in m for m in messages), messages
    assert any("When the DB is new" in m for m in messages), "the link-first row is linted on its second cell"
