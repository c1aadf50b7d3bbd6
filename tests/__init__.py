"""The tests' package. Imported before conftest.py and every test module: it makes `iolab` this checkout's
ingest/ (pyproject's package-dir maps the name to the folder), ahead of the editable install of another
checkout that shares the venv (a worktree run with PYTHONPATH=$PWD). Subprocesses do not see it.
"""

import importlib.abc
import importlib.machinery
import importlib.util
import sys
from pathlib import Path

_ROOT = Path(__file__).resolve().parent.parent


class _ThisCheckout(importlib.abc.MetaPathFinder):
    FOLDERS = {
        "iolab": "ingest",
        "iolab.validation": "validation",
        "iolab.schemas": "schemas",
        "iolab.notebooks": "notebooks",
    }

    def find_spec(self, name, path=None, target=None):
        if name not in self.FOLDERS:
            return None
        folder = _ROOT / self.FOLDERS[name]
        if (folder / "__init__.py").is_file():
            return importlib.util.spec_from_file_location(
                name, folder / "__init__.py", submodule_search_locations=[str(folder)]
            )
        spec = importlib.machinery.ModuleSpec(name, None, is_package=True)
        spec.submodule_search_locations = [str(folder)]
        return spec


sys.meta_path.insert(0, _ThisCheckout())
