"""Optional compiled build of the grader (everything else about the package is in pyproject.toml).

``SUPERSEDE_ENV_COMPILE=1`` compiles the grader's two modules, ``supersede_env/normalize.py`` and
``supersede_env/grader.py``, with mypyc into C extensions that import in place of the ``.py`` files
(1.7-2.3x the grades per second; see the README). Without it the package is pure Python. The
compiled build needs a C compiler and mypy in the build environment::

    pip install 'mypy==2.4.1' 'setuptools>=77'
    SUPERSEDE_ENV_COMPILE=1 pip install --no-build-isolation .

It is refused for editable installs: the extensions would sit beside the sources and shadow every
later edit of them.
"""

import os
import sys

from setuptools import setup

COMPILED_MODULES = ["supersede_env/normalize.py", "supersede_env/grader.py"]


def _ext_modules() -> list:
    if os.environ.get("SUPERSEDE_ENV_COMPILE", "0") != "1":
        return []
    if any("editable" in arg or arg == "develop" for arg in sys.argv):
        sys.exit("setup.py: SUPERSEDE_ENV_COMPILE=1 is for wheels and regular installs, not editable ones "
                 "(the compiled grader would shadow edits of its sources)")
    try:
        from mypyc.build import mypycify
    except ImportError:
        sys.exit("setup.py: SUPERSEDE_ENV_COMPILE=1 needs mypy in the build environment: "
                 "pip install 'mypy==2.4.1' and build with --no-build-isolation")
    # one shared library, named for what it holds (mypyc would name it by a hash)
    return mypycify(COMPILED_MODULES, opt_level="3", group_name="supersede_env_grader")


setup(ext_modules=_ext_modules())
