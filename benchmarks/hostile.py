"""Hostile books, timed: ``python -m benchmarks.hostile``.

Loads every input of tests/hostile.py (broken epubs and PDFs, a zip bomb, odd text files) plus a 50 MB file, each
in a fresh process, and prints its outcome (a Book or our error), the seconds it took and the process's peak
memory; then the worst of each.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks import ROOT, write_figures
from elite_ui.testing.hostile import variants

# peak memory from VmHWM: ru_maxrss would carry the parent's peak over across exec
PROBE = """
import json, re, sys, time
from elite_ui.book import load_book
from elite_ui.errors import BookError
started = time.perf_counter()
try:
    book = load_book(sys.argv[1])
    outcome = f"book of {len(book)} sentences"
except BookError as exc:
    outcome = f"error: {exc}"
peak = int(re.search(r"VmHWM:\\s+(\\d+)", open("/proc/self/status").read()).group(1)) / 1024
print(json.dumps({"seconds": time.perf_counter() - started, "outcome": outcome, "peak_mb": peak}))
"""


def main() -> None:
    folder = Path(tempfile.mkdtemp(prefix="hostile-"))
    inputs = variants(folder)
    huge = folder / "txt-50mb.txt"
    with huge.open("wb") as out:
        out.write(b"Alice found a key. " * (50 * 2**20 // 19))
    inputs.append(("txt-50mb", huge))
    rows = []
    for name, path in inputs:
        done = subprocess.run([sys.executable, "-c", PROBE, str(path)], capture_output=True, text=True, cwd=ROOT,
                              timeout=300, check=False)
        if done.returncode:
            row = {"name": name, "seconds": None, "outcome": f"CRASH: {done.stderr.strip().splitlines()[-1]}",
                   "peak_mb": None}
        else:
            row = {"name": name, **json.loads(done.stdout.strip().splitlines()[-1])}
        rows.append(row)
        print(f"{name:34s} {row['seconds'] or 0:6.2f} s {row['peak_mb'] or 0:7.0f} MB  {row['outcome'][:90]}",
              flush=True)
    ok = [r for r in rows if r["seconds"] is not None]
    print(f"\n{len(rows)} inputs: {sum(r['outcome'].startswith('book') for r in ok)} loaded, "
          f"{sum(r['outcome'].startswith('error') for r in ok)} refused with our error, "
          f"{len(rows) - len(ok)} crashed; slowest {max(r['seconds'] for r in ok):.2f} s, "
          f"highest peak memory {max(r['peak_mb'] for r in ok):.0f} MB (a process that loads nothing: about "
          f"{min(r['peak_mb'] for r in ok):.0f} MB)")
    write_figures("hostile", {"rows": rows})


if __name__ == "__main__":
    main()
