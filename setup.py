"""Build script: maps the top-level folders onto the ``cacaoai`` package and
compiles the Cython modules.

The folders keep the architecture visible (engine_ext/, search/, lab/, server/, ...)
while the installed names stay distinctive (cacaoai.engine, cacaoai.search, ...).
Cython resolves ``cimport cacaoai.engine.core`` by file path, so the .pxd
contracts are laid out under build/pxd/cacaoai/... before cythonizing.
"""

import os
import shutil

from Cython.Build import cythonize
from setuptools import Extension, setup

# installed package -> source folder
PACKAGES = {
    "cacaoai.engine": "engine_ext",
    "cacaoai.search": "search",
    # training, self-play, calibration fitting, ladders and arenas: never imported by the service
    "cacaoai.lab": "lab",
    "cacaoai.server": "server",
    "cacaoai.client": "clients",
    # operator tools beside the deployment files they use (cacao-replicas, nginx template)
    "cacaoai.deploy": "deploy",
    # generated gRPC/protobuf modules, next to their .proto files (.ci/gen_proto.sh)
    "cacaoai.api": "proto",
    "cacaoai.api.cacao": "proto/cacao",
    "cacaoai.api.cacao.v1": "proto/cacao/v1",
}

# extension module -> source file
EXTENSIONS = {
    "cacaoai.engine.core": "engine_ext/core.pyx",
    "cacaoai.search._mcts": "search/_mcts.pyx",
    "cacaoai.search._endgame": "search/_endgame.pyx",
    # pure Python, compiled with the C types of engine_ext/snapshot.pxd: loading
    # a position is on every request's path
    "cacaoai.engine.snapshot": "engine_ext/snapshot.py",
}

HERE = os.path.dirname(os.path.abspath(__file__))
# CACAO_BUILD_DIR lets several builds of one tree run side by side.
BUILD_DIR = os.environ.get("CACAO_BUILD_DIR", "build")
PXD_ROOT = os.path.join(BUILD_DIR, "pxd")


def lay_out_pxd() -> None:
    """Copy every package's .pxd files to build/pxd/<dotted path>/."""
    for package, folder in PACKAGES.items():
        target = os.path.join(PXD_ROOT, *package.split("."))
        os.makedirs(target, exist_ok=True)
        for name in os.listdir(os.path.join(HERE, folder)):
            if name.endswith(".pxd"):
                shutil.copyfile(os.path.join(HERE, folder, name), os.path.join(target, name))
        parts = package.split(".")
        for depth in range(1, len(parts) + 1):
            init = os.path.join(PXD_ROOT, *parts[:depth], "__init__.pxd")
            open(init, "a").close()


def extensions() -> list:
    checked = os.environ.get("CACAO_CHECKED_BUILD") == "1"
    directives = {
        "language_level": 3,
        "boundscheck": checked,
        "wraparound": checked,
        "cdivision": not checked,
        "initializedcheck": checked,
    }
    mods = [
        Extension(name, [src], extra_compile_args=["-O3"])
        for name, src in EXTENSIONS.items()
        if os.path.exists(os.path.join(HERE, src))
    ]
    lay_out_pxd()
    return cythonize(
        mods,
        include_path=[PXD_ROOT],
        build_dir=os.path.join(BUILD_DIR, "cython"),
        compiler_directives=directives,
    )


setup(
    packages=list(PACKAGES),
    package_dir=PACKAGES,
    # *.pxi: files core.pyx includes (an sdist does not build without them);
    # nginx/*.conf: the template cacao-replicas fills in
    # models/*: the learned evaluation the search ships (search/models/)
    # puzzle_set/*.jsonl: the puzzle set the search ships (search/puzzle_set/, docs/puzzles.md;
    # a folder named puzzles/ would shadow puzzles.py for mypy)
    package_data={pkg: ["*.pxd", "*.pyx", "*.pxi", "*.pyi", "py.typed", "static/*", "nginx/*.conf",
                        "models/*.npz", "models/*.json", "puzzle_set/*.jsonl"]
                  for pkg in PACKAGES},
    ext_modules=extensions(),
    options={"build": {"build_base": BUILD_DIR}},
)
