"""The model catalogue (``catalogue.toml``, data) and this machine: what it has (RAM, GPU offload in this
llama-cpp-python build, GPU memory where it can be read), which catalogue models fit it and where each would run,
and the one to recommend."""

from __future__ import annotations

import platform
import shutil
import subprocess
import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import joblib
import psutil

from ..errors import ModelError

CATALOGUE = Path(__file__).with_name("catalogue.toml")
TIERS = ("1-2B", "3-4B", "7-8B")
HEADROOM_GB = 2.0
"""Memory left for the app, the book and the system when a model runs on the CPU."""


@dataclass(frozen=True)
class Entry:
    """One downloadable model (a field per key of ``catalogue.toml``)."""

    name: str
    label: str
    tier: str
    repo: str
    file: str
    quantisation: str
    size_mb: int
    licence: str
    context: int
    memory_gb: float


@cache
def catalogue() -> dict[str, Entry]:
    """The catalogue's models by name, smallest tier first."""
    with CATALOGUE.open("rb") as f:
        return {row["name"]: Entry(**row) for row in tomllib.load(f)["model"]}


def entry(name: str) -> Entry:
    found = catalogue().get(name.strip().lower())
    if found is None:
        raise ModelError(f"no model named {name!r} in the catalogue; choose one of {', '.join(catalogue())}.")
    return found


@dataclass(frozen=True)
class Hardware:
    """What this machine offers a model."""

    ram_gb: float
    threads: int
    offload: str
    """The GPU backend this llama-cpp-python build offloads to ("CUDA", "Metal", "GPU"), or "" for none."""
    gpu_gb: float | None
    """GPU memory (the RAM itself on Apple Silicon, whose memory is unified); None when unknown or absent."""

    def describe(self) -> str:
        gpu = (f"{self.offload} offload ({self.gpu_gb:.0f} GB GPU memory)" if self.offload and self.gpu_gb else
               f"{self.offload} offload" if self.offload else
               "no GPU offload in this llama-cpp-python build (CPU only)")
        return f"{self.ram_gb:.0f} GB RAM, {self.threads} CPU threads, {gpu}"

    def runs(self, model: Entry) -> str:
        """Where ``model`` would run here: "GPU", "CPU", or "" when it does not fit."""
        if self.offload and self.gpu_gb is not None and model.memory_gb <= self.gpu_gb * 0.9:
            return "GPU"
        return "CPU" if model.memory_gb + HEADROOM_GB <= self.ram_gb else ""

    def recommend(self) -> Entry | None:
        """A model of the highest tier that fits on the GPU; without a GPU, of the highest tier up to 3-4B that
        fits in RAM (a 7B model writes a few tokens a second on a laptop CPU); the lightest of its tier."""
        fitting = [m for m in catalogue().values() if self.runs(m)]
        chosen = ([m for m in fitting if self.runs(m) == "GPU"] or [m for m in fitting if m.tier != "7-8B"]
                  or fitting)
        return min(chosen, key=lambda m: (-TIERS.index(m.tier), m.memory_gb)) if chosen else None


def offload_backend() -> str:
    """The GPU this llama-cpp-python build can offload layers to, or "" when it was built for the CPU only."""
    import llama_cpp

    if not llama_cpp.llama_supports_gpu_offload():
        return ""
    if platform.system() == "Darwin":
        return "Metal"
    return "CUDA" if shutil.which("nvidia-smi") else "GPU"


def gpu_memory_gb(offload: str, ram_gb: float) -> float | None:
    """The GPU's memory: unified memory on Apple Silicon, what nvidia-smi reports on CUDA, else unknown."""
    if offload == "Metal":
        return ram_gb
    if offload == "CUDA":
        try:
            out = subprocess.run(["nvidia-smi", "--query-gpu=memory.total", "--format=csv,noheader,nounits"],
                                 capture_output=True, text=True, timeout=10, check=True).stdout
            return max(float(line) for line in out.split()) / 1024
        except (OSError, ValueError, subprocess.SubprocessError):
            return None
    return None


@cache
def usable_cpus() -> int:
    """The CPUs this process may use: its affinity and a container's CPU quota counted (joblib's count), not the
    host's cores that ``os.cpu_count`` reports in a container (a 2-vCPU Space on a many-core host): llama.cpp's
    threads spin while they wait, so 16 threads on 2 CPUs wrote 5 times slower here."""
    return max(1, joblib.cpu_count())


@cache
def this_machine() -> Hardware:
    ram = psutil.virtual_memory().total / 2**30
    offload = offload_backend()
    return Hardware(ram, usable_cpus(), offload, gpu_memory_gb(offload, ram))
