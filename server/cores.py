"""How many cores this process may use: its CPU affinity, cut to its cgroup's
CPU quota (cgroup v2 ``cpu.max``, or v1 ``cpu.cfs_quota_us``), at least one.

``os.cpu_count()`` counts the machine's CPUs: a container limited to two
cores on a 64-core host would start 64 searches at once, each getting a
thirty-second of a core, and its event loop would wait behind them. The
search slots follow this count instead (``--max-searches``).
"""

from __future__ import annotations

import math
import os
from pathlib import Path

CGROUP_ROOT = Path("/sys/fs/cgroup")
PROC_CGROUP = Path("/proc/self/cgroup")


def _read(path: Path) -> str | None:
    try:
        return path.read_text().strip()
    except (OSError, UnicodeDecodeError):
        return None


def _v2_quota(root: Path, group: str) -> float | None:
    """The tightest ``cpu.max`` from the process's cgroup up to the root."""
    tightest: float | None = None
    folder = root / group.strip("/")
    while True:
        text = _read(folder / "cpu.max")
        if text:
            parts = text.split()
            if len(parts) == 2 and parts[0] != "max":
                try:
                    quota, period = int(parts[0]), int(parts[1])
                except ValueError:
                    quota, period = 0, 0
                if quota > 0 and period > 0:
                    cores = quota / period
                    tightest = cores if tightest is None else min(tightest, cores)
        if folder == root or root not in folder.parents:
            return tightest
        folder = folder.parent


def _v1_quota(root: Path, group: str) -> float | None:
    """The ``cpu`` controller's CFS quota (cgroup v1), the process's group
    or, in a container that sees its own group as the root, the root's."""
    for folder in (root / "cpu" / group.strip("/"), root / "cpu"):
        quota, period = _read(folder / "cpu.cfs_quota_us"), _read(folder / "cpu.cfs_period_us")
        if quota is None or period is None:
            continue
        try:
            q, p = int(quota), int(period)
        except ValueError:
            continue
        return q / p if q > 0 and p > 0 else None
    return None


def cgroup_cpu_limit(root: Path = CGROUP_ROOT, proc_cgroup: Path = PROC_CGROUP) -> float | None:
    """Cores' worth of CPU time the process's cgroup allows (1.5 for a quota
    of 150 ms every 100 ms), or None when there is no quota (or no cgroup)."""
    text = _read(proc_cgroup)
    if text is None:
        return None
    v2_group, v1_group = None, None
    for line in text.splitlines():
        number, _, rest = line.partition(":")
        controllers, _, group = rest.partition(":")
        if number == "0" and controllers == "":
            v2_group = group
        elif "cpu" in controllers.split(","):
            v1_group = group
    limits = [limit for limit in (
        _v2_quota(root, v2_group) if v2_group is not None else None,
        _v1_quota(root, v1_group) if v1_group is not None else None) if limit is not None]
    return min(limits) if limits else None


def usable_cores(root: Path = CGROUP_ROOT, proc_cgroup: Path = PROC_CGROUP,
                 affinity: int | None = None) -> int:
    """The cores this process may use: the CPUs of its affinity mask
    (``affinity`` when given), no more than its cgroup's quota rounded down,
    and at least 1 (a quota of 1.5 cores gives 1: the half core left keeps
    the event loop answering)."""
    if affinity is None:
        try:
            affinity = len(os.sched_getaffinity(0))
        except (AttributeError, OSError):  # not Linux
            affinity = os.cpu_count() or 1
    cores = affinity
    limit = cgroup_cpu_limit(root, proc_cgroup)
    if limit is not None:
        cores = min(cores, math.floor(limit))
    return max(1, cores)
