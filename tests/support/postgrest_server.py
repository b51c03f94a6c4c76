"""A loopback PostgREST endpoint (the `/rest/v1` part of Supabase) over a SQL registry database.

    with PostgrestServer(sql_url, key="k", max_rows=3) as srv:
        client = supabase.create_client(srv.url, "k")

Answers what supabase-py's select builder sends: `GET /rest/v1/<table>?select=*&<col>=eq.<v>
&order=<col>.asc&offset=<n>&limit=<m>` with `Prefer: count=exact`, replying with a JSON array
and `Content-Range: <first>-<last>/<total|*>` like PostgREST. `max_rows` caps rows per response
(PostgREST's db-max-rows). Every request's path and query string is recorded for assertions;
the key must arrive as `apikey` (401 otherwise) but is never recorded.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler
from urllib.parse import parse_qsl, urlsplit

import sqlalchemy as sa

from resources.registry import tables
from support.loopback import LoopbackServer


def _jsonable(value):
    if isinstance(value, datetime):
        # timestamptz as PostgREST renders it; SQLite gives naive values that were written as UTC
        return (value if value.tzinfo else value.replace(tzinfo=UTC)).isoformat()
    return value


class PostgrestServer(LoopbackServer):
    def __init__(self, sql_url: str, key: str, max_rows: int | None = None):
        # SQLAlchemy 2.1 maps a bare postgresql:// to psycopg 3; psycopg2 is the driver installed.
        self.engine = sa.create_engine(sql_url.replace("postgresql://", "postgresql+psycopg2://", 1), future=True)
        self.key = key
        self.max_rows = max_rows
        self.requests: list[dict] = []  # {"path", "query": [(k, v)], "prefer"}
        self.fail_next: list[tuple[int, dict]] = []  # (status, PostgREST error body) for the next requests

    @property
    def url(self) -> str:
        return self.base_url

    def handler_class(self):
        return _handler(self)

    def stop(self) -> None:
        super().stop()
        self.engine.dispose()

    def queries(self, table: str) -> list[dict]:
        return [dict(r["query"]) for r in self.requests if r["path"] == f"/rest/v1/{table}"]

    def select(self, table_name: str, query: list[tuple[str, str]]) -> tuple[list[dict], int, int]:
        """(rows, offset, total) for a PostgREST query string; raises ValueError like a 400."""
        table = tables().get(table_name)
        if table is None:
            raise LookupError(f'relation "public.{table_name}" does not exist')
        stmt, count = sa.select(table), sa.select(sa.func.count()).select_from(table)
        offset, limit = 0, None
        for key, value in query:
            if key == "select":
                if value != "*":
                    raise ValueError(f"loopback PostgREST only serves select=*, got {value!r}")
            elif key == "order":
                column, _, direction = value.partition(".")
                stmt = stmt.order_by(table.c[column].desc() if direction.startswith("desc") else table.c[column])
            elif key == "offset":
                offset = int(value)
            elif key == "limit":
                limit = int(value)
            elif key in table.c:
                op, _, operand = value.partition(".")
                if op != "eq":
                    raise ValueError(f"operator {op!r} not supported by the loopback PostgREST")
                stmt, count = stmt.where(table.c[key] == operand), count.where(table.c[key] == operand)
            else:
                raise ValueError(f"column {table_name}.{key} does not exist")
        if self.max_rows is not None:
            limit = min(limit or self.max_rows, self.max_rows)
        with self.engine.connect() as conn:
            total = conn.execute(count).scalar_one()
            rows = [
                {k: _jsonable(v) for k, v in r.items()}
                for r in conn.execute(stmt.offset(offset).limit(limit)).mappings()
            ]
        return rows, offset, total


def _handler(server: PostgrestServer):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def _reply(self, code: int, body, headers: dict | None = None):
            data = json.dumps(body).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)

        def _error(self, code: int, pg_code: str, message: str):
            self._reply(code, {"code": pg_code, "message": message, "details": None, "hint": None})

        def do_GET(self):
            split = urlsplit(self.path)
            query = parse_qsl(split.query, keep_blank_values=True)
            prefer = self.headers.get("Prefer", "")
            server.requests.append({"path": split.path, "query": query, "prefer": prefer})
            if server.fail_next:
                code, body = server.fail_next.pop(0)
                return self._reply(code, body)
            if self.headers.get("apikey") != server.key:
                return self._error(401, "PGRST301", "Invalid API key")
            if not split.path.startswith("/rest/v1/"):
                return self._error(404, "PGRST000", f"no route {split.path}")
            try:
                rows, offset, total = server.select(split.path.removeprefix("/rest/v1/"), query)
            except LookupError as exc:
                return self._error(404, "42P01", str(exc))
            except ValueError as exc:
                return self._error(400, "PGRST100", str(exc))
            shown = f"{offset}-{offset + len(rows) - 1}" if rows else "*"
            self._reply(200, rows, {"Content-Range": f"{shown}/{total if 'count=exact' in prefer else '*'}"})

    return Handler
