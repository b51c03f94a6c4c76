"""`SupabaseRegistry`: the registry tables read through supabase-py (PostgREST).

Returns exactly the row dicts SqlRegistry returns — the columns of resources/registry/types.py's tables,
timestamps as aware UTC datetimes, JSON columns as dicts/lists — so the eval-pair resolver gives
the same answer on either backend. PostgREST caps the rows of one response (max-rows), so every
query is paginated with `.range()` in a stable `id` order, and the exact row count from the first
page's Content-Range says when to stop.
"""

from __future__ import annotations

import json

import sqlalchemy as sa

from resources.registry.types import RegistryQueries, tables
from rl_assets.values.masking import MaskedError, mask_url, safe_cause
from rl_assets.values.timestamps import parse_utc


class RegistryQueryError(MaskedError):
    """A Supabase query failed; the message names the table and filter (never the key)."""


def _convert(table: str, row: dict) -> dict:
    out = {}
    for column in tables()[table].columns:
        value = row.get(column.name)
        if isinstance(column.type, sa.DateTime):
            value = parse_utc(value, f"{table}[{row.get('id')}].{column.name}")
        elif isinstance(column.type, sa.JSON) and isinstance(value, str):
            # A json column stored as text (older rows) still reaches the resolver as data.
            try:
                value = json.loads(value)
            except ValueError:
                pass
        out[column.name] = value
    return out


class SupabaseRegistry(RegistryQueries):
    """RegistryBackend over `supabase.create_client(url, key)`; `page_size` rows per request."""

    def __init__(self, url: str, key: str, page_size: int = 1000, timeout_s: float = 30.0):
        if not url:
            raise ValueError("the Supabase registry needs SUPABASE_URL (https://<project>.supabase.co)")
        if not key:
            raise ValueError(
                "the Supabase registry needs a key: set SUPABASE_SERVICE_ROLE_KEY (or SUPABASE_KEY) in the "
                "environment; the registry resource reads it through an EnvVar"
            )
        import httpx
        from supabase import ClientOptions, create_client

        self.url = url
        self.page_size = max(1, int(page_size))
        # supabase-py takes the timeout on the HTTP client it is given (its `postgrest_client_timeout`
        # option is deprecated); redirects followed as its own default client does.
        http = httpx.Client(timeout=timeout_s, follow_redirects=True)
        self._client = create_client(url, key, options=ClientOptions(httpx_client=http))

    def __repr__(self) -> str:  # never show the key
        return f"SupabaseRegistry(url={mask_url(self.url)!r})"

    def _select(self, table: str, **where) -> list[dict]:
        from postgrest.exceptions import APIError
        from postgrest.types import CountMethod

        rows: list[dict] = []
        total = None
        while True:
            query = self._client.table(table).select("*", count=CountMethod.exact if total is None else None)
            for column, value in where.items():
                query = query.eq(column, value)
            start = len(rows)
            try:
                response = query.order("id").range(start, start + self.page_size - 1).execute()
            except APIError as exc:
                raise RegistryQueryError(
                    f"Supabase query on {table} where {where or 'all rows'} failed: {exc.message} (code {exc.code}); "
                    "check SUPABASE_URL and that the key may read this table (row-level security)"
                ) from safe_cause(exc)
            except Exception as exc:  # network errors from the HTTP client
                raise RegistryQueryError(
                    f"Supabase at {self.url} unreachable for {table}: {type(exc).__name__}: {exc}"
                ) from safe_cause(exc)
            page = response.data or []
            total = response.count if total is None else total
            for r in page:
                if not isinstance(r, dict):
                    raise RegistryQueryError(f"Supabase returned a row of {table} that is not an object: {r!r:.80}")
                rows.append(_convert(table, r))
            # Stop on the known total; without one (no Content-Range), on the first empty page.
            if not page or (total is not None and len(rows) >= total):
                return rows
