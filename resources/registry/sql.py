"""`SqlRegistry`: the registry tables in a SQL database through SQLAlchemy (SQLite file in the home
folder; PostgreSQL by URL), the embedded default of the `registry` resource.
"""

from __future__ import annotations

from datetime import UTC, datetime

from resources.registry.types import RegistryQueries, metadata, tables

# sqlalchemy: imported where used, so loading the definitions stays light (test_import_cost.py)


def _as_utc(value):
    # SQLite hands timestamps back naive; they were written as UTC, so say so.
    if isinstance(value, datetime) and value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value


def _utc_values(values: dict) -> dict:
    """A row to write, its aware times converted to UTC (naive ones are taken as UTC already)."""
    return {k: v.astimezone(UTC) if isinstance(v, datetime) and v.tzinfo else v for k, v in values.items()}


def _row(mapping) -> dict:
    return {k: _as_utc(v) for k, v in dict(mapping).items()}


class SqlRegistry(RegistryQueries):
    """The registry tables in any SQLAlchemy database (SQLite by default, PostgreSQL by URL)."""

    def __init__(self, url: str):
        import sqlalchemy as sa

        self.url = url
        # SQLAlchemy 2.1 maps a bare postgresql:// to psycopg 3; the driver we ship is psycopg2.
        driver_url = "postgresql+psycopg2://" + url[len("postgresql://") :] if url.startswith("postgresql://") else url
        self.engine = sa.create_engine(driver_url, future=True, pool_pre_ping=True)

    def create_all(self) -> None:
        metadata().create_all(self.engine)

    def insert(self, table: str, rows: list[dict]) -> None:
        self.write({table: rows})

    def write(self, inserts: dict[str, list[dict]], updates: dict[str, dict[str, dict]] | None = None) -> None:
        """Insert rows ({table: rows}) and update rows ({table: {id: values}}) in ONE transaction: a
        write that fails part-way leaves no row behind. Aware times are stored as UTC (SQLite keeps
        no offset: 12:00+05:00 would come back as 12:00 UTC)."""
        with self.engine.begin() as conn:
            for table, rows in inserts.items():
                if rows:
                    conn.execute(tables()[table].insert(), self._full_rows(table, rows))
            for table, by_id in (updates or {}).items():
                t = tables()[table]
                for row_id, values in by_id.items():
                    conn.execute(t.update().where(t.c.id == row_id).values(**_utc_values(values)))

    @staticmethod
    def _full_rows(table: str, rows: list[dict]) -> list[dict]:
        # executemany needs every row to carry the same keys: absent columns become NULL.
        columns = [c.name for c in tables()[table].columns]
        unknown = {k for r in rows for k in r} - set(columns)
        if unknown:
            raise ValueError(f"registry table {table} has no column(s) {sorted(unknown)}")
        return [_utc_values({c: r.get(c) for c in columns}) for r in rows]

    def delete_where(self, table: str, column: str, values) -> None:
        values = list(values)
        if values:
            t = tables()[table]
            with self.engine.begin() as conn:
                conn.execute(t.delete().where(t.c[column].in_(values)))

    def _select(self, table: str, **where) -> list[dict]:
        import sqlalchemy as sa

        t = tables()[table]
        query = sa.select(t)
        for column, value in where.items():
            query = query.where(t.c[column] == value)
        with self.engine.connect() as conn:
            return [_row(r) for r in conn.execute(query).mappings()]
