"""Room on the C heap for a large computation's temporaries (glibc; elsewhere nothing).

A batched Newton iteration over thousands of designs allocates and frees NumPy arrays of a
few hundred kB to a few MB, hundreds of times a second; so does a Newton solve of a large
sparse system (the band storage of its LU, its Jacobian's entries, vectors of every
unknown). glibc's ``malloc`` serves a block
above its *mmap threshold* by a fresh ``mmap`` (and unmaps it when freed), and gives the
free memory at the top of its heap back to the system above its *trim threshold*: either
way the next such array is served by new pages, each touched page a page fault (about a
microsecond, with its zeroing). By default both thresholds are dynamic: they rise to the
size of the largest mmapped block freed so far (mallopt(3)), so a process that has freed one
array of the size of an iteration's temporaries keeps them on its heap. A fresh process has
not; and a process whose environment fixes the thresholds (dask's workers are started with
``MALLOC_TRIM_THRESHOLD_=65536``, so that they give memory back) never gets there. A design
sweep of four-bars then takes 1.5 times (fresh process) to 2.7 times (dask worker) its CPU
time, most of it in page faults (about 18 a design and value, measured); a solve of the chain
of 10^4 four-bar loops took about 1600 page faults, a tenth of its time.

:func:`room_for` gives the heap the room of one iteration's temporaries for the duration of a
computation:

* dynamic thresholds (no ``MALLOC_*`` setting in the environment): an untouched block of that
  size is allocated and freed, which raises them as any array of that size freed does
  (nothing else changes; the process keeps them, as it would have);
* thresholds fixed by the environment: ``mallopt`` raises them, and puts back the values the
  environment gave when the last computation that asked leaves, then ``malloc_trim`` gives
  the free memory back.
"""

from __future__ import annotations

import ctypes
import os
import sys
import threading
from contextlib import contextmanager

import numpy as np

#: glibc's ``mallopt`` parameters and defaults (malloc.h).
_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
_DEFAULT_THRESHOLD = 128 * 1024
#: The largest mmap threshold the dynamic rule reaches (DEFAULT_MMAP_THRESHOLD_MAX, 64 bits),
#: less a page for the block's header.
_MAX_THRESHOLD = 32 * 1024 * 1024 - 4096
_FIXED_BY = ("MALLOC_TRIM_THRESHOLD_", "MALLOC_MMAP_THRESHOLD_", "MALLOC_TOP_PAD_",
             "MALLOC_MMAP_MAX_")

_lock = threading.Lock()
_raised = 0   # computations inside room_for (fixed thresholds)
_libc = False   # not looked up yet


def _glibc():
    """glibc's ``mallopt`` and ``malloc_trim``, or None (another C library, or none)."""
    global _libc
    if _libc is False:
        _libc = None
        try:
            if sys.platform.startswith("linux") and os.confstr("CS_GNU_LIBC_VERSION"):
                libc = ctypes.CDLL("libc.so.6")
                libc.mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
                libc.malloc_trim.argtypes = (ctypes.c_size_t,)
                _libc = libc
        except (OSError, ValueError, AttributeError):   # not glibc
            pass
    return _libc


def _fixed_value(name: str) -> int:
    try:
        return int(os.environ[name])
    except (KeyError, ValueError):
        return _DEFAULT_THRESHOLD


@contextmanager
def room_for(nbytes: int):
    """Let the heap keep ``nbytes`` of freed temporaries (and blocks up to that size) for
    the duration of the ``with`` block (see the module's docstring)."""
    global _raised
    libc = _glibc()
    size = int(min(max(nbytes, _DEFAULT_THRESHOLD), _MAX_THRESHOLD))
    if libc is None or "malloc" in os.environ.get("GLIBC_TUNABLES", ""):
        yield
        return
    if not any(name in os.environ for name in _FIXED_BY):
        np.empty(size // 8 + 1)   # mmapped and freed, never touched: raises the thresholds
        yield
        return
    with _lock:
        if not _raised:
            libc.mallopt(_M_MMAP_THRESHOLD, size)
            libc.mallopt(_M_TRIM_THRESHOLD, 2 * size)
        _raised += 1
    try:
        yield
    finally:
        with _lock:
            _raised -= 1
            if not _raised:
                libc.mallopt(_M_MMAP_THRESHOLD, _fixed_value("MALLOC_MMAP_THRESHOLD_"))
                libc.mallopt(_M_TRIM_THRESHOLD, _fixed_value("MALLOC_TRIM_THRESHOLD_"))
                libc.malloc_trim(0)
