"""The browser view's app under uvicorn in a thread on a free port of 127.0.0.1, for the tests
that drive it over real HTTP (``test_web_browser.py``, ``test_web_limits.py``)."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from typing import Any


@contextlib.contextmanager
def running(app: Any, lifespan: str = "off") -> Iterator[str]:
    """Serve ``app`` while the block runs; yields its base URL (``http://127.0.0.1:<port>``)."""
    import uvicorn

    config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning",
                            lifespan=lifespan)
    web = uvicorn.Server(config)
    thread = threading.Thread(target=web.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not web.started:
        assert time.monotonic() < deadline and thread.is_alive(), "uvicorn did not start"
        time.sleep(0.02)
    port = web.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        web.should_exit = True
        thread.join(10)
