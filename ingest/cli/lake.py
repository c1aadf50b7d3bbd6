"""`iolab lake export|views`: the commands live beside the lake's logic, in ingest/lake.py."""

from ..lake import register

__all__ = ["register"]
