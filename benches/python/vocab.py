"""Puts tiktoken's `o200k_base` vocabulary where tiktoken finds it without internet,
for the Python contenders of the benches (`batch_fit.py`, `counting.py`)."""
import glob
import hashlib
import os
import shutil
import sys
import tempfile

O200K_URL = "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken"


def install_vocab(vocab):
    """Puts `vocab` (or the tiktoken-rs crate's copy) in tiktoken's cache, under the
    name tiktoken looks for: the SHA-1 of the download URL."""
    cache = os.environ.get("TIKTOKEN_CACHE_DIR") or os.path.join(
        tempfile.gettempdir(), "data-gym-cache")
    os.environ["TIKTOKEN_CACHE_DIR"] = cache
    target = os.path.join(cache, hashlib.sha1(O200K_URL.encode()).hexdigest())
    if os.path.exists(target):
        return
    if vocab is None:
        found = sorted(glob.glob(os.path.expanduser(
            "~/.cargo/registry/src/*/tiktoken-rs-*/assets/o200k_base.tiktoken")))
        if not found:
            sys.exit("no o200k_base.tiktoken: pass --vocab FILE")
        vocab = found[-1]
    os.makedirs(cache, exist_ok=True)
    shutil.copyfile(vocab, target)
