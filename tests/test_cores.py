"""server.cores: the cores a process may use, from its affinity and its
cgroup's CPU quota, read from fake cgroup files."""

from __future__ import annotations

from pathlib import Path

from cacaoai.server.cores import cgroup_cpu_limit, usable_cores


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def v2(tmp_path: Path, group: str, limits: dict[str, str]) -> tuple[Path, Path]:
    """A cgroup v2 tree with ``cpu.max`` files at the given groups."""
    root = tmp_path / "cgroup"
    root.mkdir()
    for folder, text in limits.items():
        write(root / folder.strip("/") / "cpu.max", text + "\n")
    proc = tmp_path / "proc-cgroup"
    write(proc, f"0::{group}\n")
    return root, proc


def test_no_quota_keeps_the_affinity(tmp_path: Path) -> None:
    root, proc = v2(tmp_path, "/", {"/": "max 100000"})
    assert cgroup_cpu_limit(root, proc) is None
    assert usable_cores(root, proc, affinity=8) == 8


def test_a_quota_rounds_down_and_caps_the_affinity(tmp_path: Path) -> None:
    root, proc = v2(tmp_path, "/", {"/": "250000 100000"})
    assert cgroup_cpu_limit(root, proc) == 2.5
    assert usable_cores(root, proc, affinity=64) == 2
    assert usable_cores(root, proc, affinity=1) == 1


def test_the_tightest_quota_on_the_way_to_the_root(tmp_path: Path) -> None:
    root, proc = v2(tmp_path, "/kubepods/pod1/app",
                    {"/kubepods/pod1/app": "max 100000", "/kubepods/pod1": "300000 100000",
                     "/kubepods": "800000 100000"})
    assert cgroup_cpu_limit(root, proc) == 3.0
    assert usable_cores(root, proc, affinity=16) == 3


def test_less_than_a_core_still_gives_one(tmp_path: Path) -> None:
    root, proc = v2(tmp_path, "/", {"/": "50000 100000"})
    assert usable_cores(root, proc, affinity=4) == 1


def test_cgroup_v1_cfs_quota(tmp_path: Path) -> None:
    root = tmp_path / "cgroup"
    write(root / "cpu" / "docker" / "abc" / "cpu.cfs_quota_us", "150000\n")
    write(root / "cpu" / "docker" / "abc" / "cpu.cfs_period_us", "100000\n")
    proc = tmp_path / "proc-cgroup"
    write(proc, "4:memory:/docker/abc\n2:cpu,cpuacct:/docker/abc\n0::/\n")
    assert cgroup_cpu_limit(root, proc) == 1.5
    assert usable_cores(root, proc, affinity=2) == 1


def test_cgroup_v1_without_a_quota(tmp_path: Path) -> None:
    root = tmp_path / "cgroup"
    write(root / "cpu" / "cpu.cfs_quota_us", "-1\n")
    write(root / "cpu" / "cpu.cfs_period_us", "100000\n")
    proc = tmp_path / "proc-cgroup"
    write(proc, "2:cpu,cpuacct:/\n")
    assert usable_cores(root, proc, affinity=2) == 2


def test_unreadable_or_garbled_files_mean_no_quota(tmp_path: Path) -> None:
    root, proc = v2(tmp_path, "/", {"/": "lots 100000"})
    assert usable_cores(root, proc, affinity=3) == 3
    assert usable_cores(tmp_path / "nothing", tmp_path / "no-proc", affinity=3) == 3


def test_this_process() -> None:
    cores = usable_cores()
    assert 1 <= cores
