"""Starts pypaimon's mock REST catalog server (`pypaimon_rest_server.py`, copied verbatim from
Apache Paimon release-2.0.0 `paimon-python/pypaimon/tests/rest/rest_server.py`) for strata's
REST client tests, as pypaimon's own `RESTBaseTest` does: bearer token auth, config defaults
`{"prefix": PREFIX}` (plus `data-token.enabled` when asked), warehouse name `warehouse`.

Usage: python pypaimon_mock_main.py DATA_DIR TOKEN PREFIX [data-token]
Prints the server URL on one line, then serves until its stdin closes.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from pypaimon.api.api_response import ConfigResponse  # noqa: E402
from pypaimon.api.auth import BearTokenAuthProvider  # noqa: E402

from pypaimon_rest_server import RESTCatalogServer  # noqa: E402


def main():
    data_dir, token, prefix = sys.argv[1], sys.argv[2], sys.argv[3]
    defaults = {"prefix": prefix}
    if len(sys.argv) > 4 and sys.argv[4] == "data-token":
        defaults["data-token.enabled"] = "true"
    server = RESTCatalogServer(
        data_path=data_dir,
        auth_provider=BearTokenAuthProvider(token),
        config=ConfigResponse(defaults=defaults),
        warehouse="warehouse",
    )
    server.start()
    print(server.get_url(), flush=True)
    try:
        sys.stdin.read()
    finally:
        server.shutdown()


if __name__ == "__main__":
    main()
