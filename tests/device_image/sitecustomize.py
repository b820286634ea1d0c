"""The GPU machine's Python packages, emulated here: on ``PYTHONPATH`` (with ``SUPERSEDE_DEVICE_PACKAGES``,
comma-separated distribution names), a third-party module whose distribution is not in that list cannot be
imported, and ``importlib.util.find_spec`` does not find it, as on a machine without it.

tests/test_training_gpu_bundle.py runs the learn-check's commands this way, with the list the machine
holds (training/device_packages.txt, what those packages require, and the carried wheels): a package
the device command needs and nobody carries fails here, not in a device call.
"""

import importlib.abc
import importlib.metadata
import importlib.util
import os
import sys

_ALLOWED = {name.strip().lower().replace("_", "-") for name in os.environ["SUPERSEDE_DEVICE_PACKAGES"].split(",")}
_DISTRIBUTIONS = importlib.metadata.packages_distributions()
_find_spec = importlib.util.find_spec


def _absent(name: str) -> bool:
    top = name.split(".")[0]
    if top in sys.stdlib_module_names or top.startswith("_") or top == "supersede_env":
        return False
    owners = _DISTRIBUTIONS.get(top)
    return bool(owners) and not any(o.lower().replace("_", "-").replace(".", "-") in _ALLOWED for o in owners)


class _NotOnTheDevice(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if path is None and _absent(name):
            raise ModuleNotFoundError(f"No module named {name!r} (not on the GPU machine)", name=name)
        return None


def _find_spec_on_the_device(name, package=None):
    return None if _absent(name) else _find_spec(name, package)


importlib.util.find_spec = _find_spec_on_the_device
sys.meta_path.insert(0, _NotOnTheDevice())
