"""`Follower`: everything on the first poll, then only complete appended lines; a replaced file starts over."""

from __future__ import annotations

import os
from pathlib import Path

from test_tui_snapshots import records

from workbench.core.records import Follower, encode, load_files


def test_first_poll_is_the_whole_file_then_only_what_was_appended(tmp_path: Path) -> None:
    path = tmp_path / "batch.jsonl"
    records(path)
    whole = load_files([path]).records
    follower = Follower([path, tmp_path / "not-yet.jsonl"])
    assert follower.poll() == whole
    assert follower.poll() == []
    line = encode(whole[0])
    with path.open("ab") as fh:  # a writer mid-line: nothing until its newline is there
        fh.write(line[:40])
    assert follower.poll() == []
    with path.open("ab") as fh:
        fh.write(line[40:] + b"{not json\n")
    assert follower.poll() == [whole[0]] and follower.skipped == 1
    (tmp_path / "not-yet.jsonl").write_bytes(encode(whole[1]))  # a file that appears later is read whole
    assert follower.poll() == [whole[1]]


def test_a_replaced_or_shortened_file_asks_for_a_fresh_start(tmp_path: Path) -> None:
    path = tmp_path / "batch.jsonl"
    records(path)
    follower = Follower([path])
    assert follower.poll()
    os.truncate(path, path.stat().st_size // 2)
    assert follower.poll() is None
    fresh = Follower([path])
    assert fresh.poll() is not None
    replacement = tmp_path / "new.jsonl"
    records(replacement)
    os.replace(replacement, path)  # `rescore --write` swaps the file: another inode
    assert fresh.poll() is None
