"""The test clients' one TLS context per process.

Loading the CA bundle into a new SSL context costs 30-70 ms of CPU, which
every httpx client pays even for http:// (measured: a fifth of an HTTP
test's CPU): every test client passes ``verify=shared_tls_context()``.
"""

from __future__ import annotations

import functools
import ssl

shared_tls_context = functools.cache(ssl.create_default_context)
