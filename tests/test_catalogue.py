"""The model catalogue, what fits a machine, and downloads from a local stand-in for the Hugging Face Hub (the
embedded GGUF served as a "downloadable" model): progress, resume, checksum, the Hub unreachable, load and ask."""

from __future__ import annotations

import subprocess
import sys

import huggingface_hub.constants
import pytest

from elite_ui.errors import ModelError
from elite_ui.methods.elite import PRESETS, Elite
from elite_ui.models import ModelChoice, open_model
from elite_ui.models.catalogue import TIERS, Hardware, catalogue, entry
from elite_ui.models.hub import downloaded, pull
from elite_ui.models.llama_cpp import embedded_model_path
from elite_ui.models.registry import chosen
from elite_ui.reading import preset_for
from elite_ui.testing.browser import ROOT
from elite_ui.testing.hub import Hub

MODEL = entry("qwen2.5-1.5b")


@pytest.fixture(scope="module")
def gguf() -> bytes:
    return embedded_model_path().read_bytes()


@pytest.fixture
def hub(gguf):
    served = Hub({f"{MODEL.repo}/{MODEL.file}": gguf})
    yield served
    served.close()


@pytest.fixture
def hub_cache(tmp_path, monkeypatch):
    """The Hub cache in a temporary folder (the library reads the constant at each call)."""
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(tmp_path / "hub"))
    return tmp_path / "hub"


def test_every_catalogue_entry_is_complete():
    assert len(catalogue()) >= 5 and {m.tier for m in catalogue().values()} == set(TIERS)
    for m in catalogue().values():
        assert m.repo.count("/") == 1 and m.file.endswith(".gguf")
        assert m.context >= 8192 and m.memory_gb >= m.size_mb / 1000 and m.licence


@pytest.mark.parametrize(("machine", "runs_7b", "pick"), [
    (Hardware(24, 16, "CUDA", 24.0), "GPU", "qwen2.5-7b"),
    (Hardware(16, 8, "Metal", 16.0), "GPU", "qwen2.5-7b"),
    (Hardware(16, 8, "", None), "CPU", "qwen2.5-3b"),
    (Hardware(8, 4, "CUDA", 4.0), "CPU", "qwen2.5-3b"),
    (Hardware(4.5, 4, "", None), "", "qwen2.5-1.5b"),
    (Hardware(2, 2, "", None), "", None),
])
def test_what_fits_a_machine_and_what_it_is_offered(machine, runs_7b, pick):
    assert machine.runs(entry("qwen2.5-7b")) == runs_7b
    assert (machine.recommend().name if machine.recommend() else None) == pick
    assert "RAM" in machine.describe()


def test_a_model_name_chooses_the_catalogue_a_path_a_file(tmp_path):
    assert chosen("Qwen2.5-3B") == ModelChoice("catalogue", name="qwen2.5-3b")
    assert chosen(str(tmp_path / "x.gguf")).kind == "gguf" and chosen(None).kind == "embedded"
    assert chosen("qwen2.5-3b", "http://h:1", "m") == ModelChoice("server", server="http://h:1", name="m")


def test_download_shows_progress_resumes_a_cut_transfer_and_is_found_again(hub, hub_cache, gguf):
    seen = []

    class Progress(huggingface_hub.utils.tqdm):
        def update(self, n=1):
            seen.append(n)
            return super().update(n)

    assert downloaded(MODEL) is None
    hub.cut = True
    path = pull(MODEL, endpoint=hub.url, tqdm_class=Progress)
    assert path.read_bytes() == gguf and downloaded(MODEL) == path
    resumed = [int(r.removeprefix("bytes=").rstrip("-")) for _, _, r in hub.requests if r]
    assert len(resumed) == 1 and 0 < resumed[0] <= len(gguf) // 2, "resumed from what it had, not from the start"
    assert sum(seen) == len(gguf), "the progress bar counted every byte once"
    hub.close()
    assert pull(MODEL, endpoint=hub.url) == path, "a downloaded model needs no network"


def test_a_corrupted_download_is_refused_and_removed(hub, hub_cache):
    hub.corrupt = True
    with pytest.raises(ModelError, match="does not match the Hub's checksum"):
        pull(MODEL, endpoint=hub.url)
    assert downloaded(MODEL) is None and not list(hub_cache.rglob("*.gguf"))
    hub.corrupt = False
    assert pull(MODEL, endpoint=hub.url).stat().st_size > 0, "the next try downloads it again"


def test_the_hub_unreachable_is_one_sentence(hub, hub_cache):
    url = hub.url
    hub.close()
    with pytest.raises(ModelError, match=r"cannot be reached \(offline\?\)") as err:
        pull(MODEL, endpoint=url)
    assert "\n" not in str(err.value)
    with pytest.raises(ModelError, match="not downloaded yet"):
        open_model(ModelChoice("catalogue", name=MODEL.name))


@pytest.mark.model
def test_a_downloaded_model_loads_and_answers(hub, hub_cache, pride):
    pull(MODEL, endpoint=hub.url)
    llm = open_model(ModelChoice("catalogue", name=MODEL.name, n_ctx=4096))
    try:
        assert llm.name == MODEL.file.removesuffix(".gguf") and llm.placement().startswith("CPU")
        trace = Elite(llm, PRESETS[preset_for(llm)[0]]).run(pride, "Who is Mr. Darcy's friend?")
        assert trace.of("answer") and llm.speed() is not None
    finally:
        llm.close()


def test_the_command_line_lists_and_pulls(hub, tmp_path):
    env = {"HF_HUB_CACHE": str(tmp_path / "hub"), "HF_ENDPOINT": hub.url, "PATH": "/usr/bin:/bin"}

    def run(*args):
        return subprocess.run([sys.executable, "-m", "elite_ui.models", *args], cwd=ROOT, env=env, check=False,
                              capture_output=True, text=True, timeout=120)

    listed = run("list")
    assert listed.returncode == 0 and "recommended here" in listed.stdout and MODEL.name in listed.stdout
    pulled = run("pull", MODEL.name)
    assert pulled.returncode == 0 and f"--model {MODEL.name}" in pulled.stdout
    assert "yes" in next(line for line in run("list").stdout.splitlines() if MODEL.name in line)
    hub.close()
    refused = run("pull", "qwen2.5-7b")
    assert refused.returncode == 1 and refused.stderr.startswith("error:") and "Traceback" not in refused.stderr
