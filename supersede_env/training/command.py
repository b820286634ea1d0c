"""The training command under its earlier module path, kept so that commands written for it still run:
``torchrun --nproc_per_node 2 -m supersede_env.training.command --config FILE ...``.

The command itself is :mod:`supersede_env.commands.train`; this path forwards to it unchanged.
"""

import sys

from supersede_env.commands.train import standalone

if __name__ == "__main__":
    sys.exit(standalone())
