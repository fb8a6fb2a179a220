"""The thorough damaged-store run of issue 35: every kind of store file (store.json, a part,
its run id list, a plan, its id list, a kept table, the lock) damaged in every way (truncated,
overwritten, deleted, of the wrong type, copied in twice) 20 times each, at random: 700
damaged stores. Each must answer every reading command exactly as the undamaged store does or
in one `error:` line, and come back to the undamaged rows (kept tables included) by
`tcplab sweep --repair` or by running its sweeps again. tests/test_store_damage.py does one
of each in CI; this runs it with 20 (about 25 minutes on 2 cores):

    python bench/store_damage.py [TRIALS]
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    trials = sys.argv[1] if len(sys.argv) > 1 else "20"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-s",
            "-p",
            "no:cacheprovider",
            str(ROOT / "tests" / "test_store_damage.py"),
        ],  # fmt: skip
        env=dict(os.environ, TCPLAB_DAMAGE_TRIALS=trials),
        cwd=ROOT,
    )
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())
