"""Getting a catalogue model from the Hugging Face Hub with huggingface_hub: its standard cache (shared with
every other tool that uses it), resumable transfers, and the file's SHA-256 checked against the one the Hub
lists. Offline, or when the Hub cannot be reached, one sentence says so."""

from __future__ import annotations

import hashlib
import re
from contextlib import contextmanager
from pathlib import Path

import httpx
from huggingface_hub import constants, hf_hub_download, try_to_load_from_cache
from huggingface_hub.errors import (
    EntryNotFoundError,
    GatedRepoError,
    HfHubHTTPError,
    LocalEntryNotFoundError,
    RepositoryNotFoundError,
)

from ..errors import ModelError
from .catalogue import Entry

SHA256 = re.compile(r"[0-9a-f]{64}")


def downloaded(model: Entry, cache_dir: str | Path | None = None) -> Path | None:
    """The model's file if it is in the Hub cache already."""
    found = try_to_load_from_cache(model.repo, model.file, cache_dir=cache_dir)
    return Path(found) if isinstance(found, str) else None


def pull(model: Entry, *, cache_dir: str | Path | None = None, endpoint: str | None = None,
         tqdm_class=None) -> Path:
    """The model's file, downloaded first if needed (resuming a transfer that was cut) and checked against the
    SHA-256 the Hub lists; a :class:`ModelError` sentence when it cannot be had."""
    found = downloaded(model, cache_dir)
    if found is not None:
        return found
    if not reachable(endpoint or constants.ENDPOINT):
        raise unreachable(model)
    try:
        with online():
            path = Path(hf_hub_download(model.repo, model.file, cache_dir=cache_dir, endpoint=endpoint,
                                        tqdm_class=tqdm_class))
    except GatedRepoError:
        raise ModelError(f"{model.repo} asks you to accept its licence on huggingface.co first.") from None
    except LocalEntryNotFoundError:
        raise unreachable(model) from None
    except (RepositoryNotFoundError, EntryNotFoundError):
        raise ModelError(f"the Hub has no file {model.file} in {model.repo}; the catalogue needs updating.") from None
    except (HfHubHTTPError, OSError) as exc:
        raise ModelError(f"the download of {model.label} failed ({exc}); try again to resume it.") from None
    verify(path)
    return path


@contextmanager
def online():
    """The Hub library on line for a download the reader asked for (the app sets it off line so that nothing
    else, such as the embedding model, ever reaches out)."""
    kept, constants.HF_HUB_OFFLINE = constants.HF_HUB_OFFLINE, False
    try:
        yield
    finally:
        constants.HF_HUB_OFFLINE = kept


def reachable(endpoint: str) -> bool:
    """Whether the Hub answers at all (one quick request, so that an offline machine hears so at once)."""
    try:
        httpx.head(endpoint, timeout=5)
    except httpx.HTTPError:
        return False
    return True


def unreachable(model: Entry) -> ModelError:
    return ModelError(f"the Hugging Face Hub cannot be reached (offline?), and {model.label} is not downloaded; "
                      "the app goes on with the model it has.")


def verify(path: Path) -> None:
    """Refuse a file whose content does not match the SHA-256 it is stored under (the Hub cache names a large
    file's blob by the checksum the Hub lists), and remove it so that the next pull downloads it again."""
    blob = path.resolve()
    if not SHA256.fullmatch(blob.name):
        return
    digest = hashlib.sha256()
    with blob.open("rb") as f:
        while chunk := f.read(1 << 20):
            digest.update(chunk)
    if digest.hexdigest() != blob.name:
        blob.unlink(missing_ok=True)
        path.unlink(missing_ok=True)
        raise ModelError(f"the downloaded {path.name} does not match the Hub's checksum (corrupted in transfer); "
                         "it was removed: download it again.")
