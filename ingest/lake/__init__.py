"""The Parquet lake: the whole database as plain Parquet files, and the analysis views computed
from those files alone by DuckDB on one machine or by Apache Spark on many.

Layout of a lake DIR (any Parquet engine reads it; no Hive partitions, see below):

    DIR/_iolab_manifest.json       schema version (migrations), row counts, the sources and their sha256
    DIR/<table>/part-schema.parquet   zero rows: the table's schema, so an empty table still reads
    DIR/<table>/part-NNNNN.parquet    rows of the sources added by export batch NNNNN (one per run)
    DIR/source_history/part-all.parquet catalogue tables (labels, places change in place): rewritten each run
    DIR/points/part-<source_id>.parquet  the time-series store's own files, copied byte for byte
    DIR/measurements/...           the public contract, batched like the tables
    DIR/views/<view>/*.parquet     written by `iolab lake views`

Incremental: the manifest lists every exported source (place) with its sha256, a fingerprint of
its labels and the batch holding its rows. A new run exports only sources the manifest lacks, in a
new batch; a batch one of whose sources changed (relabelled, removed) is written again.

Why no Hive partitions: study and system names are free text from sidecars (slashes, '=', '%',
NULL), which Hive paths must escape and every engine then un-escapes and re-types in its own way
(a study named "2009" comes back as an integer). Batch files keep every value a plain column and
Parquet row-group statistics still let engines skip files by study or tool.

Views: schemas/views/*.sql are the ONE definition. DuckDB runs them as written; for Spark each
statement is parsed by sqlglot (DuckDB dialect), DuckDB macros are expanded in place (Spark SQL
has no macros) and the result is generated as Spark SQL. A construct sqlglot cannot carry over is
rewritten in the view file itself into a form both engines accept.
"""

from . import cluster, owned
from .cluster import LocalCluster
from .common import CATALOGUE, LAKE_FORMAT, MANIFEST, SCHEMA_FILE, lake_tables, parquet_rows
from .export import export
from .read import lake_connection, read_view
from .translate import POINT_VIEWS, ROW_VIEWS, spark_statements, view_files, view_statements
from .views import spark_session, views

__all__ = [
    "CATALOGUE",
    "LocalCluster",
    "LAKE_FORMAT",
    "MANIFEST",
    "POINT_VIEWS",
    "ROW_VIEWS",
    "SCHEMA_FILE",
    "cluster",
    "export",
    "owned",
    "lake_connection",
    "lake_tables",
    "parquet_rows",
    "read_view",
    "spark_session",
    "spark_statements",
    "view_files",
    "view_statements",
    "views",
]
