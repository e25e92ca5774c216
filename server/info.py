"""GetServerInfo's answer: the server's versions, formats, limits, levels and
rules facts, built once from its options (they never change while it runs).

Thread-safety: pure functions; the answer is built once and shared.
"""

from __future__ import annotations

import functools
import os
import socket
from collections.abc import Mapping
from importlib import metadata
from typing import Any

from cacaoai import engine
from cacaoai.api import convert
from cacaoai.api.cacao.v1 import cacao_pb2 as pb
from cacaoai.search.bots import levels as search_levels
from cacaoai.search.model import load_model

from .budgets import Budget
from .memory import MemoryBudget
from .options import ServerOptions, reported_limits

API_VERSION = "cacao.v1"
#: ServerLimits fields that no option reports: computed from the options when the server starts
#: (max_tree_nodes: the most nodes a tree of a search with every thread may grow to in the memory budget).
COMPUTED_LIMITS = ("max_tree_nodes",)
INSTANCE = f"{socket.gethostname()}/{os.getpid()}"


def server_info(options: ServerOptions, levels: Mapping[str, Budget], default_level: str,
                memory: MemoryBudget | None) -> pb.GetServerInfoResponse:
    """The answer of GetServerInfo for a server of these options and levels."""
    return pb.GetServerInfoResponse(
        api_version=API_VERSION,
        server_version=version(),
        engine_version=engine.ENGINE_VERSION,
        rules_version=engine.RULES_VERSION,
        record_format=convert.RECORD_FORMAT,
        position_format=convert.POSITION_FORMAT,
        limits=limits(options, memory),
        levels=[pb.StrengthLevel(name=n, limits=convert.limit_to_proto(b.limit)) for n, b in levels.items()],
        default_level=default_level,
        instance=INSTANCE,
        rules=convert.rules_facts_to_proto(),
        model_version=model_version(level.settings for level in search_levels().values()),
    )


def limits(options: ServerOptions, memory: MemoryBudget | None) -> pb.ServerLimits:
    """Every field an option reports, from the options' declaration
    (``options.reported_limits``), and the ones computed here (:data:`COMPUTED_LIMITS`)."""
    message = pb.ServerLimits(max_tree_nodes=memory.tree_cap(options.search_threads) if memory else 0)
    for name, value in reported_limits(options).items():
        if message.DESCRIPTOR.fields_by_name[name].message_type is not None:  # a Duration
            getattr(message, name).CopyFrom(convert.seconds_to_duration(float(value)))
        else:
            setattr(message, name, value)
    return message


def model_version(settings: Any) -> str:
    """The version of the learned model the levels use ("" for none)."""
    names = sorted({s.model for s in settings if s.uses_model})
    return ", ".join(load_model(name).version for name in names)


@functools.cache
def version() -> str:
    """The installed cacaoai's version (read once: the package metadata takes
    milliseconds to parse)."""
    try:
        return metadata.version("cacaoai")
    except metadata.PackageNotFoundError:
        return "unknown"
