"""The store: the DuckDB database and what lives beside it. ``iolab.db`` is its one way in.

* connect.py: opening a database (one writer at a time; each failure said as what to do next)
* schema.py: migrations, views, the template new databases are copied from
* places.py: where each raw file is and which places are in the analysis (source_history)
* points.py: the time-series store beside the database (Parquet, one file per source)
* chunks.py: the store's points a chunk at a time, for the views that aggregate every point
* writer.py: a parsed file's rows, written a table at a time
"""
