"""What an iolab.toml may say: its keys and their types, checked by pydantic (see ingest/sidecar.py).

Kept apart from sidecar.py so that a run over folders without a sidecar never imports pydantic."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

from . import sla_bound

# labels the sidecar reader adds from what the sidecar says (sla -> sla_bound): never written by hand
DERIVED = {"sla_bound"}


class _Strict(BaseModel):
    # extra="forbid": a typo such as `sytem` is an error, never a silently ignored key;
    # strict: TOML true is not a number, "4" is not a whole number
    model_config = ConfigDict(extra="forbid", strict=True)


class Target(_Strict):
    """[[targets]]: a workload target (as the tool names it; globs allowed) -> an array volume."""

    target: str
    volume: str | None = None
    drives: int | None = Field(default=None, gt=0)
    array: str | None = None


class Labels(_Strict):
    """What a sidecar (or one of its [files."<glob>"] tables) may say about the files below it."""

    study: str | None = None
    system: str | None = None
    generation: str | None = None
    firmware: str | None = None  # what was measured when: the measurements of a trend (view trends)
    # the measurement these files are, named: over the time rule (view file_measurements)
    measurement: str | None = Field(default=None, min_length=1)
    config: str | None = None
    tiles: int | None = Field(default=None, gt=0)
    vms: int | None = Field(default=None, gt=0)
    price_usd: float | None = Field(default=None, ge=0)
    watts: float | None = Field(default=None, ge=0)
    tags: list[str] | None = None
    baseline: str | None = None
    sla: str | None = None  # a latency bound: "p99<=1ms", "mean<2ms" (view sla_headline)
    criteria: list[str] | None = None
    corrections: list[str] | dict[str, str] | None = None
    generation_order: list[str] | None = None
    firmware_order: list[str] | None = None  # firmware and measurement labels, oldest first; else by first run
    orion_version: str | None = None
    targets: list[Target] | None = None
    labels: dict[str, str | int | float | bool | list[str]] | None = None  # free-form: [labels] owner = "lab 3"

    @field_validator("sla")
    @classmethod
    def _sla_form(cls, v: str | None) -> str | None:
        if v is not None:
            sla_bound.parse(v)  # the one reading of a bound (ingest/sla_bound.py): its ValueError says why
        return v

    @field_validator("generation_order", "firmware_order")
    @classmethod
    def _once_each(cls, v: list[str] | None, info: ValidationInfo) -> list[str] | None:
        twice = sorted({x for x in v or [] if (v or []).count(x) > 1})
        if twice:
            where = "; ".join(
                f"'{x}' at positions {', '.join(str(i + 1) for i, y in enumerate(v or []) if y == x)}" for x in twice
            )
            raise ValueError(f"{info.field_name} lists {where}: an order names each once (which place would count?)")
        return v

    @field_validator("labels")
    @classmethod
    def _free_names(cls, v: dict | None) -> dict | None:
        taken = sorted(set(v or {}) & (set(cls.model_fields) | DERIVED))
        if taken:
            raise ValueError(f"[labels] may not redefine {', '.join(taken)}: set them at the top of the sidecar")
        return v


class Sidecar(Labels):
    # the data folder's top: sidecars above it are not read, and its files' paths and default study
    # start here whichever file or folder is ingested (ingest/sidecar.py)
    root: bool | None = None
    files: dict[str, Labels] = {}
