"""iolab: results database for storage benchmark logs."""

__version__ = "0.5.0"
