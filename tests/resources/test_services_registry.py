"""The registry on real services: SqlRegistry on PostgreSQL, SupabaseRegistry through supabase-py.

The resolver rules of tests/resources/test_core_resolver.py are re-run here, unchanged, against each
backend (its `registry` world is built into the backend's database), so "same assertions as
SQLite" is literal. Supabase goes through the real client to tests/support/postgrest_server.py.
"""

import warnings
from datetime import datetime

import dagster as dg
import httpx
import pytest
import test_core_resolver as core
from test_core_resolver import (  # noqa: F401 - collected again here, against the backends below
    test_baseline_time_comes_from_the_base_model,
    test_benchmark_mode_accepts_id_or_hyphenated_name,
    test_largest_abs_delta_catches_regressions,
    test_largest_delta_picks_the_biggest_gain_and_newest_rerun,
    test_latest_never_pairs_two_benchmarks,
    test_latest_with_no_baseline_on_that_benchmark_leaves_baseline_empty,
    test_pair_table_lists_matched_and_one_sided,
    test_unfinished_jobs_only_when_asked,
    test_unknown_benchmark_and_model_are_clear_errors,
)

from resources.registry import RegistryResource, SqlRegistry
from resources.registry.supabase import RegistryQueryError, SupabaseRegistry
from support.postgrest_server import PostgrestServer

KEY = "sb_secret_service_role_key_xyz"


def build_core_world(url: str, tmp_path, monkeypatch) -> SqlRegistry:
    """The core resolver fixture's rows, written into the database at `url`."""
    monkeypatch.setattr(core, "SqlRegistry", lambda _sqlite_url: SqlRegistry(url))
    return core.registry.__wrapped__(tmp_path)


@pytest.fixture(params=["sql-on-postgresql", "supabase-on-sqlite", "supabase-on-postgresql"])
def registry(request, tmp_path, monkeypatch):
    backend, _, database = request.param.partition("-on-")
    url = request.getfixturevalue("pg_url") if database == "postgresql" else f"sqlite:///{tmp_path / 'sb.sqlite'}"
    sql = build_core_world(url, tmp_path, monkeypatch)
    if backend == "sql":
        yield sql
        sql.engine.dispose()
        return
    # max_rows=2 (PostgREST db-max-rows) and page_size=2: every multi-row read spans several pages.
    with PostgrestServer(url, KEY, max_rows=2) as server:
        remote = SupabaseRegistry(server.url, KEY, page_size=2)
        remote.insert = sql.insert  # the core tests add rows: they go to the database behind PostgREST
        yield remote
    sql.engine.dispose()


@pytest.fixture
def supabase_world(tmp_path, monkeypatch):
    url = f"sqlite:///{tmp_path / 'sb.sqlite'}"
    sql = build_core_world(url, tmp_path, monkeypatch)
    with PostgrestServer(url, KEY) as server:
        yield sql, server


def test_rows_are_the_sql_backends_rows(supabase_world):
    sql, server = supabase_world
    remote = SupabaseRegistry(server.url, KEY, page_size=4)
    for method, arg in (("models_by_name", "org/rl-8B"), ("jobs_for_model", "m-rl"), ("benchmarks", None)):
        expect = getattr(sql, method)(*([arg] if arg else []))
        got = getattr(remote, method)(*([arg] if arg else []))
        assert sorted(got, key=lambda r: r["id"]) == sorted(expect, key=lambda r: r["id"]), method
    job = next(j for j in remote.jobs_for_model("m-rl") if j["id"] == "post-rg")
    assert isinstance(job["ended_at"], datetime) and job["ended_at"].utcoffset().total_seconds() == 0
    assert job["metrics"] == {"accuracy": 0.4} and isinstance(remote.jobs_for_model("m-base")[0]["metrics"], list)


def test_queries_filter_select_and_paginate_with_range(supabase_world):
    _, server = supabase_world
    jobs = SupabaseRegistry(server.url, KEY, page_size=2).jobs_for_model("m-rl")
    assert len(jobs) == 6
    pages = server.queries("sandbox_jobs")
    assert [(q["offset"], q["limit"]) for q in pages] == [("0", "2"), ("2", "2"), ("4", "2")]  # stops at the total
    assert all(q["select"] == "*" and q["model_id"] == "eq.m-rl" and q["order"] == "id.asc" for q in pages)
    assert "count=exact" in server.requests[0]["prefer"] and "count=exact" not in server.requests[1]["prefer"]
    SupabaseRegistry(server.url, KEY).models_by_name("org/rl-8B")
    assert server.queries("models")[-1]["name"] == "eq.org/rl-8B"


def test_server_row_cap_below_page_size_still_reads_everything(supabase_world):
    _, server = supabase_world
    server.max_rows = 4  # PostgREST db-max-rows smaller than our page: the short page is not the end
    jobs = SupabaseRegistry(server.url, KEY, page_size=1000).jobs_for_model("m-rl")
    assert len(jobs) == 6 and [q["offset"] for q in server.queries("sandbox_jobs")] == ["0", "4"]


def test_key_errors_are_clear_and_never_echo_the_key(supabase_world):
    _, server = supabase_world
    with pytest.raises(ValueError, match="SUPABASE_SERVICE_ROLE_KEY"):
        SupabaseRegistry(server.url, "")
    with pytest.raises(RegistryQueryError, match="models.*Invalid API key.*row-level security") as info:
        SupabaseRegistry(server.url, "sb_wrong_key").models_by_name("org/rl-8B")
    assert "sb_wrong_key" not in str(info.value)


def test_the_timeout_reaches_the_http_client_without_a_deprecation_warning(supabase_world):
    _, server = supabase_world
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        remote = SupabaseRegistry(server.url, KEY, timeout_s=7.5)
        assert sorted(m["name"] for m in remote.models_by_name("org/rl-8B")) == ["org/rl-8B"]
    assert remote._client.postgrest.session.timeout == httpx.Timeout(7.5)


def test_resource_reads_the_key_from_an_envvar(supabase_world, monkeypatch):
    _, server = supabase_world
    monkeypatch.setenv("SUPABASE_SERVICE_ROLE_KEY", KEY)
    resource = RegistryResource(supabase_url=server.url, supabase_key=dg.EnvVar("SUPABASE_SERVICE_ROLE_KEY"))

    @dg.asset
    def probe(registry: RegistryResource):
        return [b["name"] for b in registry.client().benchmarks()]

    result = dg.materialize([probe], resources={"registry": resource})
    assert sorted(result.output_for_node("probe")) == ["post-only-bench", "rg-six-families", "terminal-bench-mini"]
