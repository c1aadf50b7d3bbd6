"""A sidecar's size limits: past them it is refused with a message naming the file, before any parsing cost."""

from pathlib import Path

import pytest

from iolab.sidecar import MAX_BYTES, MAX_FILES, MAX_TARGETS, NAME, SidecarError, Sidecars


def _labels(folder: Path, text: str) -> tuple[dict, list[dict]]:
    (folder / NAME).write_text(text, encoding="utf-8")
    return Sidecars(folder).labels_for(folder / "run.csv")


def _targets(n: int) -> str:
    return 'study = "s"\n' + '[[targets]]\ntarget = "sd*"\nvolume = "v"\n' * n


def test_a_sidecar_past_the_byte_cap_is_refused_naming_the_file(tmp_path: Path) -> None:
    with pytest.raises(SidecarError) as e:
        _labels(tmp_path, 'study = "s"\n' + "# padding\n" * (MAX_BYTES // 10 + 1))
    assert str(e.value).startswith(f"{tmp_path / NAME}: the sidecar is larger than {MAX_BYTES:,} bytes")


def test_too_many_targets_are_refused_naming_the_file_and_the_count(tmp_path: Path) -> None:
    with pytest.raises(SidecarError) as e:
        _labels(tmp_path, _targets(MAX_TARGETS + 1))
    assert str(e.value).startswith(
        f"{tmp_path / NAME}: {MAX_TARGETS + 1:,} [[targets]] entries; a sidecar may list at most {MAX_TARGETS:,}"
    )


def test_targets_under_files_tables_count_towards_the_cap(tmp_path: Path) -> None:
    half = MAX_TARGETS // 2 + 1
    text = _targets(half) + '[files."*.csv"]\n' + '[[files."*.csv".targets]]\ntarget = "sd*"\n' * half
    with pytest.raises(SidecarError, match=rf"{2 * half:,} \[\[targets\]\] entries"):
        _labels(tmp_path, text)


def test_too_many_files_tables_are_refused_naming_the_file(tmp_path: Path) -> None:
    text = 'study = "s"\n' + "".join(f'[files."r{i}.csv"]\nconfig = "c"\n' for i in range(MAX_FILES + 1))
    with pytest.raises(SidecarError) as e:
        _labels(tmp_path, text)
    assert str(e.value).startswith(
        f"{tmp_path / NAME}: {MAX_FILES + 1:,} [files] tables; a sidecar may have at most {MAX_FILES:,}"
    )


def test_a_sidecar_at_the_caps_loads(tmp_path: Path) -> None:
    labels, targets = _labels(tmp_path, _targets(MAX_TARGETS))
    assert labels["study"] == "s"
    assert len(targets) == MAX_TARGETS
